// When the harness's waitReady polls /readyz again, around the server's "Serving securely" line.

/**
 * Before the server logs that it serves, its port is not open: the next poll
 * waits for that line, or 100 ms. After it, readiness follows within milliseconds (the bootstrap writes), so the polls
 * come after 5, 10, 20, … ms, at most 100 (a fixed 100 ms cost every start ≈ 50 ms; each poll is a TLS handshake the
 * starting server pays for, so they are not made faster than that).
 */
export class ReadyPollSchedule {
  static readonly beforeServingMs = 100;
  static readonly afterServingFirstMs = 5;
  static readonly afterServingMaxMs = 100;
  private afterServing = ReadyPollSchedule.afterServingFirstMs;

  next(servingSeen: boolean): { waitForServingLine: boolean; delayMs: number } {
    if (!servingSeen) return { waitForServingLine: true, delayMs: ReadyPollSchedule.beforeServingMs };
    const delayMs = this.afterServing;
    this.afterServing = Math.min(this.afterServing * 2, ReadyPollSchedule.afterServingMaxMs);
    return { waitForServingLine: false, delayMs };
  }
}

// "Try again in a second" for the controllers and the apiserver's start-up loops. The timers never keep the
// process alive, and stop() cancels them, so nothing a controller scheduled runs after it (or the server) stopped.

export class DelayedCalls {
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  /** Calls fn after ms, unless stop() comes first. */
  after(ms: number, fn: () => void): void {
    if (this.stopped) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.stopped) fn();
    }, ms);
    t.unref();
    this.timers.add(t);
  }

  /** Cancels every pending call; calls scheduled afterwards are dropped. */
  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}

import { ReadyPollSchedule } from './ready-poll-schedule.js';

describe('ReadyPollSchedule', () => {
  it('waits for the "Serving securely" line (or 100 ms) until the server logged it', () => {
    const s = new ReadyPollSchedule();
    expect(s.next(false)).toEqual({ waitForServingLine: true, delayMs: 100 });
    expect(s.next(false)).toEqual({ waitForServingLine: true, delayMs: 100 });
  });

  it('then polls after 5, 10, 20, 40, 80 ms and every 100 ms after that', () => {
    const s = new ReadyPollSchedule();
    s.next(false);
    const delays = Array.from({ length: 8 }, () => s.next(true));
    expect(delays.every((d) => !d.waitForServingLine)).toBe(true);
    expect(delays.map((d) => d.delayMs)).toEqual([5, 10, 20, 40, 80, 100, 100, 100]);
  });
});

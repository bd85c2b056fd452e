import { decideWatchWrite, defaultWatchBufferBytes, watchBufferBytesFrom } from './watch-buffer.js';

describe('watch buffer bound', () => {
  it.each([
    // pending, event, limit, droppable → decision
    [0, 10, 100, false, 'write'],
    [0, 1_000, 100, false, 'write'], // one event always fits an empty buffer
    [50, 50, 100, false, 'write'],
    [51, 50, 100, false, 'terminate'],
    [51, 50, 100, true, 'drop'], // bookmarks are dropped, never the reason to end a watch
    [100, 1, 100, false, 'terminate'],
  ] as const)('pending %d + event %d against %d (droppable %s) → %s', (pending, event, limit, droppable, want) => {
    expect(decideWatchWrite(pending, event, limit, droppable)).toBe(want);
  });

  it('reads KAH_WATCH_BUFFER_BYTES, keeping the default for anything but a positive integer', () => {
    expect(watchBufferBytesFrom({})).toBe(defaultWatchBufferBytes);
    expect(watchBufferBytesFrom({ KAH_WATCH_BUFFER_BYTES: '1048576' })).toBe(1_048_576);
    for (const bad of ['', '0', '-1', '1.5', '1e6', 'lots']) expect(watchBufferBytesFrom({ KAH_WATCH_BUFFER_BYTES: bad })).toBe(defaultWatchBufferBytes);
  });
});

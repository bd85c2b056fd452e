import { nodeOptionsSetPoolSize, serverNodeFlags, v8PoolSizeFor } from './server-node-flags.js';

describe('the node flags of apiserver processes', () => {
  it.each([
    [1, 1],
    [2, 1],
    [3, 2],
    [4, 3],
    [5, 4],
    [64, 4],
  ])('gives V8 %i cores minus the main thread, at least 1, at most node’s default 4: %i', (cores, pool) => {
    expect(v8PoolSizeFor(cores)).toBe(pool);
    expect(serverNodeFlags({}, cores)).toEqual([`--v8-pool-size=${pool}`]);
  });

  it.each([
    ['--v8-pool-size=8', true],
    ['--max-old-space-size=512 --v8-pool-size 8', true],
    ['--v8-pool-size', true],
    ['--max-old-space-size=512', false],
    ['--require ./x--v8-pool-size.cjs', false],
    ['', false],
  ])('leaves the pool size to NODE_OPTIONS when it sets one (%j: %s)', (nodeOptions, set) => {
    expect(nodeOptionsSetPoolSize(nodeOptions)).toBe(set);
    expect(serverNodeFlags({ NODE_OPTIONS: nodeOptions }, 2)).toEqual(set ? [] : ['--v8-pool-size=1']);
  });
});

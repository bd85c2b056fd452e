// A compiled program evaluated several times applies each call's own options (the program keeps the last options it
// was given, so that repeated evaluations with the same ones do not copy them).
import { CelEngineEnv } from './env.js';
import { T, type CelType } from './types.js';
import { CelError, fromJSON } from './values.js';

const env = new CelEngineEnv();
const vars = new Map<string, CelType>([['l', T.dyn]]);
const list = fromJSON(Array.from({ length: 100 }, (_, i) => i));

describe('CompiledProgram.evaluate options', () => {
  const all = env.compile('l.all(x, x >= 0)', { variables: vars });

  it('applies a cost limit, then none, then the limit again, on the same program', () => {
    if (!all.ok) throw new Error(all.message);
    const program = all.program;
    const activation = { resolve: (n: string) => (n === 'l' ? list : undefined) };
    const limited = program.evaluate(activation, { costLimit: 10 });
    expect(limited.cancelled?.kind).toBe('cost');
    expect(limited.value).toBeInstanceOf(CelError);
    const unlimited = program.evaluate(activation, {});
    expect(unlimited.cancelled).toBeUndefined();
    expect(unlimited.value).toBe(true);
    expect(program.evaluate(activation, { costLimit: 10 }).cancelled?.kind).toBe('cost');
    expect(program.evaluate(activation, { costLimit: 1e6 }).value).toBe(true);
  });

  it('counts the presence test only when presenceTestHasCost is not false', () => {
    const m = env.compile('has(o.a)', { variables: new Map([['o', T.dyn]]) });
    if (!m.ok) throw new Error(m.message);
    const activation = { resolve: (n: string) => (n === 'o' ? fromJSON({ a: 1 }) : undefined) };
    const withCost = m.program.evaluate(activation, {}).cost;
    const without = m.program.evaluate(activation, { presenceTestHasCost: false }).cost;
    expect(withCost - without).toBe(1);
    expect(m.program.evaluate(activation, {}).cost).toBe(withCost);
  });
});

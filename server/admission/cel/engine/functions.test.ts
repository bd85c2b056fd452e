// The registration pattern the Kubernetes libraries follow: an opaque type, a member function that creates it,
// one that reads it, a global function with a cost hook, all visible to the checker and the interpreter.
import { CelEngineEnv } from './env.js';
import { T, type LibraryRegistration } from './functions.js';
import { CelError, CelOpaque, type CelValue } from './values.js';

class Greeting extends CelOpaque {
  readonly typeName = 'example.Greeting';
  constructor(readonly who: string) {
    super();
  }
  override equals(other: CelOpaque): boolean {
    return other instanceof Greeting && other.who === this.who;
  }
}

const GREETING = T.opaque('example.Greeting');

const greetLibrary: LibraryRegistration = {
  name: 'example.greet',
  types: [{ name: 'example.Greeting' }],
  functions: [
    { id: 'string_greet', name: 'greet', receiver: T.string, args: [], result: GREETING, impl: (s: string) => new Greeting(s) },
    { id: 'greeting_text', name: 'text', receiver: GREETING, args: [], result: T.string, impl: (g: Greeting) => `hello ${g.who}` },
    {
      id: 'shout_string',
      name: 'shout',
      args: [T.string],
      result: T.string,
      impl: (s: string) => (s === '' ? new CelError('nothing to shout') : s.toUpperCase()),
      cost: ([s]) => Math.ceil((s as string).length * 0.1),
      estimate: ({ args }) => ({ cost: { min: Math.ceil(args[0]!.min * 0.1), max: Math.ceil(args[0]!.max * 0.1) }, resultSize: args[0]! }),
    },
  ],
};

const env = new CelEngineEnv({ libraries: [greetLibrary] });
const vars = new Map([['name', T.string]]);
const run = (expr: string, name: CelValue = 'bob') => {
  const c = env.compile(expr, { variables: vars });
  if (!c.ok) throw new Error(c.message);
  return c.program.evaluate({ resolve: (n) => (n === 'name' ? name : undefined) });
};

describe('function registration', () => {
  it('type-checks and evaluates a member function chain over a library type', () => {
    const c = env.compile("name.greet().text() == 'hello bob'", { variables: vars });
    expect(c.ok).toBe(true);
    expect(run('name.greet().text()').value).toBe('hello bob');
    expect(run("name.greet() == 'alice'.greet()").value).toBe(false);
    expect(run("name.greet() == 'bob'.greet()").value).toBe(true);
  });

  it('reports a member call on the wrong receiver type as cel-go does', () => {
    const c = env.compile('1.greet()', { variables: vars });
    expect(c.ok).toBe(false);
    if (!c.ok) expect(c.message).toContain("found no matching overload for 'greet' applied to 'int.()'");
  });

  it('returns a library error value as the evaluation error', () => {
    const out = run("shout(name) + shout('')");
    expect(out.value).toEqual(new CelError('nothing to shout'));
  });

  it('charges the cost the overload declares', () => {
    // ident 1 + shout ceil(30 * 0.1) = 3
    const out = run('shout(name)', 'x'.repeat(30));
    expect(out.cost).toBe(4);
    const c = env.compile('shout(name)', { variables: vars });
    expect(c.ok && c.program.estimateCost({ maxSize: 100 })).toEqual({ min: 1, max: 11 });
  });

  it('exposes a library type name as a type value', () => {
    expect(run('type(name.greet()) == example.Greeting').value).toBe(true);
  });
});

// A small spf13/pflag: long and short flags, `--flag=value` and `--flag value`, optional-value booleans,
// `--` ending the flags, `_` normalized to `-` (kube's WordSepNormalizeFunc), and pflag's exact error texts.
import { goQuote } from './go-strconv.js';

export interface FlagDefinition {
  name: string;
  shorthand?: string;
  usage: string;
  /** pflag's Value.Type(): "int", "string", "strings", "bool", "ip", "mapStringBool", "Level" */
  type: string;
  /** the default as --help shows it; "" for none */
  defValue: string;
  /** value used for `--flag` without `=value` ("true" for booleans) */
  noOptDefVal?: string;
  /** Value.Set: undefined on success, else the error text (without pflag's `invalid argument` prefix) */
  set(value: string): string | undefined;
}

export type FlagParseResult = { ok: true; args: string[]; changed: ReadonlySet<string> } | { ok: false; error: string };

const normalize = (name: string): string => name.replace(/_/g, '-');

export class FlagSet {
  private readonly byName = new Map<string, FlagDefinition>();
  private readonly byShorthand = new Map<string, FlagDefinition>();

  define(def: FlagDefinition): void {
    this.byName.set(normalize(def.name), def);
    if (def.shorthand) this.byShorthand.set(def.shorthand, def);
  }

  /** FlagSet.Parse over argv (without the program name). Stops at the first error, as pflag does. */
  parse(argv: readonly string[]): FlagParseResult {
    const args: string[] = [];
    const changed = new Set<string>();
    const set = (flag: FlagDefinition, value: string): string | undefined => {
      const err = flag.set(value);
      if (err !== undefined) {
        const flagName = flag.shorthand ? `-${flag.shorthand}, --${flag.name}` : `--${flag.name}`;
        return `invalid argument ${goQuote(value)} for ${goQuote(flagName)} flag: ${err}`;
      }
      changed.add(flag.name);
      return undefined;
    };
    let rest = [...argv];
    while (rest.length > 0) {
      const s = rest.shift()!;
      if (s.length === 0 || s[0] !== '-' || s.length === 1) {
        args.push(s);
        continue;
      }
      if (s[1] === '-') {
        if (s.length === 2) {
          args.push(...rest);
          break;
        }
        const res = this.parseLong(s, rest, set);
        if (typeof res === 'string') return { ok: false, error: res };
        rest = res;
      } else {
        let shorthands = s.slice(1);
        while (shorthands.length > 0) {
          const res = this.parseSingleShort(shorthands, rest, set);
          if (typeof res === 'string') return { ok: false, error: res };
          [shorthands, rest] = res;
        }
      }
    }
    return { ok: true, args, changed };
  }

  private parseLong(s: string, rest: string[], set: (f: FlagDefinition, v: string) => string | undefined): string[] | string {
    const body = s.slice(2);
    if (body.length === 0 || body[0] === '-' || body[0] === '=') return `bad flag syntax: ${s}`;
    const eq = body.indexOf('=');
    const name = eq < 0 ? body : body.slice(0, eq);
    const flag = this.byName.get(normalize(name));
    if (!flag) return `unknown flag: --${name}`;
    let value: string;
    let remaining = rest;
    if (eq >= 0) value = body.slice(eq + 1);
    else if (flag.noOptDefVal !== undefined) value = flag.noOptDefVal;
    else if (rest.length > 0) {
      // pflag takes the next argument whatever it looks like, even "--other".
      value = rest[0]!;
      remaining = rest.slice(1);
    } else return `flag needs an argument: ${s}`;
    const err = set(flag, value);
    return err ?? remaining;
  }

  private parseSingleShort(
    shorthands: string,
    rest: string[],
    set: (f: FlagDefinition, v: string) => string | undefined,
  ): [string, string[]] | string {
    const c = shorthands[0]!;
    let outShorts = shorthands.slice(1);
    let remaining = rest;
    const flag = this.byShorthand.get(c);
    // Go's %q of a byte is a quoted character literal.
    const quotedChar = `'${c === "'" ? "\\'" : c}'`;
    if (!flag) return `unknown shorthand flag: ${quotedChar} in -${shorthands}`;
    let value: string;
    if (shorthands.length > 2 && shorthands[1] === '=') {
      value = shorthands.slice(2);
      outShorts = '';
    } else if (flag.noOptDefVal !== undefined) value = flag.noOptDefVal;
    else if (shorthands.length > 1) {
      value = shorthands.slice(1);
      outShorts = '';
    } else if (rest.length > 0) {
      value = rest[0]!;
      remaining = rest.slice(1);
    } else return `flag needs an argument: ${quotedChar} in -${shorthands}`;
    const err = set(flag, value);
    return err ?? [outShorts, remaining];
  }

  /** FlagUsages: one line per flag, sorted, aligned, with "(default …)" when the default is not zero. */
  usages(): string {
    const flags = [...this.byName.values()].sort((a, b) => a.name.localeCompare(b.name));
    const lines: Array<[string, string]> = [];
    let maxlen = 0;
    for (const f of flags) {
      let head = f.shorthand ? `  -${f.shorthand}, --${f.name}` : `      --${f.name}`;
      if (f.type !== 'bool') head += ` ${f.type}`;
      if (head.length > maxlen) maxlen = head.length;
      let usage = f.usage;
      const zero = f.defValue === '' || f.defValue === '0' || f.defValue === 'false' || f.defValue === '[]';
      if (!zero) usage += f.type === 'string' ? ` (default ${goQuote(f.defValue)})` : ` (default ${f.defValue})`;
      lines.push([head, usage]);
    }
    return lines.map(([h, u]) => `${h}${' '.repeat(maxlen - h.length + 3)}${u}`).join('\n');
  }
}

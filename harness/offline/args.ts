// The offline commands take kube-apiserver's flags (--admission-control-config-file, --feature-gates,
// --enable-admission-plugins, --webhook-service-resolver, …) exactly as `kah serve` parses them, plus a few flags of
// their own. This separates the two, so the server's parser (with its texts) sees only its own flags.

export interface OwnFlag {
  /** the long name, without dashes */
  name: string;
  /** a one-letter alias ("o" for -o) */
  short?: string;
  /** false: a switch (`--dry-run`, `--dry-run=true|false`) */
  takesValue: boolean;
}

export interface SplitArgs {
  /** every value given for one of our flags, in order ("true"/"false" for switches) */
  own: Map<string, string[]>;
  /** everything else, for parseServerOptions */
  rest: string[];
  errors: string[];
}

export function splitOwnFlags(args: readonly string[], flags: readonly OwnFlag[]): SplitArgs {
  const own = new Map<string, string[]>();
  const rest: string[] = [];
  const errors: string[] = [];
  const add = (name: string, value: string): void => {
    own.set(name, [...(own.get(name) ?? []), value]);
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      rest.push(...args.slice(i));
      break;
    }
    const m = /^(?:--([^=]+)|-([A-Za-z]))(?:=(.*))?$/su.exec(arg);
    const flag = m ? flags.find((f) => (m[1] !== undefined ? f.name === m[1] : f.short === m[2])) : undefined;
    if (!m || !flag) {
      rest.push(arg);
      continue;
    }
    const shown = m[1] !== undefined ? `--${flag.name}` : `-${flag.short!}`;
    let value = m[3];
    if (!flag.takesValue) {
      if (value === undefined) value = 'true';
      if (value !== 'true' && value !== 'false') errors.push(`invalid argument ${JSON.stringify(value)} for "${shown}" flag: must be true or false`);
      else add(flag.name, value);
      continue;
    }
    if (value === undefined) {
      if (i + 1 >= args.length) {
        errors.push(`flag needs an argument: ${shown}`);
        continue;
      }
      value = args[++i]!;
    }
    add(flag.name, value);
  }
  return { own, rest, errors };
}

/** The last value of a flag (later flags win, as pflag's string flags). */
export function lastValue(split: SplitArgs, name: string): string | undefined {
  const values = split.own.get(name);
  return values?.[values.length - 1];
}

/** Every value of a repeatable flag, comma lists split, empty entries dropped. */
export function listValues(split: SplitArgs, name: string): string[] {
  return (split.own.get(name) ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

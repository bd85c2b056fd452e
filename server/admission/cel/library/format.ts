// kube's Format library (staging/src/k8s.io/apiserver/pkg/cel/library/format.go): named string formats whose
// `validate(str)` returns optional.none() for a valid string and optional.of([errors]) otherwise, with the messages
// of apimachinery's name validation (server/registry/validation/name.ts) and kube-openapi's strfmt.
//
//   format.named("dns1123Label")             → optional(Format)
//   format.dns1123Label().validate("a b")    → optional.of(["a lowercase RFC 1123 label must …"])
import { CelOpaque, CelOptional, type CelValue } from '../engine/values.js';
import { T, type CallEstimate, type CallEstimateInput, type LibraryRegistration, type OverloadDecl } from '../engine/functions.js';
import {
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  isQualifiedName,
  isValidLabelValue,
  maxLenError,
} from '../../../registry/validation/name.js';
import { REGEX_STRING_LENGTH_COST_FACTOR, STRING_TRAVERSAL_COST_FACTOR, actualSize, byFactor, ceilFactor, equalityCost, EQUALITY_COST_FUNCTIONS, sizeOf } from './cost.js';
import { parseRequestURI } from './go-url.js';

export const FORMAT_TYPE = 'kubernetes.NamedFormat';

/** apiserver/pkg/cel: the estimate assumes the longest named-format regex; equality is bounded by MaxFormatSize. */
export const MAX_NAME_FORMAT_REGEX_SIZE = 128;
export const MAX_FORMAT_SIZE = 64;

export class FormatValue extends CelOpaque {
  readonly typeName = FORMAT_TYPE;
  constructor(
    readonly name: string,
    readonly validate: (s: string) => string[],
    /** the size of the regex (or its estimated equivalent) the validation runs, for runtime cost */
    readonly maxRegexSize: number,
  ) {
    super();
  }
  override equals(other: CelOpaque): boolean {
    return other instanceof FormatValue && this.name === other.name;
  }
  override toJSON(): unknown {
    return this.name;
  }
}

// validation.IsValidPortName
const portNameCharset = /^[-a-z0-9]+$/;
function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(port, 'utf8') > 15) errs.push(maxLenError(15));
  if (!portNameCharset.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port[0] === '-' || port[port.length - 1] === '-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

// kube-openapi strfmt and the govalidator patterns its validators (and kube's cost estimates) use
const UUID_PATTERN = '(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$';
const uuidRe = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const BASE64_PATTERN = String.raw`^(?:[A-Za-z0-9+\/]{4})*(?:[A-Za-z0-9+\/]{2}==|[A-Za-z0-9+\/]{3}=|[A-Za-z0-9+\/]{4})$`;
const base64Re = new RegExp(BASE64_PATTERN);
const DATE_TIME_PATTERN = '^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$';
const dateTimeRe = new RegExp(DATE_TIME_PATTERN);
// govalidator.URL: only its length is used (an estimate of ParseRequestURI's cost)
const GOVALIDATOR_IP =
  '(([0-9a-fA-F]{1,4}:){7,7}[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,7}:|([0-9a-fA-F]{1,4}:){1,6}:[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,5}(:[0-9a-fA-F]{1,4}){1,2}|([0-9a-fA-F]{1,4}:){1,4}(:[0-9a-fA-F]{1,4}){1,3}|([0-9a-fA-F]{1,4}:){1,3}(:[0-9a-fA-F]{1,4}){1,4}|([0-9a-fA-F]{1,4}:){1,2}(:[0-9a-fA-F]{1,4}){1,5}|[0-9a-fA-F]{1,4}:((:[0-9a-fA-F]{1,4}){1,6})|:((:[0-9a-fA-F]{1,4}){1,7}|:)|fe80:(:[0-9a-fA-F]{0,4}){0,4}%[0-9a-zA-Z]{1,}|::(ffff(:0{1,4}){0,1}:){0,1}((25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])\\.){3,3}(25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])|([0-9a-fA-F]{1,4}:){1,4}:((25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])\\.){3,3}(25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9]))';
const GOVALIDATOR_URL =
  '^' +
  String.raw`((ftp|tcp|udp|wss?|https?):\/\/)` +
  '?' +
  String.raw`(\S+(:\S*)?@)` +
  '?((' +
  String.raw`([1-9]\d?|1\d\d|2[01]\d|22[0-3])(\.(1?\d{1,2}|2[0-4]\d|25[0-5])){2}(?:\.([0-9]\d?|1\d\d|2[0-4]\d|25[0-4]))` +
  String.raw`|(\[` +
  GOVALIDATOR_IP +
  String.raw`\])|(([a-zA-Z0-9]([a-zA-Z0-9-_]+)?[a-zA-Z0-9]([-\.][a-zA-Z0-9]+)*)|(` +
  String.raw`((www\.)|([a-zA-Z0-9]([-\.][-\._a-zA-Z0-9]+)*))` +
  String.raw`?))?(([a-zA-Z\x{00a1}-\x{ffff}0-9]+-?-?)*[a-zA-Z\x{00a1}-\x{ffff}0-9]+)(?:\.([a-zA-Z\x{00a1}-\x{ffff}]{1,}))?))\.?` +
  String.raw`(:(\d{1,5}))` +
  '?' +
  String.raw`((\/|\?|#)[^\s]*)` +
  '?$';

const daysIn = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** strfmt.IsDate: time.Parse("2006-01-02", s). */
export function isDate(s: string): boolean {
  const m = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return mo >= 1 && mo <= 12 && d >= 1 && d <= daysIn(y, mo);
}

/** strfmt.IsDateTime: a date, a "t", and a time matching DateTimePattern with hours ≤ 23 and minutes, seconds ≤ 59. */
export function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0]!)) return false;
  const m = dateTimeRe.exec(parts[1]!);
  if (!m) return false;
  return m[1]! <= '23' && m[2]! <= '59' && m[3]! <= '59';
}

const nameFormat = (name: string, f: (s: string) => string[], size: number): FormatValue => new FormatValue(name, f, size);
const single = (ok: (s: string) => boolean, msg: string) => (s: string) => (ok(s) ? [] : [msg]);

/** library.ConstantFormats, by the name `format.named` and `format.<name>()` use. */
export const constantFormats: ReadonlyMap<string, FormatValue> = new Map([
  ['dns1123Label', nameFormat('DNS1123Label', (s) => nameIsDNSLabel(s, false), 30)],
  ['dns1123Subdomain', nameFormat('DNS1123Subdomain', (s) => nameIsDNSSubdomain(s, false), 60)],
  ['dns1035Label', nameFormat('DNS1035Label', (s) => nameIsDNS1035Label(s, false), 30)],
  ['qualifiedName', nameFormat('QualifiedName', isQualifiedName, 60)],
  ['portName', nameFormat('PortName', isValidPortName, 20)],
  ['dns1123LabelPrefix', nameFormat('DNS1123LabelPrefix', (s) => nameIsDNSLabel(s, true), 30)],
  ['dns1123SubdomainPrefix', nameFormat('DNS1123SubdomainPrefix', (s) => nameIsDNSSubdomain(s, true), 60)],
  ['dns1035LabelPrefix', nameFormat('DNS1035LabelPrefix', (s) => nameIsDNS1035Label(s, true), 30)],
  ['labelValue', nameFormat('LabelValue', isValidLabelValue, 40)],
  [
    'uri',
    nameFormat(
      'URI',
      (s) => {
        const u = parseRequestURI(s);
        return typeof u === 'string' ? [u] : [];
      },
      GOVALIDATOR_URL.length,
    ),
  ],
  ['uuid', nameFormat('uuid', single((s) => uuidRe.test(s), 'does not match the UUID format'), UUID_PATTERN.length)],
  ['byte', nameFormat('byte', single((s) => base64Re.test(s), 'invalid base64'), BASE64_PATTERN.length)],
  ['date', nameFormat('date', single(isDate, 'invalid date'), DATE_TIME_PATTERN.length)],
  ['datetime', nameFormat('datetime', single(isDateTime, 'invalid datetime'), DATE_TIME_PATTERN.length)],
]);

export function validateFormat(f: FormatValue, s: string): CelOptional {
  const errs = f.validate(s);
  return errs.length === 0 ? CelOptional.none : CelOptional.of(errs);
}

const F = T.opaque(FORMAT_TYPE);

/** validate: a regex match of the string, with the format's regex size (statically, the largest one). */
const validateCost = {
  cost: (args: readonly CelValue[]) => {
    const f = args[0] as FormatValue;
    const strCost = ceilFactor(1 + actualSize(args[1]), STRING_TRAVERSAL_COST_FACTOR);
    return strCost * ceilFactor(f.maxRegexSize, REGEX_STRING_LENGTH_COST_FACTOR);
  },
  estimate: (i: CallEstimateInput): CallEstimate => ({
    cost: byFactor(byFactor(sizeOf(i.args[0]), STRING_TRAVERSAL_COST_FACTOR), MAX_NAME_FORMAT_REGEX_SIZE * REGEX_STRING_LENGTH_COST_FACTOR),
  }),
};

const overloads: OverloadDecl[] = [
  {
    id: 'format-validate',
    name: 'validate',
    receiver: F,
    args: [T.string],
    result: T.optional(T.list(T.string)),
    impl: (f, s) => validateFormat(f as FormatValue, s as string),
    ...validateCost,
  },
  {
    id: 'format-named',
    name: 'format.named',
    args: [T.string],
    result: T.optional(F),
    impl: (n) => {
      const f = constantFormats.get(n as string);
      return f ? CelOptional.of(f) : CelOptional.none;
    },
  },
  ...[...constantFormats].map(([name, f]): OverloadDecl => ({ id: `format.${name}`, name: `format.${name}`, args: [], result: F, impl: () => f })),
];

export const formatLibrary: LibraryRegistration = {
  name: 'kubernetes.format',
  types: [{ name: FORMAT_TYPE }],
  functions: overloads,
  callCost: equalityCost((v) => v instanceof FormatValue),
  callCostFunctions: EQUALITY_COST_FUNCTIONS,
  callCostOpaqueOnly: true,
};

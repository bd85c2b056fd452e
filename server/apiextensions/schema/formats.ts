// The string formats CRD schemas may use (apiextensions-apiserver pkg/apiserver/validation/formats.go at
// compatibility version 1.0) and their checks as go-openapi/strfmt's default registry performs them. Format names
// are normalised by dropping "-" ("date-time" is "datetime"); unknown formats are ignored, not rejected.
import { parseRequestURI } from '../../admission/cel/library/go-url.js';
import { parseAddr } from '../../admission/cel/library/netip.js';

const supported = new Set([
  'bsonobjectid', 'uri', 'email', 'hostname', 'ipv4', 'ipv6', 'cidr', 'mac', 'uuid', 'uuid3', 'uuid4', 'uuid5',
  'isbn', 'isbn10', 'isbn13', 'creditcard', 'ssn', 'hexcolor', 'rgbcolor', 'byte', 'password', 'date', 'duration',
  'datetime', 'quantity',
]);

const normalize = (format: string): string => format.replaceAll('-', '');

export function isSupportedStringFormat(format: string): boolean {
  return supported.has(normalize(format));
}

const hostnamePattern =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const uuid = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuid3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuid4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const uuid5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const isbn10 = /^(?:[0-9]{9}X|[0-9]{10})$/;
const isbn13 = /^(?:[0-9]{13})$/;
const creditCard = /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/;
const ssn = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const hexColor = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const rgbByte = '(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])';
const rgbColor = new RegExp(`^rgb\\(\\s*${rgbByte}\\s*,\\s*${rgbByte}\\s*,\\s*${rgbByte}\\s*\\)$`);
const mac = /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{2}[:-]){7}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{2}[:-]){19}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{4}\.){2}[0-9a-fA-F]{4}$|^([0-9a-fA-F]{4}\.){3}[0-9a-fA-F]{4}$|^([0-9a-fA-F]{4}\.){9}[0-9a-fA-F]{4}$/;
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const fullDate = /^(\d{4})-(\d{2})-(\d{2})$/;
const dateTime = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})?$/;
const goDuration = /^[-+]?(\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))*$/;
const scalaDuration = /^(\d+)\s*(ns|nano|nanos|nanosecond|nanoseconds|us|micro|micros|microsecond|microseconds|ms|milli|millis|millisecond|milliseconds|s|sec|secs|second|seconds|m|min|mins|minute|minutes|h|hr|hrs|hour|hours|d|day|days|w|wk|wks|week|weeks)$/;
const quantity = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const quantitySuffixes = new Set(['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei', 'n', 'u', 'm', 'k', 'M', 'G', 'T', 'P', 'E']);
const email = /^[^\s@<>()[\]\\,;:"]+(\.[^\s@<>()[\]\\,;:"]+)*@[^\s@<>()[\]\\,;:"]+$/;

function validDate(y: string, m: string, d: string): boolean {
  const month = Number(m);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1) return false;
  const days = new Date(Date.UTC(Number(y), month, 0)).getUTCDate();
  return day <= days;
}

function isQuantity(v: string): boolean {
  const m = quantity.exec(v);
  if (!m) return false;
  const num = m[1]!.replace(/^[+-]/, '');
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(num)) return false;
  const suffix = m[2]!;
  return quantitySuffixes.has(suffix) || /^[eE][-+]?\d+$/.test(suffix);
}

function isCIDR(v: string): boolean {
  const slash = v.indexOf('/');
  if (slash < 0) return false;
  const addr = parseAddr(v.slice(0, slash));
  if (typeof addr === 'string' || addr.zone !== '') return false;
  const bits = v.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits) || (bits.length > 1 && bits.startsWith('0'))) return false;
  return Number(bits) <= (addr.is4 ? 32 : 128);
}

// net.ParseIP: no zones; an address with a "." is IPv4 (also in IPv6 form), one with ":" is IPv6.
function parsesAsIP(v: string): boolean {
  const addr = parseAddr(v);
  return typeof addr !== 'string' && addr.zone === '';
}

const checks: Record<string, (v: string) => boolean> = {
  bsonobjectid: (v) => /^[0-9a-fA-F]{24}$/.test(v),
  uri: (v) => typeof parseRequestURI(v) !== 'string',
  email: (v) => email.test(v),
  hostname: (v) => v.length <= 255 && hostnamePattern.test(v),
  ipv4: (v) => parsesAsIP(v) && v.includes('.'),
  ipv6: (v) => parsesAsIP(v) && v.includes(':'),
  cidr: isCIDR,
  mac: (v) => mac.test(v),
  uuid: (v) => uuid.test(v),
  uuid3: (v) => uuid3.test(v),
  uuid4: (v) => uuid4.test(v),
  uuid5: (v) => uuid5.test(v),
  isbn: (v) => checks.isbn10!(v) || checks.isbn13!(v),
  isbn10: (v) => isbn10.test(v.replace(/[- ]/g, '')),
  isbn13: (v) => isbn13.test(v.replace(/[- ]/g, '')),
  creditcard: (v) => creditCard.test(v.replace(/\D/g, '')),
  ssn: (v) => ssn.test(v),
  hexcolor: (v) => hexColor.test(v),
  rgbcolor: (v) => rgbColor.test(v),
  byte: (v) => base64.test(v),
  password: () => true,
  date: (v) => {
    const m = fullDate.exec(v);
    return m !== null && validDate(m[1]!, m[2]!, m[3]!);
  },
  datetime: (v) => {
    const m = dateTime.exec(v);
    return m !== null && validDate(m[1]!, m[2]!, m[3]!) && Number(m[4]) < 24 && Number(m[5]) < 60 && Number(m[6]) < 60;
  },
  duration: (v) => v === '0' || goDuration.test(v) || scalaDuration.test(v),
  quantity: isQuantity,
};

/** strfmt.Default.Validates(format, value) for a supported format; unknown formats always validate. */
export function validatesFormat(format: string, value: string): boolean {
  const check = checks[normalize(format)];
  return check ? check(value) : true;
}

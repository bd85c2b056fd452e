// Name and key formats of k8s.io/apimachinery (pkg/util/validation, pkg/api/validate/content,
// pkg/api/validation/path), returning kube's messages word for word: every function gives the list of
// problems, empty when the value is valid, and callers wrap each one in a field error.
//
// Lengths are counted in bytes, as Go's len() does. The max-length wording is "must be no more than N
// characters", which is what released kube-apiserver versions print.
import type { NameRule } from '../resource.js';

export const DNS1123LabelMaxLength = 63;
export const DNS1123SubdomainMaxLength = 253;
export const DNS1035LabelMaxLength = 63;
export const LabelValueMaxLength = 63;
const labelKeyNameMaxLength = 63;

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelErrMsg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const labelKeyCharFmt = '[A-Za-z0-9]';
const labelKeyExtCharFmt = '[-A-Za-z0-9_.]';
const labelKeyFmt = `(${labelKeyCharFmt}${labelKeyExtCharFmt}*)?${labelKeyCharFmt}`;
const labelKeyErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueFmt = `(${labelKeyFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

const anchored = (fmt: string): RegExp => new RegExp(`^${fmt}$`);
const dns1123LabelRegexp = anchored(dns1123LabelFmt);
const dns1123SubdomainRegexp = anchored(dns1123SubdomainFmt);
const dns1035LabelRegexp = anchored(dns1035LabelFmt);
const labelKeyRegexp = anchored(labelKeyFmt);
const labelValueRegexp = anchored(labelValueFmt);

/** Go's len(): UTF-8 bytes. */
const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

/** validation.MaxLenError */
export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** validation.RegexError: the message, the examples, and the regex. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

/** validation.EmptyError */
export function emptyError(): string {
  return 'must be non-empty';
}

/** IsDNS1123Label: a lowercase RFC 1123 label (namespaces, services). */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123LabelMaxLength) errs.push(maxLenError(DNS1123LabelMaxLength));
  if (!dns1123LabelRegexp.test(value)) {
    // A valid subdomain that is not a valid label, with the length already checked, can only have dots.
    if (dns1123SubdomainRegexp.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errs;
}

/** IsDNS1123Subdomain: a lowercase RFC 1123 subdomain (most object names). */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123SubdomainMaxLength) errs.push(maxLenError(DNS1123SubdomainMaxLength));
  if (!dns1123SubdomainRegexp.test(value)) errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

/** IsDNS1035Label */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1035LabelMaxLength) errs.push(maxLenError(DNS1035LabelMaxLength));
  if (!dns1035LabelRegexp.test(value)) errs.push(regexError(dns1035LabelErrMsg, dns1035LabelFmt, 'my-name', 'abc-123'));
  return errs;
}

/**
 * IsQualifiedName (content.IsLabelKey): `[prefix/]name`, the prefix a DNS subdomain, the name at most 63
 * characters. Used for label keys, annotation keys, finalizers and selector keys.
 */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  switch (parts.length) {
    case 1:
      name = parts[0]!;
      break;
    case 2: {
      const prefix = parts[0]!;
      name = parts[1]!;
      if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
      else for (const msg of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
      break;
    }
    default:
      return [
        `a valid label key ${regexError(labelKeyErrMsg, labelKeyFmt, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
      ];
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (byteLength(name) > labelKeyNameMaxLength) errs.push(`name part ${maxLenError(labelKeyNameMaxLength)}`);
  if (!labelKeyRegexp.test(name)) errs.push(`name part ${regexError(labelKeyErrMsg, labelKeyFmt, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** IsValidLabelValue: empty, or a qualified-name-like token of at most 63 characters. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LabelValueMaxLength) errs.push(maxLenError(LabelValueMaxLength));
  if (!labelValueRegexp.test(value)) errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** path.NameMayNotBe / NameMayNotContain: what cannot be a URL path segment or an etcd key part. */
export const nameMayNotBe = ['.', '..'] as const;
export const nameMayNotContain = ['/', '%'] as const;

/** path.IsValidPathSegmentName */
export function isValidPathSegmentName(name: string): string[] {
  for (const illegal of nameMayNotBe) if (name === illegal) return [`may not be '${illegal}'`];
  return isValidPathSegmentPrefix(name);
}

/** path.IsValidPathSegmentPrefix: a generateName prefix may be '.', a suffix follows. */
export function isValidPathSegmentPrefix(name: string): string[] {
  const errs: string[] = [];
  for (const illegal of nameMayNotContain) if (name.includes(illegal)) errs.push(`may not contain '${illegal}'`);
  return errs;
}

/**
 * A ValidateNameFunc of apimachinery's api/validation: `prefix` is true when the value is a generateName,
 * which gets a random suffix appended before it is used.
 */
export type ValidateNameFunc = (name: string, prefix: boolean) => string[];

/** path.ValidatePathSegmentName */
export const validatePathSegmentName: ValidateNameFunc = (name, prefix) => (prefix ? isValidPathSegmentPrefix(name) : isValidPathSegmentName(name));

// kube's maskTrailingDash swaps the last two characters for "a" (not just the dash), so "ab-" checks as "aa".
function maskTrailingDash(name: string): string {
  if (!name.endsWith('-')) return name;
  return `${name.slice(0, Math.max(0, name.length - 2))}a`;
}

/** NameIsDNSSubdomain */
export const nameIsDNSSubdomain: ValidateNameFunc = (name, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);

/** NameIsDNSLabel */
export const nameIsDNSLabel: ValidateNameFunc = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);

/** NameIsDNS1035Label */
export const nameIsDNS1035Label: ValidateNameFunc = (name, prefix) => isDNS1035Label(prefix ? maskTrailingDash(name) : name);

/** ValidateNamespaceName: namespaces are DNS labels. */
export const validateNamespaceName: ValidateNameFunc = nameIsDNSLabel;

/** The ValidateNameFunc a resource's NameRule stands for. */
export function nameValidatorFor(rule: NameRule): ValidateNameFunc {
  switch (rule) {
    case 'DNS1123Label':
      return nameIsDNSLabel;
    case 'PathSegment':
      return validatePathSegmentName;
    case 'DNS1123Subdomain':
      return nameIsDNSSubdomain;
  }
}

// k8s.io/apimachinery/pkg/util/validation: IsValidPortNum and IsValidPortName, with kube's texts.
import { maxLenError } from './name.js';

/** validation.IsValidPortNum */
export function isValidPortNum(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];
}

const portNameCharset = /^[-a-z0-9]+$/;
const portNameOneLetter = /[a-z]/;
/** validation.IsValidPortName: an IANA_SVC_NAME (at most 15 characters, a-z0-9 and '-', at least one letter). */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(port, 'utf8') > 15) errs.push(maxLenError(15));
  if (!portNameCharset.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!portNameOneLetter.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port[0] === '-' || port[port.length - 1] === '-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

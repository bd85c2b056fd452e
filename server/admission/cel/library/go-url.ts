// Go's net/url as kube's URL library uses it: url.ParseRequestURI to validate (absolute URIs and absolute paths
// only), url.Parse to build the value, and the accessors Hostname, Port, EscapedPath and Query. Error messages are
// Go's (`parse "../x": invalid URI for request`), since kube puts them in its own.
import { goQuote } from './go-text.js';
import { parseAddr } from './netip.js';

type Mode = 'path' | 'pathSegment' | 'host' | 'zone' | 'userPassword' | 'queryComponent' | 'fragment';

export interface GoURL {
  scheme: string;
  opaque: string;
  /** the *Userinfo pointer: present or not (two parses never share one) */
  user?: { username: string; password?: string };
  host: string;
  path: string;
  rawPath: string;
  omitHost: boolean;
  forceQuery: boolean;
  rawQuery: string;
  fragment: string;
  rawFragment: string;
}

class URLError extends Error {}

const isAlnum = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39);
const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9a-fA-F]$/.test(c);

function shouldEscape(c: number, mode: Mode): boolean {
  if (isAlnum(c)) return false;
  const ch = String.fromCharCode(c);
  if ((mode === 'host' || mode === 'zone') && `!$&'()*+,;=:[]<>"`.includes(ch)) return false;
  if ('-_.~'.includes(ch)) return false;
  if ('$&+,/:;=?@'.includes(ch)) {
    switch (mode) {
      case 'path':
        return ch === '?';
      case 'pathSegment':
        return ch === '/' || ch === ';' || ch === ',' || ch === '?';
      case 'userPassword':
        return ch === '@' || ch === '/' || ch === '?' || ch === ':';
      case 'queryComponent':
        return true;
      case 'fragment':
        return false;
    }
  }
  if (mode === 'fragment' && '!()*'.includes(ch)) return false;
  return true;
}

const utf8Decoder = new TextDecoder('utf-8');

/** url.unescape: validates %XX sequences (and host characters), then decodes them. */
function unescape(s: string, mode: Mode): string {
  const bytes = Buffer.from(s, 'utf8');
  let n = 0;
  let hasPlus = false;
  for (let i = 0; i < bytes.length; ) {
    const c = bytes[i]!;
    if (c === 0x25) {
      n++;
      const h1 = String.fromCharCode(bytes[i + 1] ?? 0);
      const h2 = String.fromCharCode(bytes[i + 2] ?? 0);
      if (i + 2 >= bytes.length || !isHex(h1) || !isHex(h2)) {
        throw new URLError(`invalid URL escape ${goQuote(bytes.subarray(i, i + 3).toString('utf8'))}`);
      }
      const seq = bytes.subarray(i, i + 3).toString('latin1');
      const v = parseInt(h1 + h2, 16);
      // hosts may only %-encode non-ASCII bytes, except %25 in IPv6 zones
      if (mode === 'host' && parseInt(h1, 16) < 8 && seq !== '%25') throw new URLError(`invalid URL escape ${goQuote(seq)}`);
      if (mode === 'zone' && seq !== '%25' && v !== 0x20 && shouldEscape(v, 'host')) throw new URLError(`invalid URL escape ${goQuote(seq)}`);
      i += 3;
    } else if (c === 0x2b) {
      hasPlus = mode === 'queryComponent';
      i++;
    } else {
      if ((mode === 'host' || mode === 'zone') && c < 0x80 && shouldEscape(c, mode)) {
        throw new URLError(`invalid character ${goQuote(String.fromCharCode(c))} in host name`);
      }
      i++;
    }
  }
  if (n === 0 && !hasPlus) return s;
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c === 0x25) {
      out.push(parseInt(String.fromCharCode(bytes[i + 1]!, bytes[i + 2]!), 16));
      i += 2;
    } else if (c === 0x2b) out.push(mode === 'queryComponent' ? 0x20 : 0x2b);
    else out.push(c);
  }
  return utf8Decoder.decode(Uint8Array.from(out));
}

/** url.escape */
function escape(s: string, mode: Mode): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    if (!shouldEscape(b, mode)) out += String.fromCharCode(b);
    else if (b === 0x20 && mode === 'queryComponent') out += '+';
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

function validEncoded(s: string, mode: Mode): boolean {
  for (const b of Buffer.from(s, 'utf8')) {
    if (`!$&'()*+,;=:@[]%`.includes(String.fromCharCode(b))) continue;
    if (shouldEscape(b, mode)) return false;
  }
  return true;
}

const validOptionalPort = (port: string): boolean => port === '' || /^:[0-9]*$/.test(port);

function getScheme(raw: string): { scheme: string; rest: string } {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return { scheme: '', rest: raw };
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new URLError('missing protocol scheme');
      return { scheme: raw.slice(0, i), rest: raw.slice(i + 1) };
    }
    return { scheme: '', rest: raw };
  }
  return { scheme: '', rest: raw };
}

function validUserinfo(s: string): boolean {
  return /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(s);
}

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) throw new URLError("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) throw new URLError(`invalid port ${goQuote(colonPort)} after host`);
    const zone = host.slice(0, i).indexOf('%25');
    let unescaped: string;
    if (zone >= 0) unescaped = unescape(host.slice(0, zone), 'host') + unescape(host.slice(zone, i), 'zone') + unescape(host.slice(i), 'host');
    else unescaped = unescape(host, 'host');
    // only a valid IPv6 address may be enclosed in brackets (RFC 3986; Go rejects anything else)
    const literal = unescaped.slice(1, unescaped.lastIndexOf(']'));
    const addr = parseAddr(literal);
    if (typeof addr === 'string') throw new URLError(`invalid host: ${addr}`);
    if (addr.is4) throw new URLError('invalid IP-literal');
    return unescaped;
  }
  const i = host.lastIndexOf(':');
  if (i !== -1) {
    const colonPort = host.slice(i);
    if (!validOptionalPort(colonPort)) throw new URLError(`invalid port ${goQuote(colonPort)} after host`);
  }
  return unescape(host, 'host');
}

function parseAuthority(authority: string): { user?: GoURL['user']; host: string } {
  const i = authority.lastIndexOf('@');
  const host = parseHost(i < 0 ? authority : authority.slice(i + 1));
  if (i < 0) return { host };
  const userinfo = authority.slice(0, i);
  if (!validUserinfo(userinfo)) throw new URLError('net/url: invalid userinfo');
  const colon = userinfo.indexOf(':');
  if (colon < 0) return { user: { username: unescape(userinfo, 'userPassword') }, host };
  return {
    user: { username: unescape(userinfo.slice(0, colon), 'userPassword'), password: unescape(userinfo.slice(colon + 1), 'userPassword') },
    host,
  };
}

function parse(raw: string, viaRequest: boolean): GoURL {
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new URLError('net/url: invalid control character in URL');
  if (raw === '' && viaRequest) throw new URLError('empty url');
  const url: GoURL = {
    scheme: '',
    opaque: '',
    host: '',
    path: '',
    rawPath: '',
    omitHost: false,
    forceQuery: false,
    rawQuery: '',
    fragment: '',
    rawFragment: '',
  };
  if (raw === '*') {
    url.path = '*';
    return url;
  }
  const sch = getScheme(raw);
  url.scheme = sch.scheme.toLowerCase();
  let rest = sch.rest;
  if (rest.endsWith('?') && rest.split('?').length === 2) {
    url.forceQuery = true;
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      url.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (url.scheme !== '') {
      // rootless paths are opaque (RFC 3986)
      url.opaque = rest;
      return url;
    }
    if (viaRequest) throw new URLError('invalid URI for request');
    const segment = rest.split('/')[0]!;
    if (segment.includes(':')) throw new URLError('first path segment in URL cannot contain colon');
  }
  if ((url.scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    const a = parseAuthority(authority);
    if (a.user) url.user = a.user;
    url.host = a.host;
  } else if (url.scheme !== '' && rest.startsWith('/')) {
    url.omitHost = true;
  }
  url.path = unescape(rest, 'path');
  url.rawPath = escape(url.path, 'path') === rest ? '' : rest;
  return url;
}

const wrap = (raw: string, e: unknown): string => {
  if (e instanceof URLError) return `parse ${goQuote(raw)}: ${e.message}`;
  throw e;
};

/** url.ParseRequestURI: the URL, or Go's error message. */
export function parseRequestURI(raw: string): GoURL | string {
  try {
    return parse(raw, true);
  } catch (e) {
    return wrap(raw, e);
  }
}

/** url.Parse: the fragment is split off first. */
export function parseURL(raw: string): GoURL | string {
  const hash = raw.indexOf('#');
  const u = hash < 0 ? raw : raw.slice(0, hash);
  let url: GoURL;
  try {
    url = parse(u, false);
  } catch (e) {
    return wrap(u, e);
  }
  if (hash < 0) return url;
  const frag = raw.slice(hash + 1);
  if (frag === '') return url;
  try {
    url.fragment = unescape(frag, 'fragment');
    url.rawFragment = escape(url.fragment, 'fragment') === frag ? '' : frag;
  } catch (e) {
    return wrap(raw, e);
  }
  return url;
}

function splitHostPort(hostPort: string): { host: string; port: string } {
  let host = hostPort;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon !== -1 && validOptionalPort(host.slice(colon))) {
    port = host.slice(colon + 1);
    host = host.slice(0, colon);
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return { host, port };
}

export const hostname = (u: GoURL): string => splitHostPort(u.host).host;
export const port = (u: GoURL): string => splitHostPort(u.host).port;

export function escapedPath(u: GoURL): string {
  if (u.rawPath !== '' && validEncoded(u.rawPath, 'path')) {
    try {
      if (unescape(u.rawPath, 'path') === u.path) return u.rawPath;
    } catch {
      // fall through to escaping the decoded path
    }
  }
  if (u.path === '*') return '*';
  return escape(u.path, 'path');
}

/** url.ParseQuery, errors ignored as URL.Query() does: key → values in order. */
export function query(u: GoURL): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const part of u.rawQuery.split('&')) {
    if (part === '' || part.includes(';')) continue;
    const eq = part.indexOf('=');
    let key: string;
    let value: string;
    try {
      key = unescape(eq < 0 ? part : part.slice(0, eq), 'queryComponent');
      value = unescape(eq < 0 ? '' : part.slice(eq + 1), 'queryComponent');
    } catch {
      continue;
    }
    const list = m.get(key) ?? [];
    list.push(value);
    m.set(key, list);
  }
  return m;
}

/** Go's struct equality of url.URL: a Userinfo pointer is only equal to itself. */
export function urlEquals(a: GoURL, b: GoURL): boolean {
  if (a === b) return true;
  if (a.user || b.user) return false;
  return (
    a.scheme === b.scheme &&
    a.opaque === b.opaque &&
    a.host === b.host &&
    a.path === b.path &&
    a.rawPath === b.rawPath &&
    a.omitHost === b.omitHost &&
    a.forceQuery === b.forceQuery &&
    a.rawQuery === b.rawQuery &&
    a.fragment === b.fragment &&
    a.rawFragment === b.rawFragment
  );
}

/** URL.String(), for results. */
export function urlString(u: GoURL): string {
  let out = '';
  if (u.scheme) out += u.scheme + ':';
  if (u.opaque) out += u.opaque;
  else {
    if (u.scheme || u.host || u.user) {
      if (u.omitHost && u.host === '' && !u.user) {
        // no authority
      } else {
        if (u.host || u.path || u.user) out += '//';
        if (u.user) out += escape(u.user.username, 'userPassword') + (u.user.password !== undefined ? ':' + escape(u.user.password, 'userPassword') : '') + '@';
        if (u.host) out += escape(u.host, 'host');
      }
    }
    const p = escapedPath(u);
    if (p !== '' && p[0] !== '/' && u.host !== '') out += '/';
    out += p;
  }
  if (u.forceQuery || u.rawQuery !== '') out += '?' + u.rawQuery;
  if (u.fragment !== '') out += '#' + (u.rawFragment !== '' ? u.rawFragment : escape(u.fragment, 'fragment'));
  return out;
}

// --token-auth-file (k8s.io/apiserver/pkg/authentication/token/tokenfile): a CSV of token,user,uid[,"group1,group2"]
// read with Go's encoding/csv. kube's own texts for short records and its warnings for empty and duplicate
// tokens, each naming the line.
import { readFile } from 'node:fs/promises';
import type { UserInfo } from '../api/types.js';
import { parseGoCsv } from '../options/go-csv.js';
import { goPathErrorMessage } from '../options/go-fs-errors.js';
import type { AuthenticatorResponse, TokenAuthenticator } from './types.js';

export class TokenFileAuthenticator implements TokenAuthenticator {
  private readonly tokens: ReadonlyMap<string, UserInfo>;

  constructor(tokens: ReadonlyMap<string, UserInfo>) {
    this.tokens = new Map(tokens);
  }

  /** How many tokens are known, for the startup log. */
  get size(): number {
    return this.tokens.size;
  }

  authenticateToken(token: string): AuthenticatorResponse {
    const user = this.tokens.get(token);
    // Unknown tokens are "not mine"; the bearer authenticator turns that into "invalid bearer token".
    if (!user) return { kind: 'unrecognized' };
    return { kind: 'authenticated', user: { ...user, ...(user.groups ? { groups: [...user.groups] } : {}) } };
  }
}

export type TokenFileResult = { ok: true; authenticator: TokenFileAuthenticator; warnings: string[] } | { ok: false; error: string };

export function parseTokenFile(text: string, path: string): TokenFileResult {
  const csv = parseGoCsv(text);
  if (!csv.ok) return { ok: false, error: `token file '${path}': ${csv.error}` };
  const tokens = new Map<string, UserInfo>();
  const warnings: string[] = [];
  let recordNum = 0;
  for (const { fields, line } of csv.records) {
    if (fields.length < 3) {
      return { ok: false, error: `token file '${path}' must have at least 3 columns (token, user name, user uid), found ${fields.length} (line ${line})` };
    }
    recordNum++;
    const [token, username, uid, groups] = fields as [string, string, string, string | undefined];
    if (token === '') {
      warnings.push(`empty token has been found in token file '${path}', record number '${recordNum}' (line ${line})`);
      continue;
    }
    if (tokens.has(token)) warnings.push(`duplicate token has been found in token file '${path}', record number '${recordNum}' (line ${line})`);
    const user: UserInfo = { username };
    if (uid !== '') user.uid = uid;
    // strings.Split(record[3], ","): an empty fourth column is one empty group name, as in kube.
    if (groups !== undefined) user.groups = groups.split(',');
    tokens.set(token, user);
  }
  return { ok: true, authenticator: new TokenFileAuthenticator(tokens), warnings };
}

/** Reads and parses the file; a missing file reads as Go's "open <path>: no such file or directory". */
export async function loadTokenFile(path: string): Promise<TokenFileResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    return { ok: false, error: goPathErrorMessage(err, path) };
  }
  return parseTokenFile(text, path);
}

// The directory that holds the CA the apiserver reuses across restarts. kube writes its generated certificates the
// way client-go does (k8s.io/client-go/util/cert/io.go WriteCert, util/keyutil/key.go WriteKey): the directory 0755,
// certificates 0644, keys 0600. Here the CA also signs the admin's client certificate, so whoever can replace ca.crt
// and ca.key in that directory can mint system:masters credentials: a directory other users may write is refused.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { makeDirsSync } from '../server/make-dirs.js';

/** kube's mode for the directories it creates for certificates (client-go util/cert, util/keyutil). */
export const certDirMode = 0o755;

export type CertDirResult = { ok: true; dir: string } | { ok: false; error: string };

const octal = (mode: number): string => (mode & 0o7777).toString(8).padStart(4, '0');

/** Why a directory with `mode` must not hold a reused CA, or undefined when only its owner may write it. */
export function certDirModeProblem(dir: string, mode: number): string | undefined {
  const group = (mode & 0o020) !== 0;
  const others = (mode & 0o002) !== 0;
  if (!group && !others) return undefined;
  const who = group && others ? 'group and others' : group ? 'group' : 'others';
  return `certificate directory ${dir} is writable by ${who} (mode ${octal(mode)}), so another user could replace the CA it holds: remove their write permission (chmod go-w ${dir})`;
}

/**
 * Creates `dir` (and missing parents) 0755 when it does not exist, and refuses an existing one that group or others
 * may write, whether or not it holds a CA yet (a CA written there now would be reused, unprotected, on restart).
 * Blocking, as all of ensureServingBundle's file I/O is (certs/bundle.ts says why).
 */
export async function prepareCertDir(dir: string): Promise<CertDirResult> {
  const d = resolve(dir);
  let st;
  try {
    // mkdir's mode goes through the umask, as Go's os.MkdirAll does: under umask 000 the result is exactly 0755
    makeDirsSync(d, certDirMode);
    st = statSync(d);
  } catch (err) {
    return { ok: false, error: `unable to create certificate directory ${d}: ${(err as Error).message}` };
  }
  if (!st.isDirectory()) return { ok: false, error: `certificate directory ${d} is not a directory` };
  const problem = certDirModeProblem(d, st.mode);
  return problem === undefined ? { ok: true, dir: d } : { ok: false, error: problem };
}

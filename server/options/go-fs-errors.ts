// Go's *fs.PathError text ("open /x: no such file or directory") for files kube-apiserver reads at startup
// (token file, policy file, certificates), so a missing file reads the same as with the real binary.

const errnoText: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory',
  ENOTDIR: 'not a directory',
  ELOOP: 'too many levels of symbolic links',
};

/** `open <path>: <errno text>` (or `read <path>: is a directory`) for a Node fs error. */
export function goPathErrorMessage(err: unknown, path: string): string {
  const e = err as NodeJS.ErrnoException | undefined;
  const code = e?.code ?? '';
  const text = errnoText[code];
  if (!text) return e?.message ?? String(err);
  // Go opens a directory fine and fails on the first read.
  const op = code === 'EISDIR' ? 'read' : 'open';
  return `${op} ${path}: ${text}`;
}

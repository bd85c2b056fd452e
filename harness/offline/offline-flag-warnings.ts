// Which of kube-apiserver's flag warnings `kah admit` passes on. It parses the server's flags so that a command line
// pasted from a real server works, but it authenticates nobody: the requester is --user/--groups. kube's
// "AnonymousAuth is not allowed with the AlwaysAllow authorizer" (printed for the default flags, which say nothing
// about anonymous requests) would only be noise. (`kah validate` keeps it: its output is startup's, line for line.)
import { anonymousWithAlwaysAllowWarning } from '../../server/options/server-options.js';

export function offlineFlagWarnings(warnings: readonly string[]): string[] {
  return warnings.filter((w) => w !== anonymousWithAlwaysAllowWarning);
}

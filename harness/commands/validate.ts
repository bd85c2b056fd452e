// `kah validate`: the entry `harness/cli.ts` dispatches to. The implementation (harness/offline/validate.ts) loads
// the server's admission modules, so it is imported on use, as `kah serve` imports the server.
import type { OfflineIO } from '../offline/io.js';

export async function runValidateCommand(args: string[], io: OfflineIO): Promise<number> {
  const { runValidate } = await import('../offline/validate.js');
  return runValidate(args, io);
}

// `kah admit`: the entry `harness/cli.ts` dispatches to. The implementation (harness/offline/admit.ts) loads the
// server's admission chain, so it is imported on use, as `kah serve` imports the server.
import type { OfflineIO } from '../offline/io.js';

export async function runAdmitCommand(args: string[], io: OfflineIO): Promise<number> {
  const { runAdmit } = await import('../offline/admit.js');
  return runAdmit(args, io);
}

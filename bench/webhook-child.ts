// The benchmark's admission webhook in a process of its own (forked with an IPC channel), so that it does not
// share an event loop with the load generator: the apiserver's calls and the raw round-trip baseline both reach
// the same server the same way. `/validate` allows, `/mutate` answers a one-operation JSON patch.
import { allow, patch, startWebhookServer, type WebhookServer } from '../harness/webhook-server.js';

export type WebhookChildRequest = { id: number; type: 'lastReview' } | { id: number; type: 'reset' };
export type WebhookChildMessage =
  | { type: 'ready'; port: number; caBundle: string; caPem: string }
  | { type: 'answer'; id: number; review?: unknown };

/** The patch every /mutate call answers: one label added (the object created by the benchmark has labels). */
export const mutatePatch = [{ op: 'add' as const, path: '/metadata/labels/bench-mutated', value: 'true' }];

async function main(): Promise<void> {
  const send = (m: WebhookChildMessage): void => void process.send?.(m);
  const server: WebhookServer = await startWebhookServer({ handler: ({ path }) => (path === '/mutate' ? patch(mutatePatch) : allow()) });
  process.on('message', (m: WebhookChildRequest) => {
    if (m.type === 'lastReview') send({ type: 'answer', id: m.id, review: server.reviews.at(-1)?.review });
    else {
      // The server keeps every review it received; the benchmark drops them between runs.
      server.reset();
      send({ type: 'answer', id: m.id });
    }
  });
  // The parent going away (even by SIGKILL) closes the channel: nothing outlives the benchmark.
  process.on('disconnect', () => void server.close().finally(() => process.exit(0)));
  send({ type: 'ready', port: server.port, caBundle: server.caBundle, caPem: server.caPem });
}

if (process.send === undefined) {
  process.stderr.write('webhook-child: run me with child_process.fork (an IPC channel is required)\n');
  process.exit(2);
}
void main();

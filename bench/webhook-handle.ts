// The parent's side of bench/webhook-child.ts.
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { forkUntilReady, stopForked } from './forked-child.js';
import type { WebhookChildMessage, WebhookChildRequest } from './webhook-child.js';

type Answer = Extract<WebhookChildMessage, { type: 'answer' }>;

export class WebhookChild {
  private nextId = 1;
  private readonly waiting = new Map<number, (a: Answer) => void>();

  private constructor(
    private readonly child: ChildProcess,
    private readonly exited: Promise<void>,
    readonly port: number,
    readonly caBundle: string,
    readonly caPem: string,
  ) {
    child.on('message', (m: WebhookChildMessage) => {
      if (m.type !== 'answer') return;
      this.waiting.get(m.id)?.(m);
      this.waiting.delete(m.id);
    });
  }

  static async start(): Promise<WebhookChild> {
    const entry = fileURLToPath(new URL('./webhook-child.js', import.meta.url));
    const { child, ready, exited } = await forkUntilReady<Extract<WebhookChildMessage, { type: 'ready' }>>(entry, [], 'the webhook child');
    return new WebhookChild(child, exited, ready.port, ready.caBundle, ready.caPem);
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  url(path: string): string {
    return `https://127.0.0.1:${this.port}${path}`;
  }

  private ask(type: WebhookChildRequest['type']): Promise<Answer> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the webhook child did not answer ${type}`)), 10_000);
      this.waiting.set(id, (a) => {
        clearTimeout(timer);
        resolve(a);
      });
      this.child.send({ id, type } satisfies WebhookChildRequest);
    });
  }

  /** The AdmissionReview the apiserver sent last, as JSON. */
  async lastReview(): Promise<unknown> {
    return (await this.ask('lastReview')).review;
  }

  async reset(): Promise<void> {
    await this.ask('reset');
  }

  close(): Promise<void> {
    return stopForked(this.child, this.exited);
  }
}

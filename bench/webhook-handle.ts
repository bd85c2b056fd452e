// The parent's side of bench/webhook-child.ts.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { trackChild } from '../harness/cleanup.js';
import type { WebhookChildMessage, WebhookChildRequest } from './webhook-child.js';

type Answer = Extract<WebhookChildMessage, { type: 'answer' }>;

export class WebhookChild {
  private nextId = 1;
  private readonly waiting = new Map<number, (a: Answer) => void>();
  private readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
    readonly caBundle: string,
    readonly caPem: string,
  ) {
    child.on('message', (m: WebhookChildMessage) => {
      if (m.type !== 'answer') return;
      this.waiting.get(m.id)?.(m);
      this.waiting.delete(m.id);
    });
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
  }

  static async start(): Promise<WebhookChild> {
    const entry = fileURLToPath(new URL('./webhook-child.js', import.meta.url));
    const child = fork(entry, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    trackChild(child);
    const ready = await new Promise<Extract<WebhookChildMessage, { type: 'ready' }>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the webhook child did not start within 20 s')), 20_000);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the webhook child exited with ${code} before it was ready`));
      });
      child.on('message', (m: WebhookChildMessage) => {
        if (m.type !== 'ready') return;
        clearTimeout(timer);
        resolve(m);
      });
    });
    return new WebhookChild(child, ready.port, ready.caBundle, ready.caPem);
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

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.disconnect();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(timer);
  }
}

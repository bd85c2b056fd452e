// The parent's side of bench/create-floor-child.ts.
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CreateFloorConfig, CreateFloorMessage } from './create-floor-child.js';
import { forkUntilReady, stopForked } from './forked-child.js';

export class CreateFloorChild {
  private constructor(
    private readonly child: ChildProcess,
    private readonly exited: Promise<void>,
    readonly port: number,
  ) {}

  static async start(config: CreateFloorConfig): Promise<CreateFloorChild> {
    const entry = fileURLToPath(new URL('./create-floor-child.js', import.meta.url));
    const { child, ready, exited } = await forkUntilReady<Extract<CreateFloorMessage, { type: 'ready' }>>(entry, [JSON.stringify(config)], 'the create floor');
    return new CreateFloorChild(child, exited, ready.port);
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get origin(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  close(): Promise<void> {
    return stopForked(this.child, this.exited);
  }
}

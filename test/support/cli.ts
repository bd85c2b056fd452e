// Running `kah` commands in-process (runCli and the command functions take their streams) with the output kept.
import { PassThrough } from 'node:stream';
import type { CliIO } from '../../harness/cli.js';

/** Streams for a CLI run and what was written to them so far. */
export type CapturedCliIO = CliIO & { out(): string; err(): string };

export function captureCliIO(): CapturedCliIO {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  return { stdout, stderr, out: () => out, err: () => err };
}

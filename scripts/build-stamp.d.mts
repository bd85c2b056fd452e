// Types of build-stamp.mjs, for the TypeScript test that checks it.
export interface StampMetafile {
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
}
export function upToDate(root: string, stampFile: string): Promise<boolean>;
export function writeStamp(root: string, stampFile: string, metafile: StampMetafile, extraInputs: readonly string[]): Promise<void>;

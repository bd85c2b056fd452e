// Where the offline commands write: the CLI's stdout and stderr, or a test's capture.
export interface OfflineIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

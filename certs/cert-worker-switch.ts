// KAH_CERT_WORKER, read by the entry (server/main-loader.ts, which starts the worker early) and by
// certs/bundle-off-thread.ts (which uses it): the certificate worker is on unless this is 0 or false.

/** Whether a server start may generate a fresh --cert-dir's certificates on the worker thread. */
export function certWorkerEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env['KAH_CERT_WORKER']?.trim().toLowerCase();
  return value !== '0' && value !== 'false';
}

// Free TCP ports from the OS, so parallel suites never fight over a fixed port.
import { createServer } from 'node:net';

/** A port on 127.0.0.1 that was free a moment ago: listen on port 0, read the port the OS picked, close. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error(`freePort: unexpected listen address ${String(address)}`));
        return;
      }
      const { port } = address;
      server.close((err) => (err ? reject(err) : resolve(port)));
    });
  });
}

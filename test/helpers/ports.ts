// Loopback ports for tests: one that was free a moment ago, for a program that
// must bind it itself, or as an address where nothing listens.
import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((res, rej) => {
    server.once('error', rej);
    server.listen(0, '127.0.0.1', res);
  });
  const address = server.address();
  await new Promise<void>((res) => server.close(() => res()));
  if (address === null || typeof address === 'string') throw new Error('no port from listen(0)');
  return address.port;
}

// Binding and graceful closing of node:http servers, shared by the main and
// health servers.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HostPort } from '../config/value-types.js';

/** An address that cannot be bound, said in words (the errno code kept as `code`). */
export class ListenError extends Error {
  readonly code: string | undefined;
  constructor(at: HostPort, e: NodeJS.ErrnoException) {
    super(listenMessage(at, e));
    this.code = e.code;
  }
}

function listenMessage(at: HostPort, e: NodeJS.ErrnoException): string {
  switch (e.code) {
    case 'EADDRINUSE':
      return `port ${at.port} is already in use (${at.host}:${at.port}, another server listens there)`;
    case 'EACCES':
    case 'EPERM':
      return `no permission to listen on ${at.host}:${at.port}${at.port < 1024 ? ' (ports below 1024 need root)' : ''}`;
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${at.host}:${at.port}: ${at.host} is not an address of this machine`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot listen on ${at.host}:${at.port}: no such host ${at.host}`;
    default:
      return `cannot listen on ${at.host}:${at.port}: ${e.message}`;
  }
}

/** Listens on host:port; rejects with a ListenError saying why when the address cannot be bound. */
export function listen(server: Server, at: HostPort): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException): void => {
      reject(new ListenError(at, e));
    };
    server.once('error', onError);
    server.listen(at.port, at.host, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

/**
 * Stops accepting, closes idle keep-alive connections, lets in-flight requests
 * finish for up to `graceMs`, then calls `onDeadline` (to abort their work) and
 * closes every remaining connection.
 */
export async function closeGracefully(server: Server, graceMs: number, onDeadline: () => void): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, graceMs);
  });
  const first = await Promise.race([closed.then(() => 'closed' as const), deadline.then(() => 'deadline' as const)]);
  clearTimeout(timer);
  if (first === 'deadline') {
    onDeadline();
    server.closeAllConnections();
    await closed;
  }
}

export function urlOf(a: AddressInfo): string {
  const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
  return `http://${host}:${a.port}`;
}

/**
 * A TCP proxy that can hold back the server's answers on the connections open at that moment:
 * queries sent on them still reach the server but nothing comes back, so a test can then drop
 * every connection while those queries are certainly in flight, which is what a database
 * restart mid-query looks like to its clients. Connections made later are relayed as usual. Unlike
 * tcpProxy (test/helpers.ts) it keeps listening when connections are dropped, and counts the
 * connections it accepted, so a test can see the pool open new ones.
 */
import { type Server, type Socket, createServer, connect as tcpConnect } from 'node:net';

export interface HoldingProxy {
  /** The target URL with its host and port replaced by the proxy's. */
  url: string;
  /** Connections accepted since the proxy started. */
  connections(): number;
  /** Connections that sent bytes on to the server since hold() (each a query left without its answer). */
  heldQueries(): number;
  /** From now on, the server's bytes on the connections open now are dropped instead of relayed. */
  hold(): void;
  /** Destroys every open connection; the proxy keeps listening. */
  dropAll(): void;
  close(): Promise<void>;
}

export async function holdingProxy(target: URL, defaultPort: number): Promise<HoldingProxy> {
  const open = new Set<Socket>();
  const sentWhileHeld = new Set<Socket>();
  const held = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((client) => {
    accepted++;
    const upstream = tcpConnect(Number(target.port || defaultPort), target.hostname);
    open.add(client);
    open.add(upstream);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    for (const socket of [client, upstream]) {
      socket.on('error', end);
      socket.on('close', end);
    }
    client.on('data', (chunk: Buffer) => {
      if (held.has(client)) sentWhileHeld.add(client);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!held.has(client)) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const url = new URL(target.toString());
  url.hostname = '127.0.0.1';
  url.port = String(address.port);
  const dropAll = (): void => {
    for (const socket of open) socket.destroy();
    open.clear();
  };
  return {
    url: url.toString(),
    connections: () => accepted,
    heldQueries: () => sentWhileHeld.size,
    hold: () => {
      sentWhileHeld.clear();
      for (const socket of open) held.add(socket);
    },
    dropAll,
    close: async () => {
      dropAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

import net from "node:net";

/**
 * A TCP proxy of the tests' own between a client and a real server
 * (PostgreSQL, Redis), to make that server hang or vanish the way a
 * network does: `hang()` keeps every connection open but forwards nothing
 * more in either direction (a server that stopped answering, no reset);
 * `resume()` forwards again, including what was held; `cut()` resets every
 * connection at once.
 */
export interface TcpProxy {
  /** `host:port` of the proxy's listening end, on 127.0.0.1. */
  readonly port: number;
  /** Stops forwarding (connections stay open; new ones are accepted and held too). */
  hang(): void;
  /** Forwards again, delivering what was held. */
  resume(): void;
  /** Destroys every open connection (both ends see a reset). */
  cut(): void;
  /** Cuts everything and stops listening. */
  close(): Promise<void>;
}

/** Starts a {@link TcpProxy} to `targetHost:targetPort` on a free loopback port. */
export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let hanging = false;
  interface Pair {
    client: net.Socket;
    upstream: net.Socket;
    /** Bytes held while hanging, per direction, in order. */
    held: Array<{ to: net.Socket; chunk: Buffer }>;
  }
  const pairs = new Set<Pair>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, targetHost);
    const pair: Pair = { client, upstream, held: [] };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    const forward = (from: net.Socket, to: net.Socket) =>
      from.on("data", (chunk: Buffer) => {
        if (hanging) pair.held.push({ to, chunk });
        else to.write(chunk);
      });
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  const cut = () => {
    for (const { client, upstream } of pairs) {
      client.destroy();
      upstream.destroy();
    }
    pairs.clear();
  };
  return {
    port,
    hang() {
      hanging = true;
    },
    resume() {
      hanging = false;
      for (const pair of pairs) {
        for (const { to, chunk } of pair.held) to.write(chunk);
        pair.held = [];
      }
    },
    cut,
    async close() {
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

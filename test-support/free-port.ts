import net, { type AddressInfo } from "node:net";

/**
 * A loopback port nothing listens on right now (the system picks it), for a
 * test that must name a port up front, e.g. `--callback-port`.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

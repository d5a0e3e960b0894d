import http from "node:http";
import type { AddressInfo } from "node:net";
import { readBodyText } from "../../../test-support/read-body.js";

/** A test HTTP server on 127.0.0.1 with a random port. */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Ends the responses still open (hung on purpose), the connections, then the server. */
  close(): Promise<void>;
}

/**
 * Starts an HTTP server on a loopback port (port 0) that reads each request
 * body whole and hands it to `handle`, the test double's protocol. A
 * response `handle` leaves open stays open — a hung upstream — until the
 * client goes away or {@link LoopbackServer.close}.
 */
export async function startLoopbackServer(
  handle: (request: http.IncomingMessage, body: string, response: http.ServerResponse) => void,
): Promise<LoopbackServer> {
  const open = new Set<http.ServerResponse>();
  const server = http.createServer((request, response) => {
    open.add(response);
    response.once("close", () => open.delete(response));
    // A request that fails before its end is not answered: its client went away.
    readBodyText(request).then(
      (body) => handle(request, body, response),
      () => undefined,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        for (const response of open) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

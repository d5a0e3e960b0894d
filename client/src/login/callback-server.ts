import http from "node:http";
import type { AddressInfo } from "node:net";
import { BrowserLoginError } from "./login-errors.js";

/** Path of the loopback callback. */
export const CALLBACK_PATH = "/callback";

const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  // The callback URL carries the encrypted key: no page it shows may pass it on.
  "referrer-policy": "no-referrer",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'",
  "x-content-type-options": "nosniff",
  connection: "close",
};

/**
 * Reads a callback port as typed on a command line (`--callback-port`):
 * the port number for a whole number from 1 to 65535, undefined otherwise.
 *
 * @example
 * parseCallbackPort("8123"); // 8123
 * parseCallbackPort("0"); // undefined
 */
export function parseCallbackPort(text: string): number | undefined {
  const port = Number(text);
  return /^\d+$/u.test(text.trim()) && port >= 1 && port <= 65_535 ? port : undefined;
}

/** The one request the callback server takes, and how to answer it. */
export interface CallbackRequest {
  query: URLSearchParams;
  /** Sends the page to the browser; resolves once it is written. */
  respond(status: number, html: string): Promise<void>;
}

/** A loopback HTTP server waiting for one callback. */
export interface CallbackServer {
  /** `http://127.0.0.1:<port>/callback`. */
  redirectUri: string;
  /** The first GET of the callback path; later ones get 410. */
  callback: Promise<CallbackRequest>;
  close(): Promise<void>;
}

/**
 * Starts the callback server on 127.0.0.1, on `port` or (0, the default) a
 * port the system picks: loopback only, so nothing off this computer can
 * reach it. It takes one GET of {@link CALLBACK_PATH}; other paths (a
 * browser's /favicon.ico) get 404 and do not count.
 *
 * @throws {BrowserLoginError} `port_unavailable` when the port is taken or not allowed
 */
export async function startCallbackServer(port = 0): Promise<CallbackServer> {
  let deliver: (request: CallbackRequest) => void = () => undefined;
  const callback = new Promise<CallbackRequest>((resolve) => {
    deliver = resolve;
  });
  let taken = false;
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== CALLBACK_PATH) {
      response.writeHead(404, { ...PAGE_HEADERS, "content-type": "text/plain" }).end("Not found");
      return;
    }
    if (request.method !== "GET") {
      response.writeHead(405, { ...PAGE_HEADERS, allow: "GET" }).end();
      return;
    }
    if (taken) {
      response
        .writeHead(410, { ...PAGE_HEADERS, "content-type": "text/plain" })
        .end("This login has already finished.");
      return;
    }
    taken = true;
    deliver({
      query: url.searchParams,
      respond: (status, html) =>
        new Promise((resolve) => {
          response.writeHead(status, PAGE_HEADERS).end(html, () => resolve());
        }),
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      const reason = error.code === "EADDRINUSE" ? "it is in use" : (error.code ?? error.message);
      reject(
        new BrowserLoginError(
          "port_unavailable",
          `cannot take port ${port} on 127.0.0.1 for the browser's answer (${reason}); choose another port, or none to let the system pick one`,
          { cause: error },
        ),
      );
    });
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    redirectUri: `http://127.0.0.1:${address.port}${CALLBACK_PATH}`,
    callback,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { BODY_CLIENTS, postWith } from "../../test-support/body-clients.js";
import { rawExchange } from "../../test-support/raw-http.js";
import { discardUnreadBodies } from "./unread-body.js";

const LIMIT = 64 * 1024;
const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/**
 * A bare server that refuses a declared Content-Length over {@link LIMIT}
 * with a 413 before reading the body (as body parsers do), and else reads
 * the body and answers its length.
 */
async function start(installed: boolean): Promise<string> {
  const server = http.createServer((request, response) => {
    if (Number(request.headers["content-length"] ?? 0) > LIMIT) {
      response.writeHead(413, { "content-type": "text/plain", connection: "close" });
      response.end("too large");
      return;
    }
    let length = 0;
    request.on("data", (chunk: Buffer) => {
      length += chunk.length;
    });
    request.on("end", () => response.end(`read ${length}`));
  });
  if (installed) discardUnreadBodies(server, { maxBytes: 8 * LIMIT, maxMs: 5_000, idleMs: 1_000 });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("discardUnreadBodies", () => {
  it("an answer before the body reaches every client that writes the whole body first", async () => {
    const origin = await start(true);
    for (const client of BODY_CLIENTS) {
      const answer = await postWith(client, `${origin}/`, {}, Buffer.alloc(4 * LIMIT, "x"));
      expect(answer.status, client).toBe(413);
      expect(answer.text, client).toBe("too large");
    }
  });

  it("without it, a client that writes first and reads after gets a reset connection", async () => {
    const origin = await start(false);
    await expect(
      postWith("write-then-read", `${origin}/`, {}, Buffer.alloc(64 * LIMIT, "x")),
    ).rejects.toThrow(/EPIPE|ECONNRESET/u);
  });

  it("Expect: 100-continue: a refusal before the body, 100 Continue once the body is read", async () => {
    const origin = await start(true);
    const refused = await rawExchange(
      origin,
      `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${LIMIT + 1}\r\nExpect: 100-continue\r\n\r\n`,
      "",
      5_000,
    );
    expect(refused.received).toMatch(/^HTTP\/1\.1 413 /u);
    expect(refused.timedOut).toBe(false);
    const accepted = await rawExchange(
      origin,
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n",
      "",
      1_000,
    );
    expect(accepted.received).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\n$/u);
  });
});

import http from "node:http";
import net from "node:net";
import { LOGIN_PATH } from "@persona-reply/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BODY_CLIENTS, postWith } from "../../test-support/body-clients.js";
import { rawExchange } from "../../test-support/raw-http.js";
import { type ApiFixture, startApi } from "../../test-support/spawn-service.js";
import { type ErrorFormat, expectErrorFormat } from "./support/error-format.js";
import { PageClient } from "./support/page-client.js";

// A body over the limit, from the clients that write a whole body before
// they read (Node's fetch, node:http, Python's urllib and requests): each
// must read the 413 in its route family's format, not a reset connection.
// Against the service as a process, where the reset showed (in-process, the
// client and the server shared one event loop and the race never did).

/** The probe's body: 5 MB, over the default 1 MiB limit (and the pages' 32 KiB). */
const BODY = Buffer.alloc(5_000_000, "x");

const FORM = "application/x-www-form-urlencoded";
const JSON_TYPE = "application/json";

interface Route {
  path: string;
  mediaType: string;
  format: ErrorFormat;
  /** Headers of a caller that passes every check before the body is read. */
  headers: () => Record<string, string>;
}

let api: ApiFixture;
/** The cookies and CSRF token of a browser that loaded a page (the playground's fetch endpoints check them first). */
let browser: Record<string, string>;
let routes: Route[];

beforeAll(async () => {
  api = await startApi();
  const page = new PageClient(api.baseUrl);
  const { csrf } = await page.page("/sign-in");
  browser = {
    cookie: [...page.cookies].map(([name, value]) => `${name}=${value}`).join("; "),
    "x-csrf-token": csrf,
  };
  const keyed = () => ({ "x-api-key": api.apiKey });
  routes = [
    { path: "/api/v1/generate", mediaType: JSON_TYPE, format: "native", headers: keyed },
    { path: "/api/v1/personify", mediaType: JSON_TYPE, format: "native", headers: keyed },
    { path: "/api/v1/completions", mediaType: JSON_TYPE, format: "completions", headers: keyed },
    ...["/playground/api/generate", "/playground/api/personify"].flatMap((path) => [
      { path, mediaType: JSON_TYPE, format: "json" as const, headers: () => browser },
      { path, mediaType: FORM, format: "json" as const, headers: () => ({}) },
    ]),
    ...["/sign-in", "/sign-in/verify", "/sign-out", "/keys", LOGIN_PATH].map((path) => ({
      path,
      mediaType: FORM,
      format: "html" as const,
      headers: () => ({}),
    })),
  ];
});
afterAll(() => api?.stop());

describe("a body over the limit, written whole before the answer is read", () => {
  for (const client of BODY_CLIENTS) {
    it(`${client}: 413 on every route family, in its format`, async () => {
      for (const route of routes) {
        const context = `${client} POST ${route.path} (${route.mediaType})`;
        const answer = await postWith(
          client,
          `${api.baseUrl}${route.path}`,
          { "content-type": route.mediaType, ...route.headers() },
          BODY,
        ).catch((error: unknown) => {
          throw new Error(`${context}: ${String((error as Error).cause ?? error)}`);
        });
        expect(answer.status, `${context}: ${answer.text.slice(0, 200)}`).toBe(413);
        expectErrorFormat(
          route.format,
          { ...answer, contentType: answer.headers["content-type"] ?? "" },
          context,
        );
      }
    });
  }

  it("past 8 times the limit the connection is closed: the rest of a body is not read forever", async () => {
    const { port } = new URL(api.baseUrl);
    const written = await new Promise<number>((resolve) => {
      const socket = net.connect(Number(port), "127.0.0.1");
      let total = 0;
      const chunk = Buffer.alloc(256 * 1024, "x");
      const pump = () => {
        while (total < 256 * 1024 * 1024) {
          total += chunk.length;
          if (!socket.write(chunk)) {
            socket.once("drain", pump);
            return;
          }
        }
      };
      socket.on("error", () => resolve(total));
      socket.on("close", () => resolve(total));
      socket.once("connect", () => {
        socket.write(
          `POST /api/v1/generate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${JSON_TYPE}\r\n` +
            `x-api-key: ${api.apiKey}\r\nContent-Length: ${256 * 1024 * 1024}\r\n\r\n`,
        );
        pump();
      });
    });
    // 8 MiB read, and what the two sockets' buffers held when the connection closed.
    expect(written).toBeGreaterThan(8 * 1024 * 1024);
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });
});

describe("Expect: 100-continue (curl's way for large bodies)", () => {
  it("a Content-Length over the limit gets the 413 before the body is sent, and no 100 Continue", async () => {
    for (const route of routes) {
      const headers = { "content-type": route.mediaType, ...route.headers() };
      const exchange = await rawExchange(
        api.baseUrl,
        `POST ${route.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
          Object.entries(headers)
            .map(([name, value]) => `${name}: ${value}\r\n`)
            .join("") +
          `Content-Length: ${BODY.length}\r\nExpect: 100-continue\r\n\r\n`,
        "",
        5_000,
      );
      const context = `POST ${route.path} (${route.mediaType}): ${exchange.received.slice(0, 200)}`;
      expect(exchange.received, context).toMatch(/^HTTP\/1\.1 413 /u);
      // The client never sent its body: the connection closes after the answer, at once.
      expect(exchange.received, context).toMatch(/\r\nConnection: close\r\n/iu);
      expect(exchange.timedOut, context).toBe(false);
      expect(exchange.elapsedMs, context).toBeLessThan(1_000);
    }
  });

  it("a body within the limit gets 100 Continue, then is read and served", async () => {
    const body = JSON.stringify({
      personaId: api.personaId,
      messages: [{ role: "user", content: "Hello!" }],
    });
    const answer = await new Promise<{ continued: boolean; status: number; text: string }>(
      (resolve, reject) => {
        let continued = false;
        const request = http.request(`${api.baseUrl}/api/v1/generate`, {
          method: "POST",
          agent: false,
          headers: {
            "content-type": JSON_TYPE,
            "x-api-key": api.apiKey,
            "content-length": Buffer.byteLength(body),
            expect: "100-continue",
          },
        });
        request.on("continue", () => {
          continued = true;
          request.end(body);
        });
        request.on("response", (response) => {
          let text = "";
          response.on("data", (chunk: Buffer) => {
            text += chunk.toString("utf8");
          });
          response.on("end", () => resolve({ continued, status: response.statusCode ?? 0, text }));
        });
        request.on("error", reject);
        request.flushHeaders();
      },
    );
    expect(answer.continued).toBe(true);
    expect(answer.status, answer.text).toBe(200);
  });
});

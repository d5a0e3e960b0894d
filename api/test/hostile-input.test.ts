import zlib from "node:zlib";
import { LOGIN_PATH } from "@persona-reply/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawExchange } from "../../test-support/raw-http.js";
import { rawRequest } from "../../test-support/raw-request.js";
import { type ErrorFormat, expectErrorFormat } from "./support/error-format.js";
import { startTestService, type TestService } from "./support/test-service.js";

// Faults and hostile input, bodies that do not decompress included: what a client can put in the headers of a request is answered
// 4xx in the format of the route family, never 500.

const LIMIT = 64 * 1024;
let service: TestService;
beforeAll(async () => {
  service = await startTestService({ PERSONA_BODY_LIMIT_BYTES: String(LIMIT) });
});
afterAll(() => service.stop());

const FORM = "application/x-www-form-urlencoded";
const JSON_TYPE = "application/json";

/** A request that lies in its headers, and the status every route family gives it. */
interface HostileCase {
  name: string;
  /** Headers beside Content-Type's media type, which each family sets itself. */
  headers: (mediaType: string) => Record<string, string>;
  /** The body, from the well-formed body of the family. */
  body: (wellFormed: string) => string | Buffer;
  status: number;
}

const HOSTILE_CASES: HostileCase[] = [
  {
    name: "charset=latin1",
    headers: (mediaType) => ({ "content-type": `${mediaType}; charset=latin1` }),
    body: (wellFormed) => wellFormed,
    status: 415,
  },
  {
    name: "charset=utf-99 (no such charset)",
    headers: (mediaType) => ({ "content-type": `${mediaType}; charset=utf-99` }),
    body: (wellFormed) => wellFormed,
    status: 415,
  },
  {
    name: "Content-Encoding: xyz",
    headers: (mediaType) => ({ "content-type": mediaType, "content-encoding": "xyz" }),
    body: (wellFormed) => wellFormed,
    status: 415,
  },
  ...(["gzip", "deflate", "br"] as const).map((encoding) => ({
    name: `Content-Encoding: ${encoding} on a body that is not ${encoding}`,
    headers: (mediaType: string) => ({ "content-type": mediaType, "content-encoding": encoding }),
    body: (wellFormed: string) => wellFormed,
    status: 400,
  })),
  {
    name: "Content-Encoding: gzip on a gzip body cut short",
    headers: (mediaType) => ({ "content-type": mediaType, "content-encoding": "gzip" }),
    body: (wellFormed) => zlib.gzipSync(wellFormed).subarray(0, 12),
    status: 400,
  },
  {
    name: "a gzip body that inflates past the limit",
    headers: (mediaType) => ({ "content-type": mediaType, "content-encoding": "gzip" }),
    body: (wellFormed) => zlib.gzipSync(wellFormed + " ".repeat(LIMIT * 4)),
    status: 413,
  },
];

/** A form of 1001 fields (body-parser's default parameter limit is 1000). */
const MANY_FIELDS = Array.from({ length: 1001 }, (_, index) => `f${index}=1`).join("&");

interface Route {
  path: string;
  mediaType: string;
  wellFormed: string;
  format: ErrorFormat;
  key?: boolean;
}

const body = JSON.stringify({ personaId: "00000000-0000-4000-8000-000000000000", raw: "hi" });
const ROUTES: Route[] = [
  { path: "/api/v1/generate", mediaType: JSON_TYPE, wellFormed: body, format: "native", key: true },
  {
    path: "/api/v1/personify",
    mediaType: JSON_TYPE,
    wellFormed: body,
    format: "native",
    key: true,
  },
  {
    path: "/api/v1/completions",
    mediaType: JSON_TYPE,
    wellFormed: JSON.stringify({ model: "00000000-0000-4000-8000-000000000000", prompt: "hi" }),
    format: "completions",
    key: true,
  },
  { path: "/playground/api/generate", mediaType: FORM, wellFormed: "a=1", format: "json" },
  { path: "/playground/api/personify", mediaType: FORM, wellFormed: "a=1", format: "json" },
  ...["/sign-in", "/sign-in/verify", "/sign-out", "/keys", LOGIN_PATH].map((path) => ({
    path,
    mediaType: FORM,
    wellFormed: "email=someone%40example.com&state=x",
    format: "html" as const,
  })),
];

function send(route: Route, headers: Record<string, string | string[]>, payload: string | Buffer) {
  return rawRequest(service.url, route.path, {
    method: "POST",
    headers: { ...(route.key === true ? { "x-api-key": service.key } : {}), ...headers },
    raw: payload,
  });
}

describe("one mapping of request-parsing errors, on every route family", () => {
  for (const hostile of HOSTILE_CASES) {
    it(`${hostile.name} → ${hostile.status}`, async () => {
      for (const route of ROUTES) {
        const answer = await send(
          route,
          hostile.headers(route.mediaType),
          hostile.body(route.wellFormed),
        );
        const context = `${route.path} (${route.mediaType}): ${answer.status} ${answer.text.slice(0, 160)}`;
        expect(answer.status, context).toBe(hostile.status);
        expectErrorFormat(route.format, { ...answer, contentType: answer.type }, context);
      }
    });
  }

  it("a form of more than 1000 fields → 413 on every page and playground route", async () => {
    for (const route of ROUTES.filter((candidate) => candidate.mediaType === FORM)) {
      const answer = await send(route, { "content-type": FORM }, MANY_FIELDS);
      const context = `${route.path}: ${answer.status} ${answer.text.slice(0, 160)}`;
      expect(answer.status, context).toBe(413);
      expectErrorFormat(route.format, { ...answer, contentType: answer.type }, context);
    }
  });

  it("a gzip body that decompresses is read as the JSON it holds", async () => {
    const answer = await rawRequest(service.url, "/api/v1/generate", {
      method: "POST",
      headers: {
        "content-type": JSON_TYPE,
        "content-encoding": "gzip",
        "x-api-key": service.key,
      },
      raw: zlib.gzipSync(
        JSON.stringify({
          personaId: service.persona.id,
          messages: [{ role: "user", content: "Hello!" }],
        }),
      ),
    });
    expect(answer.status, answer.text).toBe(200);
  });
});

describe("413 before the body is read", () => {
  // Declares 5 MB, sends 5 bytes, and waits: the answer must not wait for the rest.
  const declaredOnly = (route: Route) =>
    rawExchange(
      service.url,
      `POST ${route.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${route.mediaType}\r\n` +
        `${route.key === true ? `x-api-key: ${service.key}\r\n` : ""}` +
        "Content-Length: 5000000\r\n\r\n",
      "12345",
      5_000,
    );

  it("a Content-Length over the limit is refused at once, in the family's format, and the connection closed", async () => {
    const exchanges = await Promise.all(ROUTES.map(declaredOnly));
    for (const [index, exchange] of exchanges.entries()) {
      const route = ROUTES[index] as Route;
      const context = `${route.path} (${route.mediaType}): ${exchange.received.slice(0, 200)}`;
      expect(exchange.timedOut, context).toBe(false);
      expect(exchange.received, context).toMatch(/^HTTP\/1\.1 413 /u);
      expect(exchange.received, context).toMatch(/\r\nConnection: close\r\n/iu);
      expect(exchange.answeredMs, context).toBeLessThan(1_000);
      // Closed once the client has sent nothing of the rest for a second (server.ts unreadBodyLimits).
      expect(exchange.elapsedMs, context).toBeLessThan(3_000);
    }
  });

  it("a chunked body that grows past the limit is refused once it does, without waiting for its end", async () => {
    const route = ROUTES[0] as Route;
    const chunk = "x".repeat(16 * 1024);
    const chunks = Array.from({ length: 8 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    const exchange = await rawExchange(
      service.url,
      `POST ${route.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${JSON_TYPE}\r\n` +
        `x-api-key: ${service.key}\r\nTransfer-Encoding: chunked\r\n\r\n`,
      chunks.join(""),
      5_000,
    );
    expect(exchange.timedOut, exchange.received).toBe(false);
    expect(exchange.received).toMatch(/^HTTP\/1\.1 413 /u);
    expect(exchange.received).toMatch(/\r\nContent-Type: text\/plain/iu);
  });

  it("a body within the limit is still read and served", async () => {
    const response = await service.post("/api/v1/generate", {
      personaId: service.persona.id,
      messages: [
        { role: "user", content: "x".repeat(30_000) },
        { role: "user", content: "hi" },
      ],
    });
    expect(response.status).toBe(200);
  });
});

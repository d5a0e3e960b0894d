import { randomBytes } from "node:crypto";
import http from "node:http";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningExampleServer } from "../server/server.js";
import { type StandIn, startExample, startStandIn } from "./support/example-fixture.js";

// A body the example server cannot read is the client's fault — a
// 400 `validation` — and the service is never called for it (it used to be a
// 502 `provider` error blaming the service).

let standIn: StandIn;
let example: RunningExampleServer;
beforeAll(async () => {
  standIn = await startStandIn((_request, response) => {
    response.writeHead(500, { "content-type": "application/json" }).end("{}");
  });
  example = await startExample({
    // Any well-formed key: the stand-in never checks it.
    SERVICE_API_KEY: `prk_${randomBytes(19).toString("hex")}`,
    SERVICE_PERSONA_ID: "00000000-0000-4000-8000-000000000000",
    SERVICE_BASE_URL: standIn.url,
  });
});
afterAll(async () => {
  await example?.stop();
  await standIn?.close();
});

const BODIES = {
  "/api/quickstart": { prompt: "Hi" },
  "/api/chat": { messages: [{ role: "user", content: "Hi" }] },
  "/api/personify": { raw: "Hi" },
} as const;

const CASES: Array<[string, Record<string, string>, (json: string) => string | Buffer]> = [
  ["charset=latin1", { "content-type": "application/json; charset=latin1" }, (json) => json],
  ["charset=utf-99", { "content-type": "application/json; charset=utf-99" }, (json) => json],
  [
    "Content-Encoding: xyz",
    { "content-type": "application/json", "content-encoding": "xyz" },
    (json) => json,
  ],
  [
    "gzip that is not gzip",
    { "content-type": "application/json", "content-encoding": "gzip" },
    (json) => json,
  ],
  [
    "br that is not br",
    { "content-type": "application/json", "content-encoding": "br" },
    (json) => json,
  ],
  [
    "deflate cut short",
    { "content-type": "application/json", "content-encoding": "deflate" },
    (json) => zlib.deflateSync(json).subarray(0, 6),
  ],
];

function send(path: string, headers: Record<string, string>, body: string | Buffer) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const request = http.request(
      `${example.url}${path}`,
      { method: "POST", headers, agent: false },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          text += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

describe("the example server refuses bodies it cannot read with 400 validation", () => {
  it.each(CASES)("%s", async (_name, headers, encode) => {
    for (const [path, body] of Object.entries(BODIES)) {
      const answer = await send(path, headers, encode(JSON.stringify(body)));
      expect(answer.status, `${path}: ${answer.text}`).toBe(400);
      const parsed = JSON.parse(answer.text) as { error: { type: string; message: string } };
      expect(parsed.error.type, path).toBe("validation");
      expect(parsed.error.message, path).not.toMatch(/service/u);
    }
    expect(standIn.requests).toEqual([]);
  });
});

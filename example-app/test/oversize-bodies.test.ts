import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BODY_CLIENTS, postWith } from "../../test-support/body-clients.js";
import { isolatedEnvironment } from "../../test-support/isolated-process.js";
import { rawExchange } from "../../test-support/raw-http.js";
import { type StandIn, startStandIn } from "./support/example-fixture.js";

// A body over the example server's 2 MB limit, from the clients that write a
// whole body before they read: each reads the 400 `validation` error, not a
// reset connection. The built server as a process (in one process with the
// client, the race hides).

const EXAMPLE_MAIN = fileURLToPath(new URL("../dist/server/main.js", import.meta.url));
const ROUTES = ["/api/quickstart", "/api/chat", "/api/personify"];
const BODY = Buffer.alloc(5_000_000, "x");

let standIn: StandIn;
let child: ChildProcess;
let url: string;
beforeAll(async () => {
  standIn = await startStandIn((_request, response) => {
    response.writeHead(500, { "content-type": "application/json" }).end("{}");
  });
  child = spawn(process.execPath, [EXAMPLE_MAIN], {
    env: isolatedEnvironment({
      EXAMPLE_PORT: "0",
      // Any well-formed key: a refused body never reaches the stand-in.
      SERVICE_API_KEY: `prk_${randomBytes(19).toString("hex")}`,
      SERVICE_PERSONA_ID: "00000000-0000-4000-8000-000000000000",
      SERVICE_BASE_URL: standIn.url,
    }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start:\n${output}`)), 20_000);
    const onData = (data: Buffer) => {
      output += data.toString("utf8");
      const match = /"msg":"example app is listening","url":"(http:\/\/[^"]+)"/u.exec(output);
      if (match?.[1] === undefined) return;
      clearTimeout(timer);
      resolve(match[1]);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${output}`));
    });
  });
});
afterAll(async () => {
  child?.kill("SIGKILL");
  await standIn?.close();
});

/** The example server's error body for a body it cannot read. */
function expectValidation(answer: { status: number; text: string }, context: string) {
  expect(answer.status, `${context}: ${answer.text.slice(0, 200)}`).toBe(400);
  expect(JSON.parse(answer.text), context).toMatchObject({
    error: { type: "validation", message: expect.stringMatching(/larger than 2mb/u) },
  });
}

describe("a body over the limit, written whole before the answer is read", () => {
  for (const client of BODY_CLIENTS) {
    it(`${client}: a 400 validation error on every route`, async () => {
      for (const route of ROUTES) {
        const context = `${client} POST ${route}`;
        const answer = await postWith(
          client,
          `${url}${route}`,
          { "content-type": "application/json" },
          BODY,
        ).catch((error: unknown) => {
          throw new Error(`${context}: ${String((error as Error).cause ?? error)}`);
        });
        expectValidation(answer, context);
      }
    });
  }

  it("a Content-Length over the limit is answered at once, not after the body (5 bytes of 5 MB sent)", async () => {
    for (const route of ROUTES) {
      const exchange = await rawExchange(
        url,
        `POST ${route} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${BODY.length}\r\n\r\n`,
        "12345",
        5_000,
      );
      const context = `POST ${route}: ${exchange.received.slice(0, 200)}`;
      expect(exchange.received, context).toMatch(/^HTTP\/1\.1 400 /u);
      expect(exchange.answeredMs, context).toBeLessThan(1_000);
      // Closed once the client has sent nothing of the rest for a second.
      expect(exchange.timedOut, context).toBe(false);
    }
  });

  it("Expect: 100-continue over the limit: the error before the body is sent", async () => {
    for (const route of ROUTES) {
      const exchange = await rawExchange(
        url,
        `POST ${route} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${BODY.length}\r\nExpect: 100-continue\r\n\r\n`,
        "",
        5_000,
      );
      const context = `POST ${route}: ${exchange.received.slice(0, 200)}`;
      expect(exchange.received, context).toMatch(/^HTTP\/1\.1 400 /u);
      expect(exchange.timedOut, context).toBe(false);
      expect(exchange.elapsedMs, context).toBeLessThan(1_000);
    }
  });
});

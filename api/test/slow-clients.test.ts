import fs from "node:fs";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiFixture, startApi } from "../../test-support/spawn-service.js";

/**
 * Slow and broken clients against the built service running as its own
 * process (test-support/spawn-service.ts), with short server timeouts so
 * the suite waits seconds, not minutes. Memory is read from outside, from
 * /proc/PID/status, with a tolerant bound: it checks that what hostile
 * clients made the server hold is let go, not how fast anything is.
 */
const HEADERS_TIMEOUT_MS = 1_000;
const SOCKET_TIMEOUT_MS = 3_000;
/** How far above its warmed-up baseline the service's memory may stay afterwards. */
const MEMORY_TOLERANCE_BYTES = 64 * 1024 * 1024;

let api: ApiFixture;
let port: number;
let baselineRss: number;

/** Resident set size of a process in bytes, from /proc/PID/status (Linux). */
function residentBytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kilobytes = /^VmRSS:\s+(\d+)\s+kB$/mu.exec(status)?.[1];
  if (kilobytes === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kilobytes) * 1024;
}

const hello = () => ({ personaId: api.personaId, messages: [{ role: "user", content: "Hello!" }] });

/** A normal client's request: it must be answered 200 while others misbehave. */
async function servedNormally(): Promise<void> {
  const response = await fetch(`${api.baseUrl}/api/v1/generate`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": api.apiKey },
    body: JSON.stringify(hello()),
  });
  expect(response.status).toBe(200);
  expect(((await response.json()) as { status: string }).status).toBe("success");
}

/** A raw TCP connection to the service, with what it received and whether it was closed. */
interface RawConnection {
  socket: net.Socket;
  /** The first 200 characters received. */
  received: () => string;
  /** How many responses (status lines) arrived. */
  responses: () => number;
  /** Starts reading, for a connection opened with `read: false`. */
  startReading: () => void;
  closed: Promise<void>;
}

function connect(options: { read?: boolean } = {}): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let received = "";
    let responses = 0;
    let tail = "";
    const closed = new Promise<void>((done) => socket.once("close", () => done()));
    socket.on("error", () => undefined);
    socket.setEncoding("latin1");
    const startReading = () => {
      socket.on("data", (chunk: string) => {
        if (received.length < 200) received += chunk.slice(0, 200 - received.length);
        const text = tail + chunk;
        responses += text.split("HTTP/1.1 ").length - 1;
        // A status line split across two chunks is counted once, in the next one.
        tail = text.slice(-8).includes("H") ? text.slice(text.lastIndexOf("H")) : "";
        if (tail.startsWith("HTTP/1.1 ")) tail = "";
      });
    };
    // Not reading: what the server sends piles up in the kernel buffers, then in the server.
    if (options.read === false) socket.pause();
    else startReading();
    socket.once("connect", () =>
      resolve({
        socket,
        received: () => received,
        responses: () => responses,
        startReading,
        closed,
      }),
    );
    socket.once("error", reject);
  });
}

/** Requests the service is serving right now, from its own metrics (this scrape included). */
async function requestsInFlight(): Promise<number> {
  const text = await (await fetch(`${api.baseUrl}/metrics`)).text();
  return Number(/^persona_http_requests_in_flight (\d+)$/mu.exec(text)?.[1] ?? Number.NaN);
}

/** Waits for every connection to be closed by the server (the suite's own timeout is the ceiling). */
async function allClosedByServer(connections: readonly RawConnection[]): Promise<void> {
  await Promise.all(connections.map((connection) => connection.closed));
}

beforeAll(async () => {
  api = await startApi({
    PERSONA_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    PERSONA_REQUEST_TIMEOUT_MS: "3000",
    PERSONA_KEEP_ALIVE_TIMEOUT_MS: "1000",
    PERSONA_SOCKET_TIMEOUT_MS: String(SOCKET_TIMEOUT_MS),
  });
  port = Number(new URL(api.baseUrl).port);
  // Warm up (JIT, pools, caches) before taking the baseline.
  for (let round = 0; round < 10; round++)
    await Promise.all(Array.from({ length: 10 }, servedNormally));
  await fetch(`${api.baseUrl}/api/v1/openapi.json`).then((response) => response.text());
  baselineRss = residentBytes(api.pid);
}, 60_000);
afterAll(async () => {
  await api?.stop();
});

describe("slow and broken clients (server timeouts)", () => {
  it("clients that send headers, or part of a body, then stall: others are served, the stalled ones get 408 and are closed", async () => {
    const stalled: RawConnection[] = [];
    for (let index = 0; index < 50; index++) {
      const connection = await connect();
      connection.socket.write(
        `POST /api/v1/generate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Api-Key: ${api.apiKey.slice(0, 6)}`,
      );
      stalled.push(connection);
    }
    for (let index = 0; index < 50; index++) {
      const connection = await connect();
      connection.socket.write(
        `POST /api/v1/generate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"personaId":`,
      );
      stalled.push(connection);
    }
    for (let index = 0; index < 10; index++) await servedNormally();
    await allClosedByServer(stalled);
    const answers = stalled.map((connection) => connection.received());
    // Stalled headers: Node's 408 from our clientError handler, with a request ID.
    for (const answer of answers.slice(0, 50)) {
      expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n[\s\S]*x-request-id: /u);
    }
    // A stalled body: the request timeout ends it (408), or the idle-socket timeout closes it.
    for (const answer of answers.slice(50)) expect(answer).toMatch(/^(HTTP\/1\.1 408 |$)/u);
    await servedNormally();
  });

  it("a client that never reads its responses: others are served, and its connection is dropped", async () => {
    const reader = await connect({ read: false });
    // 300 pipelined requests for the OpenAPI document (≈100 kB each) that are never read.
    const request = `GET /api/v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
    reader.socket.write(request.repeat(300));
    for (let index = 0; index < 10; index++) await servedNormally();
    expect(await requestsInFlight()).toBeGreaterThan(1);
    // The server holds one stuck response, not 300: its memory stays near the baseline.
    expect(residentBytes(api.pid)).toBeLessThan(baselineRss + MEMORY_TOLERANCE_BYTES);
    // After the idle-socket timeout the server drops the connection: nothing is in flight
    // any more but this scrape (the suite's own timeout is the ceiling).
    await expect.poll(requestsInFlight, { timeout: 20_000, interval: 250 }).toBe(1);
    await servedNormally();
    // Reading now, the client gets what was already on its way, then the end: far fewer than 300.
    reader.startReading();
    reader.socket.resume();
    await reader.closed;
    expect(reader.responses()).toBeGreaterThan(0);
    expect(reader.responses()).toBeLessThan(300);
  });

  it("200 concurrent idle connections, and 200 idle keep-alive ones: others are served, the server closes them all", async () => {
    const idle = await Promise.all(Array.from({ length: 200 }, () => connect()));
    for (let index = 0; index < 10; index++) await servedNormally();
    const keptAlive = await Promise.all(Array.from({ length: 200 }, () => connect()));
    for (const connection of keptAlive) {
      connection.socket.write(
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n",
      );
    }
    for (let index = 0; index < 10; index++) await servedNormally();
    await allClosedByServer([...idle, ...keptAlive]);
    for (const connection of keptAlive) {
      expect(connection.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n/u);
    }
    await servedNormally();
  });

  it("memory returns near its baseline once the hostile clients are gone", async () => {
    await expect
      .poll(() => residentBytes(api.pid), { timeout: 30_000, interval: 500 })
      .toBeLessThan(baselineRss + MEMORY_TOLERANCE_BYTES);
    // The service still works.
    await servedNormally();
    expect((await fetch(`${api.baseUrl}/healthz`)).status).toBe(200);
  });
});

import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../../test-support/free-port.js";
import { type SpawnedService, spawnService } from "../../test-support/spawn-service.js";
import { readEnvFile } from "../src/storage/env-file.js";

// SIGTERM stops accepting, answers the requests in flight with
// `Connection: close`, closes idle keep-alive connections at once, and the
// process exits within the drain deadline even when a client never finishes.

const started: Array<{ service: SpawnedService; directory: string }> = [];
afterEach(() => {
  for (const { service, directory } of started.splice(0)) {
    if (service.child.exitCode === null && service.child.signalCode === null) {
      service.child.kill("SIGKILL");
    }
    fs.rmSync(directory, { recursive: true, force: true });
  }
});

async function start(environment: Record<string, string>) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-drain-"));
  const service = await spawnService(directory, environment);
  started.push({ service, directory });
  const env = readEnvFile(path.join(directory, ".env"));
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => {
    service.child.once("exit", (code) => resolve({ code, at: performance.now() }));
  });
  return {
    service,
    port: Number(new URL(service.url).port),
    key: env.SERVICE_API_KEY ?? "",
    personaId: env.SERVICE_PERSONA_ID ?? "",
    exited,
  };
}

/** A raw keep-alive connection: what it received, and when the server closed it. */
function open(port: number) {
  const socket = net.connect(port, "127.0.0.1");
  let received = "";
  socket.on("data", (chunk: Buffer) => {
    received += chunk.toString("utf8");
  });
  socket.on("error", () => undefined);
  const closed = new Promise<number>((resolve) => {
    socket.on("close", () => resolve(performance.now()));
  });
  const connected = new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  return { socket, received: () => received, closed, connected };
}

const until = async (condition: () => boolean, timeoutMs: number) => {
  const deadline = performance.now() + timeoutMs;
  while (!condition() && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return condition();
};

describe("SIGTERM drains the connections", () => {
  it("stops accepting, answers the request in flight with Connection: close, closes idle and busy keep-alive connections, exits 0", async () => {
    const { service, port, key, personaId, exited } = await start({
      PERSONA_DRAIN_TIMEOUT_MS: "10000",
      PERSONA_KEEP_ALIVE_TIMEOUT_MS: "60000",
    });

    // An idle keep-alive connection: one request answered, then nothing.
    const idle = open(port);
    await idle.connected;
    idle.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    expect(await until(() => idle.received().includes("\r\n\r\n{"), 5_000)).toBe(true);
    expect(idle.received()).toMatch(/Connection: keep-alive/iu);

    // A request in flight: headers and half of its body sent.
    const body = JSON.stringify({ personaId, messages: [{ role: "user", content: "Hello!" }] });
    const inFlight = open(port);
    await inFlight.connected;
    inFlight.socket.write(
      "POST /api/v1/generate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
        `x-api-key: ${key}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 20)}`,
    );

    // A busy keep-alive client: request after request on one connection.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const busyAnswers: Array<{ at: number; connection: string | undefined }> = [];
    let busyError: string | undefined;
    let stopBusy = false;
    const busy = (async () => {
      while (!stopBusy) {
        try {
          const answer = await new Promise<string | undefined>((resolve, reject) => {
            http
              .get({ host: "127.0.0.1", port, path: "/healthz", agent }, (response) => {
                response.resume();
                response.on("end", () => resolve(response.headers.connection));
              })
              .on("error", reject);
          });
          busyAnswers.push({ at: performance.now(), connection: answer });
        } catch (error) {
          busyError = (error as NodeJS.ErrnoException).code ?? String(error);
          return;
        }
      }
    })();
    expect(await until(() => busyAnswers.length > 3, 5_000)).toBe(true);

    const signalled = performance.now();
    service.child.kill("SIGTERM");

    // The idle connection is closed at once; the busy one within its next answer.
    const idleClosedAt = await Promise.race([idle.closed, until(() => false, 3_000)]);
    expect(typeof idleClosedAt === "number" && idleClosedAt - signalled < 2_000).toBe(true);
    const busyStopped = await until(() => busyError !== undefined, 3_000);
    stopBusy = true;
    await busy;
    agent.destroy();
    expect(busyStopped, `busy client still served: ${busyAnswers.length} answers`).toBe(true);
    // An answer already on its way when the signal came may still arrive; none after that.
    const late = busyAnswers.filter((answer) => answer.at > signalled + 500);
    expect(late).toEqual([]);

    // New connections are refused.
    const refused = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.on("connect", () => {
        socket.destroy();
        resolve(false);
      });
      socket.on("error", () => resolve(true));
    });
    expect(refused).toBe(true);

    // The request in flight is still answered, with Connection: close, and its connection closed.
    expect(service.child.exitCode).toBeNull();
    inFlight.socket.write(body.slice(20));
    const inFlightClosedAt = await inFlight.closed;
    expect(inFlight.received()).toMatch(/^HTTP\/1\.1 200 /u);
    expect(inFlight.received()).toMatch(/\r\nConnection: close\r\n/iu);
    expect(inFlight.received()).toMatch(/"status":"success"/u);

    const exit = await exited;
    expect(exit.code).toBe(0);
    expect(exit.at - inFlightClosedAt).toBeLessThan(3_000);
  }, 40_000);

  it("exits at the drain deadline when a request never finishes", async () => {
    const { service, port, key, exited } = await start({ PERSONA_DRAIN_TIMEOUT_MS: "1500" });
    const stuck = open(port);
    await stuck.connected;
    stuck.socket.write(
      "POST /api/v1/generate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
        `x-api-key: ${key}\r\nContent-Length: 100\r\n\r\n{"personaId":`,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const signalled = performance.now();
    service.child.kill("SIGTERM");
    const exit = await exited;
    expect(exit.code).toBe(0);
    expect(exit.at - signalled).toBeGreaterThan(1_400);
    expect(exit.at - signalled).toBeLessThan(4_500);
    await stuck.closed;
    expect(service.output()).toMatch(/drain deadline/u);
  }, 30_000);
});

describe("SIGTERM while the trace collector is down or stalls", () => {
  /** Starts a traced service, has it serve one request (a span waiting for export), and times SIGTERM → exit. */
  async function timeShutdown(endpoint: string) {
    const { service, exited } = await start({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    const signalled = performance.now();
    service.child.kill("SIGTERM");
    const exit = await exited;
    return { code: exit.code, elapsedMs: exit.at - signalled, output: service.output() };
  }

  it("exits promptly when nothing listens at the OTLP endpoint", async () => {
    const port = await freePort();
    const { code, elapsedMs, output } = await timeShutdown(`http://127.0.0.1:${port}`);
    expect(code).toBe(0);
    expect(elapsedMs, output).toBeLessThan(4_000);
  }, 30_000);

  it("exits promptly when the collector accepts connections and never answers", async () => {
    const sockets = new Set<net.Socket>();
    const collector = net.createServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = collector.address() as net.AddressInfo;
      const { code, elapsedMs, output } = await timeShutdown(`http://127.0.0.1:${port}`);
      expect(code).toBe(0);
      expect(elapsedMs, output).toBeLessThan(4_000);
      // The exporter did try: the last span was on its way when the process gave up on it.
      expect(sockets.size).toBeGreaterThan(0);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => collector.close(resolve));
    }
  }, 30_000);
});

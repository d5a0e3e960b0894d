// npm run bench (mcp-server): a tool call through persona-mcp against the
// same request made directly with @persona-reply/client, in one run.
// Target (issue "MCP server"): the MCP layer adds under 5 ms at p50.
//
// Two services: a node:http stand-in in this process that answers a valid
// /generate body at once (so the difference is the MCP layer alone: JSON-RPC
// over stdio, schema validation, settings resolution, a second process), and
// the real service (api/dist/main.js, offline engine, SQLite, billing and
// rate limits on). Calls alternate between the ways, in alternating order,
// so load on the shared machine hits them alike.

import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { PersonaClient } from "@persona-reply/client";
import { machineLine, writeSection } from "../../bench/results-file.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const mcpMain = path.join(root, "mcp-server/dist/main.js");
const apiMain = path.join(root, "api/dist/main.js");
const adminScript = path.join(root, "api/dist/admin/cli.js");
const calls = Number(process.env.BENCH_MCP_CALLS ?? 300);
const warmUps = 30;
const TARGET_MS = 5;
const MESSAGE = "Hello! Which herbs grow well on a balcony?";

/** A stand-in of the service: any POST gets a valid /generate answer. */
async function startStandIn() {
  const body = JSON.stringify({
    status: "success",
    result: { finalReply: "Basil and thyme do well.", chunks: ["Basil and thyme do well."] },
  });
  const server = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(body);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${server.address().port}`,
    apiKey: `prk_bench${"0".repeat(30)}`,
    personaId: "00000000-0000-4000-8000-000000000000",
    stop: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** The real service on a fresh store, its demo key's limits raised for the run. */
async function startService(directory) {
  const child = spawn(process.execPath, [apiMain], {
    cwd: directory,
    env: { ...process.env, PERSONA_PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const baseUrl = await new Promise((resolve, reject) => {
    setTimeout(() => reject(new Error(`the service did not start: ${output}`)), 30_000).unref();
    const onData = (data) => {
      output += data;
      const match = /"url":"(http:\/\/[^"]+)"[^\n]*Persona Reply is listening/u.exec(output);
      if (match) resolve(match[1]);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => reject(new Error(`service exited with ${code}: ${output}`)));
  });
  // Keep draining the pipes so the service never blocks on a full one.
  child.stdout.on("data", () => {});
  child.stderr.on("data", () => {});
  const values = Object.fromEntries(
    fs
      .readFileSync(path.join(directory, ".env"), "utf8")
      .split("\n")
      .filter((line) => line.includes("="))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
  const admin = (...args) => {
    const result = spawnSync(process.execPath, [adminScript, ...args], {
      env: {
        ...process.env,
        PERSONA_DATABASE_URL: path.join(directory, "data", "persona-reply.sqlite"),
      },
      encoding: "utf8",
    });
    if (result.status !== 0) throw new Error(`persona-admin ${args.join(" ")}: ${result.stderr}`);
    return result.stdout.trim();
  };
  const { accountId } = JSON.parse(admin("persona", "show", values.SERVICE_PERSONA_ID));
  for (const key of JSON.parse(admin("key", "list", "--account", accountId))) {
    admin(
      "limits",
      "set",
      "--key",
      key.id,
      "--minute",
      "100000",
      "--hour",
      "1000000",
      "--day",
      "10000000",
    );
  }
  return {
    baseUrl,
    apiKey: values.SERVICE_API_KEY,
    personaId: values.SERVICE_PERSONA_ID,
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", resolve);
        child.kill("SIGTERM");
      }),
  };
}

/** An SDK client talking to a spawned persona-mcp, over stdio or Streamable HTTP. */
async function connectMcp(service, home, transportName) {
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, "config"),
    SERVICE_API_KEY: service.apiKey,
    SERVICE_PERSONA_ID: service.personaId,
    SERVICE_BASE_URL: service.baseUrl,
  };
  const client = new Client({ name: "persona-mcp-bench", version: "1.0.0" });
  if (transportName === "stdio") {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [mcpMain],
      env,
      cwd: home,
      stderr: "pipe",
    });
    // Read the log as an agent does, so the server never blocks on a full pipe.
    transport.stderr.on("data", () => {});
    await client.connect(transport);
    return { client, close: () => client.close() };
  }
  // A token of our own, so the requests carry the Authorization header every real client sends.
  const token = randomBytes(32).toString("base64url");
  const child = spawn(process.execPath, [mcpMain, "--http", "--port", "0"], {
    env: { ...env, PERSONA_MCP_HTTP_TOKEN: token },
    cwd: home,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  const url = await new Promise((resolve, reject) => {
    setTimeout(() => reject(new Error(`persona-mcp did not start: ${log}`)), 15_000).unref();
    child.stderr.on("data", (data) => {
      log += data;
      const match = /listening at (http:\/\/\S+)/u.exec(log);
      if (match) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`persona-mcp exited with ${code}: ${log}`)));
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return {
    client,
    close: async () => {
      await client.close();
      await new Promise((resolve) => {
        child.once("exit", resolve);
        child.kill("SIGTERM");
      });
    },
  };
}

function percentile(values, fraction) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}

/** Times `calls` rounds of each way, alternating; returns milliseconds per way. */
async function measure(service, home) {
  const direct = new PersonaClient({
    apiKey: service.apiKey,
    personaId: service.personaId,
    baseUrl: service.baseUrl,
    maxRetries: 0,
  });
  const stdio = await connectMcp(service, home, "stdio");
  const streamable = await connectMcp(service, home, "http");
  const ways = {
    direct: () => direct.generate({ messages: [{ role: "user", content: MESSAGE }] }),
    stdio: () => stdio.client.callTool({ name: "generate", arguments: { message: MESSAGE } }),
    http: () => streamable.client.callTool({ name: "generate", arguments: { message: MESSAGE } }),
  };
  const samples = { direct: [], stdio: [], http: [] };
  const names = Object.keys(ways);
  try {
    for (let round = 0; round < warmUps + calls; round += 1) {
      const order = round % 2 === 0 ? names : [...names].reverse();
      for (const name of order) {
        const started = performance.now();
        const result = await ways[name]();
        const elapsed = performance.now() - started;
        if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
        if (round >= warmUps) samples[name].push(elapsed);
      }
    }
  } finally {
    await stdio.close();
    await streamable.close();
  }
  return samples;
}

function rows(label, samples) {
  const line = (name, values) =>
    `| ${label} | ${name} | ${percentile(values, 0.5).toFixed(2)} | ${percentile(values, 0.9).toFixed(2)} | ${percentile(values, 0.99).toFixed(2)} |`;
  return [
    line("client library, direct", samples.direct),
    line("`persona-mcp` tool call over stdio", samples.stdio),
    line("`persona-mcp` tool call over Streamable HTTP", samples.http),
  ];
}

const home = fs.mkdtempSync(path.join(os.tmpdir(), "persona-mcp-bench-"));
const serviceDirectory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-mcp-bench-service-"));
const standIn = await startStandIn();
let service;
const results = {};
try {
  results.standIn = await measure(standIn, home);
  service = await startService(serviceDirectory);
  results.service = await measure(service, home);
} finally {
  await standIn.stop();
  await service?.stop();
  fs.rmSync(home, { recursive: true, force: true });
  fs.rmSync(serviceDirectory, { recursive: true, force: true });
}

const added = (samples) => percentile(samples.stdio, 0.5) - percentile(samples.direct, 0.5);
const verdict = (milliseconds) => (milliseconds < TARGET_MS ? "met" : "**missed**");
const standInAdded = added(results.standIn);
const serviceAdded = added(results.service);
const section = `## MCP server: tool call round trip vs the client library

- Machine: ${machineLine()}
- Command: \`npm run bench\` (mcp-server/bench/round-trip-bench.mjs: ${calls} calls of each way after ${warmUps} warm-ups, alternating, one at a time; the MCP SDK's \`Client\` in the benchmark process, \`persona-mcp\` (built) in its own process with its default logging to a pipe; the same request — one user message — each time)
- Date: ${new Date().toISOString().slice(0, 10)}

| service | way | p50 ms | p90 ms | p99 ms |
|---|---|---:|---:|---:|
${[...rows("node:http stand-in", results.standIn), ...rows("real service (offline engine, SQLite)", results.service)].join("\n")}

Added by the MCP layer over stdio at p50 (tool call minus direct call): **${standInAdded.toFixed(2)} ms** against the stand-in (target < ${TARGET_MS} ms: ${verdict(standInAdded)}), **${serviceAdded.toFixed(2)} ms** against the real service (${verdict(serviceAdded)}). The stand-in row isolates the layer itself: JSON-RPC over the pipe, input and output schema validation, reading \`.env\` and the profile file again, and the hop through a second process.`;
writeSection(path.join(root, "docs/BENCHMARKS.md"), "mcp-round-trip", section);
process.stdout.write(`${section}\n`);

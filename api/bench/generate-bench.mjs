// npm run bench: /api/v1/generate on the offline engine (SQLite) against a
// bare node:http JSON handler, in the same run, with autocannon.
// Target (issue "service core"): /generate ≥ 35% of the bare handler's
// requests/s and p99 < 25 ms at 10 connections.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { machineLine, writeSection } from "./results-file.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const duration = Number(process.env.BENCH_DURATION_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);

function startProcess(args, options, pattern) {
  const child = spawn(process.execPath, args, { ...options, stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let output = "";
    let started = false;
    child.stdout.on("data", (data) => {
      if (started) return; // keep draining the pipe, stop buffering
      output += data;
      const match = pattern.exec(output);
      if (match) {
        started = true;
        resolve({ child, url: match[1] });
      }
    });
    child.once("exit", (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
}

async function load(url, body, headers) {
  const options = {
    url,
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
    connections,
  };
  await autocannon({ ...options, duration: 2 }); // warm-up: JIT, caches, SQLite pages
  const result = await autocannon({ ...options, duration });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx responses, ${result.errors} errors`);
  }
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
  };
}

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-bench-"));
const service = await startProcess(
  [path.join(root, "api/dist/main.js")],
  // Request logging stays on (level info), as in production; stdout is drained.
  { cwd: directory, env: { ...process.env, PERSONA_PORT: "0" } },
  /"url":"(http:\/\/[^"]+)"[^\n]*listening/u,
);
const bare = await startProcess(
  [path.join(here, "bare-server.mjs")],
  {},
  /"url":"(http:\/\/[^"]+)"/u,
);
const env = Object.fromEntries(
  fs
    .readFileSync(path.join(directory, ".env"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => line.split("=", 2)),
);
const body = JSON.stringify({
  personaId: env.SERVICE_PERSONA_ID,
  messages: [
    { role: "system", content: "The user is planning a balcony garden." },
    { role: "user", content: "Hi! Which herbs grow well in pots on a sunny balcony?" },
  ],
});
try {
  const baseline = await load(bare.url, body, {});
  const generate = await load(`${service.url}/api/v1/generate`, body, {
    "x-api-key": env.SERVICE_API_KEY,
  });
  const ratio = generate.rps / baseline.rps;
  const verdict = (ok) => (ok ? "met" : "**missed**");
  const section = `## /api/v1/generate vs bare node:http (offline engine, SQLite)

- Machine: ${machineLine()}
- Command: \`npm run bench\` (autocannon, ${connections} connections, ${duration} s after a 2 s warm-up; each server in its own process)
- Date: ${new Date().toISOString().slice(0, 10)}

| target | requests/s | p50 ms | p99 ms | requests |
|---|---:|---:|---:|---:|
| bare node:http JSON handler | ${baseline.rps.toFixed(0)} | ${baseline.p50} | ${baseline.p99} | ${baseline.total} |
| POST /api/v1/generate | ${generate.rps.toFixed(0)} | ${generate.p50} | ${generate.p99} | ${generate.total} |

Ratio /generate ÷ bare: **${(ratio * 100).toFixed(1)} %** (target ≥ 35 %: ${verdict(ratio >= 0.35)}); p99 ${generate.p99} ms (target < 25 ms: ${verdict(generate.p99 < 25)}).`;
  writeSection(path.join(root, "docs/BENCHMARKS.md"), "generate", section);
  process.stdout.write(`${section}\n`);
} finally {
  service.child.kill("SIGTERM");
  bare.child.kill("SIGTERM");
  fs.rmSync(directory, { recursive: true, force: true });
}

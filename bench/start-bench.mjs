#!/usr/bin/env node
// `npm run bench:start`: how long `npm start` takes until the service and the
// example app are both listening, cold (the first start after `npm ci`:
// nothing built, no store yet) and warm (a second start with nothing
// changed: built, store and .env from the previous start). Each run is `npm
// start` as a user types it, on free ports, with its store and .env in a
// temporary folder; it is stopped with SIGTERM once the example app is up.
// Figures go to docs/BENCHMARKS.md (section "npm-start").
//
//   node bench/start-bench.mjs [--cold N] [--warm N]   (default 2 cold, 5 warm)
//
// The cold runs delete every package's dist/ and the build stamps; the last
// run leaves everything built.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { machineLine, writeSection } from "./results-file.mjs";

const root = path.resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: { cold: { type: "string", default: "2" }, warm: { type: "string", default: "5" } },
});
const READY = /example app is listening/u;
const BUILT_FOLDERS = ["shared", "api", "client", "mcp-server", "example-app"].map((name) =>
  path.join(root, name, "dist"),
);
const STAMPS = path.join(root, "node_modules", ".cache", "persona-reply-build");

/**
 * Runs `npm start` with its store and .env in `folder` until the example app
 * listens; resolves with the milliseconds it took and the build line.
 */
function timeStart(folder) {
  const started = performance.now();
  const child = spawn("npm", ["start"], {
    cwd: root,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      PERSONA_PORT: "0",
      EXAMPLE_PORT: "0",
      PERSONA_DATABASE_URL: path.join(folder, "persona-reply.sqlite"),
      PERSONA_ENV_FILE: path.join(folder, ".env"),
      npm_config_update_notifier: "false",
    },
  });
  let output = "";
  return new Promise((resolve, reject) => {
    const onData = (data) => {
      output += data.toString("utf8");
      if (!READY.test(output)) return;
      const elapsed = performance.now() - started;
      child.stdout.off("data", onData);
      child.stderr.off("data", onData);
      child.once("exit", () => {
        resolve({ milliseconds: elapsed, build: /^build: .*$/mu.exec(output)?.[0] ?? "" });
      });
      process.kill(-child.pid, "SIGTERM");
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => {
      if (!READY.test(output)) reject(new Error(`npm start exited with ${code}:\n${output}`));
    });
  });
}

function summary(runs) {
  const sorted = runs.map((run) => run.milliseconds / 1000).sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  const format = (seconds) => `${seconds.toFixed(1)} s`;
  return `${format(median)} (min ${format(sorted[0])}, max ${format(sorted.at(-1))}, ${runs.length} runs)`;
}

const temporary = () => fs.mkdtempSync(path.join(os.tmpdir(), "persona-start-bench-"));
const cold = [];
for (let run = 0; run < Number(values.cold); run += 1) {
  for (const folder of BUILT_FOLDERS) fs.rmSync(folder, { recursive: true, force: true });
  fs.rmSync(STAMPS, { recursive: true, force: true });
  const folder = temporary();
  cold.push(await timeStart(folder));
  fs.rmSync(folder, { recursive: true, force: true });
  process.stderr.write(`cold: ${(cold.at(-1).milliseconds / 1000).toFixed(1)} s\n`);
}
const warm = [];
const kept = temporary();
await timeStart(kept); // the first start: builds what is missing, creates the store and .env
for (let run = 0; run < Number(values.warm); run += 1) {
  warm.push(await timeStart(kept));
  process.stderr.write(`warm: ${(warm.at(-1).milliseconds / 1000).toFixed(1)} s\n`);
}
fs.rmSync(kept, { recursive: true, force: true });

const load = os.loadavg()[0].toFixed(1);
writeSection(
  path.join(root, "docs", "BENCHMARKS.md"),
  "npm-start",
  `## \`npm start\`: cold and warm (time until the service and the example app listen)

- Machine: ${machineLine()}; load average ${load} at the end (a shared machine)
- Command: \`npm run bench:start\` (bench/start-bench.mjs: \`npm start\` as typed, on free ports, store and .env in a temporary folder; timed from the start of \`npm start\` to the example app's "listening" line)

| start | median (min, max) | build step |
|---|---|---|
${cold.length > 0 ? `| cold: first start after \`npm ci\` (nothing built, no store) | ${summary(cold)} | \`${cold.at(-1).build}\` |\n` : ""}| warm: second start, nothing changed | ${summary(warm)} | \`${warm.at(-1).build}\` |

A warm start finds every build step's input hashes unchanged (TypeScript,
the bundles, the Vite build: scripts/build.mjs) and runs none of them, then
starts the service and, once it listens, the example app.`,
);
process.stdout.write(
  `cold ${cold.length > 0 ? summary(cold) : "skipped"}; warm ${summary(warm)}\n`,
);

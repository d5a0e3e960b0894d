#!/usr/bin/env node
// npm start (after npm run build): the service, and beside it the example
// app (spec §4.6) configured from the .env the service's first run wrote.
// Both are stopped together on Ctrl-C or SIGTERM; if one of them exits on
// its own, the other is stopped and its exit code is passed on.
//
//   service      http://127.0.0.1:8787  (PERSONA_PORT or PORT)
//   example app  http://127.0.0.1:5173  (EXAMPLE_PORT)
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SERVICE_MAIN = path.join(root, "api/dist/main.js");
const EXAMPLE_MAIN = path.join(root, "example-app/dist/server/main.js");
const LISTENING = /"url":"(https?:\/\/[^"]+)"[^\n]*Persona Reply is listening/u;
const SERVICE_VARIABLES = ["SERVICE_API_KEY", "SERVICE_PERSONA_ID", "SERVICE_BASE_URL"];
/** Time children get to finish their requests after SIGTERM before they are killed. */
const GRACE_MS = 10_000;

for (const file of [SERVICE_MAIN, EXAMPLE_MAIN]) {
  if (!fs.existsSync(file)) {
    process.stderr.write(
      `persona-reply: ${path.relative(root, file)} is missing; run npm run build first\n`,
    );
    process.exit(1);
  }
}

/** `NAME=value` lines of a dotenv file (the service writes plain ones). */
function readEnvFile(file) {
  if (!fs.existsSync(file)) return {};
  const values = {};
  for (const line of fs.readFileSync(file, "utf8").split(/\r?\n/u)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/u.exec(line);
    if (match) values[match[1]] = match[2].replace(/^(['"])(.*)\1$/u, "$2");
  }
  return values;
}

const children = new Set();
let stopping = false;
let exitCode = 0;

function stopAll(code) {
  if (stopping) return;
  stopping = true;
  exitCode = code;
  for (const child of children) child.kill("SIGTERM");
  setTimeout(() => {
    for (const child of children) child.kill("SIGKILL");
  }, GRACE_MS).unref();
}

function track(child, name) {
  children.add(child);
  child.once("exit", (code, signal) => {
    children.delete(child);
    if (!stopping) {
      process.stderr.write(`persona-reply: the ${name} exited (${signal ?? code}); stopping\n`);
      stopAll(code === 0 || code === null ? 1 : code);
    }
    if (children.size === 0) process.exit(exitCode);
  });
}

process.on("SIGINT", () => stopAll(0));
process.on("SIGTERM", () => stopAll(0));

const service = spawn(process.execPath, [SERVICE_MAIN], {
  stdio: ["ignore", "pipe", "inherit"],
});
track(service, "service");

let started = false;
let pending = "";
service.stdout.on("data", (data) => {
  process.stdout.write(data);
  if (started) return;
  pending += data.toString("utf8");
  const match = LISTENING.exec(pending);
  if (match === null) return;
  started = true;
  pending = "";
  startExample();
});

// The service logs "listening" after its first run wrote .env, so the
// example app starts with the key, persona and URL it needs.
function startExample() {
  if (stopping) return;
  const envFile = path.resolve(process.env.PERSONA_ENV_FILE ?? ".env");
  const written = readEnvFile(envFile);
  const environment = { ...process.env };
  for (const name of SERVICE_VARIABLES) {
    if (written[name] !== undefined && written[name] !== "") environment[name] = written[name];
  }
  const example = spawn(process.execPath, [EXAMPLE_MAIN], {
    stdio: ["ignore", "inherit", "inherit"],
    env: environment,
  });
  track(example, "example app");
}

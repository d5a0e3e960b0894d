#!/usr/bin/env node
// npm start: builds what changed (scripts/build.mjs), then runs the service
// and, beside it, the example app (docs/API.md §4.6) configured from the .env the
// service's first run wrote. Both are stopped together on Ctrl-C or SIGTERM
// — to this process, or to the npm process that runs it, which passes the
// signal on (the root package.json `exec`s this script, so no shell stands
// between npm and it to swallow the signal) — and this process exits once
// they have; if one of them exits on its own, the other is stopped and its
// exit code is passed on.
//
//   service      http://127.0.0.1:8787  (PERSONA_PORT or PORT)
//   example app  http://127.0.0.1:5173  (EXAMPLE_PORT)
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const BUILD_SCRIPT = path.join(root, "scripts/build.mjs");
const SERVICE_MAIN = path.join(root, "api/dist/main.js");
const EXAMPLE_MAIN = path.join(root, "example-app/dist/server/main.js");
const LISTENING = /"url":"(https?:\/\/[^"]+)"[^\n]*Persona Reply is listening/u;
const SERVICE_VARIABLES = ["SERVICE_API_KEY", "SERVICE_PERSONA_ID", "SERVICE_BASE_URL"];
/** Time children get to finish their requests after SIGTERM before they are killed. */
const GRACE_MS = 10_000;

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

/** Running children, each with how to signal it. */
const children = new Map();
let stopping = false;
let exitCode = 0;

function stopAll(code) {
  if (stopping) return;
  stopping = true;
  exitCode = code;
  if (children.size === 0) process.exit(exitCode);
  for (const signal of children.values()) signal("SIGTERM");
  setTimeout(() => {
    for (const signal of children.values()) signal("SIGKILL");
  }, GRACE_MS).unref();
}

/**
 * Follows a child until it exits; `onExit` runs unless the script is
 * stopping, and the script exits once it is stopping and no child is left.
 */
function track(child, signal, onExit) {
  children.set(child, signal);
  child.once("exit", (code, exitSignal) => {
    children.delete(child);
    if (!stopping) onExit(code, exitSignal);
    if (stopping && children.size === 0) process.exit(exitCode);
  });
}

/** Runs the service or the example app: when it exits on its own, everything stops. */
function trackServer(child, name) {
  track(
    child,
    (signal) => child.kill(signal),
    (code, signal) => {
      process.stderr.write(`persona-reply: the ${name} exited (${signal ?? code}); stopping\n`);
      stopAll(code === 0 || code === null ? 1 : code);
    },
  );
}

process.on("SIGINT", () => stopAll(0));
process.on("SIGTERM", () => stopAll(0));

// The build runs in a process group of its own, so a stop ends the compilers
// and bundlers it started too, not only the build script.
const build = spawn(process.execPath, [BUILD_SCRIPT], { stdio: "inherit", detached: true });
track(
  build,
  (signal) => {
    try {
      process.kill(-build.pid, signal);
    } catch {
      // The group has already gone.
    }
  },
  // A failed build has said what failed.
  (code) => (code === 0 ? startService() : process.exit(code ?? 1)),
);

function startService() {
  const service = spawn(process.execPath, [SERVICE_MAIN], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  trackServer(service, "service");

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
}

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
  trackServer(example, "example app");
}

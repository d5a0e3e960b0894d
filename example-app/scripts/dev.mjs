#!/usr/bin/env node
// npm run dev: the Vite dev server (hot reload) on EXAMPLE_PORT (default
// 5173), proxying /api to the express server, which runs from its compiled
// files on EXAMPLE_API_PORT (default 5174) and restarts when they change
// (tsc --watch recompiles them). Ctrl-C stops everything.
import { spawn, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createServer } from "vite";

const appDirectory = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const tsc = require.resolve("typescript/bin/tsc");
const apiPort = process.env.EXAMPLE_API_PORT ?? "5174";

const compiled = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], {
  cwd: appDirectory,
  stdio: "inherit",
});
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

const children = [
  spawn(process.execPath, [tsc, "-p", "tsconfig.build.json", "--watch", "--preserveWatchOutput"], {
    cwd: appDirectory,
    stdio: ["ignore", "ignore", "inherit"],
  }),
  spawn(process.execPath, ["--watch", "dist/server/main.js"], {
    cwd: appDirectory,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, EXAMPLE_PORT: apiPort, EXAMPLE_API_PORT: apiPort },
  }),
];

const vite = await createServer({
  root: appDirectory,
  configFile: path.join(appDirectory, "vite.config.ts"),
});
await vite.listen();
vite.printUrls();

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  for (const child of children) child.kill("SIGTERM");
  await vite.close();
  process.exit(0);
}
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
for (const child of children) {
  child.once("exit", (code) => {
    if (!stopping) {
      process.stderr.write(`example-app dev: a child process exited (${code}); stopping\n`);
      void stop();
    }
  });
}

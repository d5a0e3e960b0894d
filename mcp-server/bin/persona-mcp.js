#!/usr/bin/env node
// `persona-mcp`: runs the built server, dist/main.js. This file is committed
// so that npm links the command when it installs, before any build has run;
// in a clone that is not built yet it says what to do (on standard error:
// standard output belongs to the MCP protocol).
import fs from "node:fs";
import { fileURLToPath } from "node:url";

const built = new URL("../dist/main.js", import.meta.url);
if (fs.existsSync(built)) {
  await import(built.href);
} else {
  const repository = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/u, "");
  process.stderr.write(
    `persona-mcp: not built yet (mcp-server/dist/main.js is missing): run \`npm run build\` in ${repository} first.\n`,
  );
  process.exitCode = 1;
}

#!/usr/bin/env node
// Runs the repository's commands the way the READMEs say — `npx --no-install
// persona`, `npx --no-install persona-mcp`, `npx --no-install persona-admin`
// and `npm run admin` — from the repository root, and checks each does what
// it should at this point:
//
//   node scripts/check-commands.mjs unbuilt   right after `npm ci`: each is
//       linked and says it is not built yet and to run `npm run build` (exit 1)
//   node scripts/check-commands.mjs built     after `npm run build`: each runs (exit 0)
//
// npm runs offline here, so a command that is not linked fails at once
// instead of being looked up in the registry. CI runs both (.ci/run).
import { spawnSync } from "node:child_process";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const expected = process.argv[2];
if (expected !== "unbuilt" && expected !== "built") {
  process.stderr.write("usage: node scripts/check-commands.mjs unbuilt|built\n");
  process.exit(2);
}

const COMMANDS = [
  ["npx", "--no-install", "persona", "--version"],
  ["npx", "--no-install", "persona-mcp", "--version"],
  ["npx", "--no-install", "persona-admin", "--help"],
  ["npm", "run", "--silent", "admin", "--", "--help"],
];

let failures = 0;
for (const [command, ...args] of COMMANDS) {
  const line = [command, ...args].join(" ");
  const result = spawnSync(command, args, {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, npm_config_offline: "true", npm_config_update_notifier: "false" },
  });
  const output = `${result.stdout}${result.stderr}`;
  const ok =
    expected === "built"
      ? result.status === 0
      : result.status === 1 && /not built yet .*run `npm run build`/u.test(output);
  process.stdout.write(`${ok ? "ok  " : "FAIL"} ${line} (exit ${result.status})\n`);
  if (!ok) {
    failures += 1;
    process.stdout.write(`${output.replace(/^/gmu, "     ")}\n`);
  }
}
process.exit(failures === 0 ? 0 : 1);

#!/usr/bin/env node
// `persona-admin` (and `npm run admin`): runs the built operator CLI,
// dist/admin/cli.js. This file is committed so that npm links the command
// when it installs, before any build has run; in a clone that is not built
// yet it says what to do instead of failing.
import fs from "node:fs";
import { fileURLToPath } from "node:url";

const built = new URL("../dist/admin/cli.js", import.meta.url);
if (fs.existsSync(built)) {
  await import(built.href);
} else {
  const repository = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/u, "");
  process.stderr.write(
    `persona-admin: not built yet (api/dist/admin/cli.js is missing): run \`npm run build\` in ${repository} first.\n`,
  );
  process.exitCode = 1;
}

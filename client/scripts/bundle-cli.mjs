// Bundles the `persona` executable into one file, dist/cli/main.js, with its
// dependencies (the library, @persona-reply/shared, zod, commander). Loading
// one file instead of ~100 modules is most of the tool's cold start (see
// bench/cold-start-bench.mjs and docs/BENCHMARKS.md).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const output = path.join(root, "dist/cli/main.js");

await build({
  input: path.join(root, "src/cli/main.ts"),
  platform: "node",
  logLevel: "warn",
  output: {
    file: output,
    format: "esm",
    minify: true,
    sourcemap: true,
  },
});
const code = fs.readFileSync(output, "utf8");
if (!code.startsWith("#!")) fs.writeFileSync(output, `#!/usr/bin/env node\n${code}`);
fs.chmodSync(output, 0o755);

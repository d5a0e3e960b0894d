// Bundles the `persona` executable into one file, dist/cli/main.js, with its
// dependencies (the library, @persona-reply/shared, zod, commander). Loading
// one file instead of ~100 modules is most of the tool's cold start (see
// bench/cold-start-bench.mjs and docs/BENCHMARKS.md). bin/persona.js runs it.
import path from "node:path";
import { bundleExecutable } from "../../scripts/bundle-executable.mjs";

const root = path.resolve(import.meta.dirname, "..");

await bundleExecutable({
  input: path.join(root, "src/cli/main.ts"),
  output: path.join(root, "dist/cli/main.js"),
  sourcemap: true,
});

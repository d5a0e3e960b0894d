import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The library entry must run in browsers (issue: "no Node-only imports in the
// library entry"): walk every module reachable from src/index.ts and check
// that none imports a Node built-in or the Node-only profile store.

const here = path.dirname(fileURLToPath(import.meta.url));
const IMPORT_PATTERN = /(?:import|export)\s+(?:type\s+)?(?:[^"';]*?\s+from\s+)?["']([^"']+)["']/gu;

function reachableImports(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (seen.has(file)) continue;
    const source = fs.readFileSync(file, "utf8");
    const specifiers = [...source.matchAll(IMPORT_PATTERN)].map((match) => match[1] as string);
    seen.set(file, specifiers);
    for (const specifier of specifiers) {
      if (specifier.startsWith(".")) {
        pending.push(path.resolve(path.dirname(file), specifier.replace(/\.js$/u, ".ts")));
      }
    }
  }
  return seen;
}

describe("library entry is browser-safe", () => {
  it("reaches no Node built-in, no process import and no profile store", () => {
    const graph = reachableImports(path.join(here, "index.ts"));
    expect(graph.size).toBeGreaterThan(5);
    for (const [file, specifiers] of graph) {
      const relative = path.relative(here, file);
      expect(relative.startsWith("profiles/") || relative.startsWith("cli/"), relative).toBe(false);
      for (const specifier of specifiers) {
        expect(specifier.startsWith("node:"), `${relative} imports ${specifier}`).toBe(false);
        expect(specifier.startsWith(".") || specifier.startsWith("@persona-reply/")).toBe(true);
      }
    }
  });
});

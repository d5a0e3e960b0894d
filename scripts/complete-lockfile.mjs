#!/usr/bin/env node
// Adds the lockfile entries of platform-specific optional dependencies that
// `npm install` left out. npm 11 on this workplace records only the optional
// packages that match the machine it ran on, and `npm ci` then refuses the
// lockfile ("Missing: @biomejs/cli-darwin-arm64@ from lock file"; see
// npm/cli#8320, #4828). Run after any `npm install` that changes
// dependencies: `node scripts/complete-lockfile.mjs`. Metadata comes from the
// registry through `npm view`; nothing is downloaded or installed.
import { execFileSync } from "node:child_process";
import fs from "node:fs";

const file = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(fs.readFileSync(file, "utf8"));
const packages = lock.packages;
let added = 0;

/** The lockfile path a dependency of `parentPath` resolves to (node's lookup, outermost hoisted). */
function resolvedPath(parentPath, name) {
  let base = parentPath;
  while (true) {
    const candidate = `${base === "" ? "" : `${base}/`}node_modules/${name}`;
    if (packages[candidate] !== undefined) return candidate;
    if (base === "") return undefined;
    const index = base.lastIndexOf("node_modules/");
    base = index <= 0 ? "" : base.slice(0, index - 1);
  }
}

for (const [parentPath, entry] of Object.entries({ ...packages })) {
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
    if (resolvedPath(parentPath, name) !== undefined) continue;
    let meta;
    try {
      const view = JSON.parse(
        execFileSync(
          "npm",
          [
            "view",
            `${name}@${range}`,
            "--json",
            "version",
            "dist.integrity",
            "os",
            "cpu",
            "libc",
            "engines",
            "license",
          ],
          { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
        ),
      );
      meta = Array.isArray(view) ? view.at(-1) : view;
    } catch {
      // The registry reached here does not carry every platform's build. An
      // entry without integrity still satisfies `npm ci`'s check; installing an
      // optional package that cannot be fetched is skipped, not an error.
      meta = { version: range };
    }
    const target = `${parentPath === "" ? "" : `${parentPath}/`}node_modules/${name}`;
    const added_entry = { version: meta.version };
    if (meta["dist.integrity"]) added_entry.integrity = meta["dist.integrity"];
    if (meta.cpu) added_entry.cpu = meta.cpu;
    if (entry.dev) added_entry.dev = true;
    if (entry.devOptional) added_entry.devOptional = true;
    if (meta.libc) added_entry.libc = meta.libc;
    if (meta.license) added_entry.license = meta.license;
    added_entry.optional = true;
    if (meta.os) added_entry.os = meta.os;
    if (meta.engines) added_entry.engines = meta.engines;
    packages[target] = added_entry;
    added += 1;
  }
}

lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([left], [right]) =>
    left === "" ? -1 : right === "" ? 1 : left < right ? -1 : left > right ? 1 : 0,
  ),
);
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`complete-lockfile: added ${added} optional platform entries\n`);

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { scratchDirectory } from "../../../test-support/isolated-process.js";

/** The checkout the tests run in. */
export const CHECKOUT_ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/**
 * A scratch clone of the checkout, as a user's own clone would be: the
 * tracked files as they are now (edits included) copied into a fresh
 * folder, with the checkout's node_modules and built dist/ folders linked
 * in (so nothing is installed or built there; run `npm run build` first).
 * Removed when the test process exits.
 */
export function scratchClone(): string {
  const clone = scratchDirectory("persona-clone-");
  const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: CHECKOUT_ROOT, encoding: "utf8" })
    .split("\0")
    .filter((file) => file !== "" && fs.existsSync(path.join(CHECKOUT_ROOT, file)));
  for (const file of tracked) {
    fs.mkdirSync(path.dirname(path.join(clone, file)), { recursive: true });
    fs.copyFileSync(path.join(CHECKOUT_ROOT, file), path.join(clone, file));
  }
  fs.symlinkSync(path.join(CHECKOUT_ROOT, "node_modules"), path.join(clone, "node_modules"), "dir");
  for (const entry of fs.readdirSync(CHECKOUT_ROOT, { withFileTypes: true })) {
    const dist = path.join(CHECKOUT_ROOT, entry.name, "dist");
    if (entry.isDirectory() && entry.name !== "node_modules" && fs.existsSync(dist)) {
      fs.symlinkSync(dist, path.join(clone, entry.name, "dist"), "dir");
    }
  }
  return clone;
}

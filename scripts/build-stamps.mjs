// Whether a build step (scripts/build.mjs) has anything to do: a step is up
// to date when the content of its inputs is what it was at its last run and
// each of its outputs is still the file that run wrote. Contents are hashed
// (SHA-256), not dated, so a checkout, a `git stash` or a copy that changes
// times but not content rebuilds nothing, and an edit always rebuilds.
// Stamps live in node_modules/.cache/persona-reply-build/ (one JSON file a
// step), so a fresh install builds everything once.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/** Folders never read as inputs. */
const SKIPPED_FOLDERS = new Set(["node_modules", "dist", ".git"]);

function stampFile(root, step) {
  const name = step.name.replace(/[^a-z0-9]+/giu, "-");
  return path.join(root, "node_modules", ".cache", "persona-reply-build", `${name}.json`);
}

/** Every file under `entry` (a file or a folder), sorted, as paths relative to `root`. */
function listFiles(root, entry) {
  const absolute = path.join(root, entry);
  if (!fs.existsSync(absolute)) return [];
  if (!fs.statSync(absolute).isDirectory()) return [entry];
  const files = [];
  for (const child of fs.readdirSync(absolute, { withFileTypes: true })) {
    if (child.isDirectory() && SKIPPED_FOLDERS.has(child.name)) continue;
    files.push(...listFiles(root, path.join(entry, child.name)));
  }
  return files.sort();
}

/** SHA-256 over the names and contents of every input file of a step. */
function hashInputs(root, step) {
  const hash = createHash("sha256");
  for (const file of step.inputs.flatMap((entry) => listFiles(root, entry))) {
    hash
      .update(`${file}\0`)
      .update(fs.readFileSync(path.join(root, file)))
      .update("\0");
  }
  return hash.digest("hex");
}

/** SHA-256 of a file's content, or null when it does not exist. */
function hashFile(file) {
  if (!fs.existsSync(file)) return null;
  return createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}

function readStamp(root, step) {
  try {
    return JSON.parse(fs.readFileSync(stampFile(root, step), "utf8"));
  } catch {
    return null;
  }
}

/**
 * Whether the step has anything to do: false when its inputs have the content
 * they had at its last recorded run and every output is unchanged since.
 * `record()`, called once the step has run, stores the input hash taken here
 * (before the run) with the new outputs' hashes.
 *
 * @param {string} root - the repository root
 * @param {{ name: string, inputs: string[], outputs: string[] }} step
 * @returns {{ upToDate: boolean, record(): void }}
 */
export function inspectStep(root, step) {
  const inputs = hashInputs(root, step);
  const stamp = readStamp(root, step);
  const upToDate =
    stamp?.inputs === inputs &&
    step.outputs.every((output) => {
      const recorded = stamp.outputs?.[output];
      return recorded !== undefined && recorded === hashFile(path.join(root, output));
    });
  return {
    upToDate,
    record() {
      const outputs = {};
      for (const output of step.outputs) outputs[output] = hashFile(path.join(root, output));
      const file = stampFile(root, step);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, `${JSON.stringify({ inputs, outputs }, null, 2)}\n`);
    },
  };
}

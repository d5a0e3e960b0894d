/**
 * Fencing: once the database file at the configured path is deleted or
 * replaced, this process is no longer writing the file everyone else reads,
 * so every write fails as `replaced` (the writer checks the file's identity
 * in its maintenance rounds).
 */
import fs from "node:fs";
import { post } from "./worker-answers.js";
import { openedFile } from "./worker-connection.js";
import { options } from "./worker-context.js";

/** Why writes are fenced (the file was deleted or replaced), or null. */
let fenced: string | null = null;

/** Whether writes are fenced. */
export function isFenced(): boolean {
  return fenced !== null;
}

/** Answers request `id` as fenced (`replaced`) without running it. */
export function fencedFailure(id: number): void {
  post({
    id,
    ok: false,
    failure: { kind: "replaced", detail: `${fenced ?? "file replaced"} (${options.file})` },
  });
}

/** Fences writes (and reports `replaced`) when the file at the path is not the file opened. */
export function checkFileIdentity(): void {
  if (fenced !== null) return;
  let reason: string | null = null;
  try {
    const current = fs.statSync(options.file);
    if (current.ino !== openedFile.ino || current.dev !== openedFile.dev) {
      reason =
        "the database file at the configured path is not the file this process opened (replaced)";
    }
  } catch {
    reason = "the database file at the configured path was deleted";
  }
  if (reason !== null) {
    fenced = reason;
    post({ event: "replaced", detail: `${reason} (${options.file})` });
  }
}

/**
 * How the storage worker answers the main thread: every answer carries the
 * statements executed so far, and an error becomes a storage failure
 * (storage-error.ts) when SQLite's code names one, or a plain error.
 */
import { type StorageFailureData, sqliteFailureKind } from "../storage-error.js";
import { executedStatements } from "./worker-connection.js";
import { options, port } from "./worker-context.js";
import type { WorkerEvent, WorkerResponse } from "./worker-protocol.js";

/** Sends an answer (with the statement count) or an event to the main thread. */
export function post(message: WorkerResponse | WorkerEvent): void {
  if ("id" in message) message.statements = executedStatements();
  port.postMessage(message);
}

function codeOf(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error
    ? String(error.code)
    : undefined;
}

/** The storage failure an error is (full, I/O, locked, …), or undefined for an ordinary error. */
export function failureOf(error: unknown): StorageFailureData | undefined {
  const code = codeOf(error);
  const kind = sqliteFailureKind(code, error instanceof Error ? error.message : "");
  if (kind === undefined) return undefined;
  return {
    kind,
    detail: `${error instanceof Error ? error.message : String(error)} (${options.file})`,
    ...(code === undefined ? {} : { code }),
  };
}

/** The answer of a request that failed with an ordinary (not a storage) error. */
export function errorAnswer(id: number, error: unknown): WorkerResponse {
  const code = codeOf(error);
  return {
    id,
    ok: false,
    error: {
      message: error instanceof Error ? error.message : String(error),
      ...(code === undefined ? {} : { code }),
    },
  };
}

/** Answers request `id` with its error: a storage failure, or a plain error. */
export function answerError(id: number, error: unknown): void {
  const failure = failureOf(error);
  if (failure !== undefined) {
    post({ id, ok: false, failure });
    return;
  }
  post(errorAnswer(id, error));
}

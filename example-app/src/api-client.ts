import type { ErrorType } from "../server/route-types.js";

/**
 * What went wrong with a call to the example server: the route's error
 * `type` (docs/API.md §4.6), or `network` when the server could not be reached or
 * answered without an error body.
 */
export type ApiErrorType = ErrorType | "network";

/** A failed call to one of the example server's routes. */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly type: ApiErrorType,
    /** HTTP status, or undefined when no response came. */
    readonly status: number | undefined,
    message: string,
  ) {
    super(message);
  }
}

const ERROR_TYPES: readonly string[] = ["validation", "config", "provider"];

/** Reads `{ error: { type, message } }` out of a response body, if it is one. */
function errorOf(payload: unknown): { type: ErrorType; message: string } | undefined {
  const error = (payload as { error?: { type?: unknown; message?: unknown } } | undefined)?.error;
  if (typeof error?.type !== "string" || typeof error.message !== "string") return undefined;
  if (!ERROR_TYPES.includes(error.type)) return undefined;
  return { type: error.type as ErrorType, message: error.message };
}

/**
 * Posts JSON to a route of this app's own server (never to the service:
 * the key is on the server) and returns the parsed body.
 *
 * @throws {ApiError} with the route's error type and message, or `network`
 * @throws the `AbortError` of `signal` when the call was cancelled
 * @example
 * const { text } = await postJson<QuickstartResponse>("/api/quickstart", { prompt: "Hi!" });
 */
export async function postJson<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      ...(signal === undefined ? {} : { signal }),
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiError(
      "network",
      undefined,
      "The example server could not be reached. Is it running?",
    );
  }
  const isJson = response.headers.get("content-type")?.includes("application/json") ?? false;
  const payload: unknown = isJson ? await response.json().catch(() => undefined) : undefined;
  if (response.ok && payload !== undefined) return payload as T;
  const error = errorOf(payload);
  if (error !== undefined) throw new ApiError(error.type, response.status, error.message);
  throw new ApiError(
    "network",
    response.status,
    `The example server answered ${response.status} without an error body. Is it running?`,
  );
}

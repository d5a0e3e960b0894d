import { parseWith } from "@persona-reply/shared";
import type { z } from "zod";
import { isJsonObject } from "./json-body.js";
import { type ErrorCode, ServiceError } from "./service-error.js";

/**
 * Validates a parsed JSON body against a contract schema.
 *
 * @param code - the error code for an invalid body: `unprocessable_request`
 *   (422) on /generate, `invalid_request` (400) on /personify and /completions
 * @throws {ServiceError} naming the first offending field in `param` and the message
 */
export function validateBody<T>(schema: z.ZodType<T>, body: unknown, code: ErrorCode): T {
  if (!isJsonObject(body)) {
    throw new ServiceError(code, "request body must be a JSON object");
  }
  const outcome = parseWith(schema, body);
  if (!outcome.ok) {
    throw new ServiceError(code, outcome.problem.message, { param: outcome.problem.param });
  }
  return outcome.value;
}

/**
 * An AbortSignal that fires when the client closes the connection before the
 * response is written, so upstream work stops with it.
 */
export function clientGoneSignal(response: {
  on(event: "close", listener: () => void): unknown;
  writableFinished: boolean;
}): AbortSignal {
  const controller = new AbortController();
  response.on("close", () => {
    if (!response.writableFinished) controller.abort();
  });
  return controller.signal;
}

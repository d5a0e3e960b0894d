import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** What is known about the request being served, wherever its code runs. */
export interface RequestContext {
  /** The request's ID: the client's `x-request-id` when valid, else a generated UUID. */
  requestId: string;
}

/** Client-sent request IDs accepted as they are: word characters, `.`, `:` and `-`, 1–128 long. */
export const REQUEST_ID_PATTERN = /^[\w.:-]{1,128}$/u;

/** Name of the request and response header that carries the request ID. */
export const REQUEST_ID_HEADER = "x-request-id";

/**
 * The request context of the running code. Every log line written while a
 * request is served carries its ID through this store (see createLogger's
 * mixin), including lines of code that only knows the process-wide logger
 * (billing, providers, the error handler). Body parsers bind their
 * callbacks to the async context (raw-body, on-finished), so the store
 * survives parsing.
 */
export const requestContext = new AsyncLocalStorage<RequestContext>();

/**
 * The request ID to use for a request: the client's `x-request-id` when it
 * is a single value matching {@link REQUEST_ID_PATTERN}, otherwise a fresh
 * UUID (so a client cannot inject log syntax or huge values).
 */
export function requestIdFor(request: Pick<IncomingMessage, "headers">): string {
  const sent = request.headers[REQUEST_ID_HEADER];
  return typeof sent === "string" && REQUEST_ID_PATTERN.test(sent) ? sent : randomUUID();
}

/** The request ID of the running code, or undefined outside a request. */
export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}

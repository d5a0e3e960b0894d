import type { PersonifyResponse as ServicePersonifyResponse } from "@persona-reply/shared";
/**
 * Response bodies of the example app's routes (docs/API.md §4.6), shared by the
 * server and the front end (type-only imports; nothing here runs).
 */

/**
 * `POST /api/quickstart` → `{ text, model }` (docs/API.md §4.6), plus `chunks`:
 * the text split into pieces by the service (`choices[0].chunks`, an extra
 * field of its completions response, docs/API.md §4.3).
 */
export interface QuickstartResponse {
  /** The persona's reply (`choices[0].text`). */
  text: string;
  /** The persona ID that answered (the completion's `model`). */
  model: string;
  /** The reply split into message-sized pieces. */
  chunks: string[];
}

/**
 * `POST /api/chat` → `{ reply, model }` (docs/API.md §4.6), plus `chunks`, the
 * reply split into pieces by the service, which the page shows as bubbles.
 */
export interface ChatResponse {
  /** The persona's reply to the last user message. */
  reply: string;
  /** The persona ID that answered. */
  model: string;
  /** The reply split into message-sized pieces. */
  chunks: string[];
}

/**
 * `POST /api/personify` → `{ personified, chunks, model }` (docs/API.md §4.6): the
 * service's /personify response (shared's `PersonifyResponse`) and the persona ID used.
 */
export interface PersonifyResponse extends ServicePersonifyResponse {
  /** The persona ID used. */
  model: string;
}

export type { ErrorBody, ErrorType } from "./errors.js";

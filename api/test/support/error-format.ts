import { completionErrorBodySchema } from "@persona-reply/shared";
import { expect } from "vitest";

/**
 * How a route family writes its errors (docs/API.md §7): `native` —
 * /generate and /personify, plain text (JSON for 429 and 5xx); `completions`
 * — the completions error object; `json` — `{ error: { type, message } }`
 * (the playground's fetch endpoints); `html` — an error page.
 */
export type ErrorFormat = "native" | "completions" | "json" | "html";

/**
 * Checks that an error answer is in its route family's format.
 *
 * @param answer - status, content type and body text of the answer
 * @param context - said in a failure message
 */
export function expectErrorFormat(
  format: ErrorFormat,
  answer: { status: number; contentType: string; text: string },
  context: string,
): void {
  const { contentType, text } = answer;
  if (format === "html") {
    expect(contentType, context).toMatch(/^text\/html/u);
    expect(text, context).toContain("<!doctype html>");
  } else if (format === "completions") {
    expect(contentType, context).toMatch(/^application\/json/u);
    completionErrorBodySchema.parse(JSON.parse(text));
  } else if (format === "json" || answer.status === 429 || answer.status >= 500) {
    expect(contentType, context).toMatch(/^application\/json/u);
    const body = JSON.parse(text) as { error: { type: unknown; message: unknown } };
    expect(typeof body.error.type, context).toBe("string");
    expect(typeof body.error.message, context).toBe("string");
  } else {
    expect(contentType, context).toMatch(/^text\/plain/u);
    expect(text.trim(), context).not.toBe("");
  }
}

import type { Response } from "express";

/**
 * How an endpoint writes errors: `native` for /generate and /personify
 * (plain text or JSON by error class), `completions` for the completions
 * error object, `json` for every other route.
 */
export type ErrorStyle = "native" | "completions" | "json";

/** Marks the response's error style; set by each router before its handlers. */
export function setErrorStyle(response: Response, style: ErrorStyle): void {
  response.locals.errorStyle = style;
}

/** The error style of a response, `json` when no router set one. */
export function errorStyleOf(response: Response): ErrorStyle {
  const style = response.locals.errorStyle as ErrorStyle | undefined;
  return style ?? "json";
}

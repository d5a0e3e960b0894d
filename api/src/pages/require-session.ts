import type { Request, Response } from "express";
import { PageError } from "./page-errors.js";
import type { PageSession } from "./page-session.js";
import { pageLocals } from "./web-support.js";

/**
 * The signed-in session of a page request. A GET without one is sent to the
 * sign-in page, which brings the person back here afterwards; other methods
 * get a 401.
 *
 * @returns the session, or undefined when the response was already sent (redirect)
 * @throws {PageError} 401 for a state-changing request without a session
 */
export function requireSession(request: Request, response: Response): PageSession | undefined {
  const session = pageLocals(response).session;
  if (session !== undefined) return session;
  if (request.method === "GET" || request.method === "HEAD") {
    const returnTo = encodeURIComponent(request.originalUrl);
    response.redirect(303, `/sign-in?return_to=${returnTo}`);
    return undefined;
  }
  throw new PageError(401, "You are not signed in (or your session ended). Sign in again.");
}

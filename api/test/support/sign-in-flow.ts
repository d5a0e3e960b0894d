import { expect } from "vitest";
import { type CaughtMail, signInLinkIn } from "../../../test-support/mail-catcher.js";
import { hiddenField, type PageClient } from "./page-client.js";

/**
 * Asks for a sign-in link as a browser does: the form (for its CSRF token and
 * hidden `return_to`), then `POST /sign-in`.
 *
 * @param returnTo - put in the form's URL (`/sign-in?return_to=…`), as the pages do
 */
export async function requestLink(
  client: PageClient,
  email: string,
  returnTo?: string,
): Promise<Response> {
  const form = await client.page(
    returnTo === undefined ? "/sign-in" : `/sign-in?return_to=${encodeURIComponent(returnTo)}`,
  );
  const fields: Record<string, string> = { _csrf: form.csrf, email };
  const returnField = hiddenField(form.html, "return_to");
  if (returnField !== undefined) fields.return_to = returnField;
  return client.postForm("/sign-in", fields);
}

/**
 * Follows a mailed sign-in link: its confirm page (which must be on the
 * client's origin and name the address), then the Continue button.
 *
 * @returns the answer of `POST /sign-in/verify` (303 to the return path when it worked)
 */
export async function followLink(client: PageClient, caught: CaughtMail): Promise<Response> {
  const link = new URL(signInLinkIn(caught));
  expect(link.origin).toBe(client.baseUrl);
  const confirm = await client.page(link.pathname + link.search);
  expect(confirm.status).toBe(200);
  for (const address of caught.to) expect(confirm.html).toContain(address);
  return client.postForm("/sign-in/verify", {
    _csrf: confirm.csrf,
    token: hiddenField(confirm.html, "token") ?? "",
  });
}

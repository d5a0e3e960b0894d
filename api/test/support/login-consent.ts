import { randomBytes } from "node:crypto";
import { LOGIN_PATH } from "@persona-reply/shared";
import { AllowedEmailStore } from "../../src/playground/allowed-email-store.js";
import { SessionStore } from "../../src/playground/session-store.js";
import { csrfIn, hiddenField, PageClient } from "./page-client.js";
import type { TestService } from "./test-service.js";

/** A fresh `state` of the browser login: what a tool makes for each login (docs/API.md §4.5). */
export function freshLoginState(): string {
  return randomBytes(24).toString("base64url");
}

/** `GET /api/persona/cli/login` with its query parameters (undefined: left out). */
export function loginPath(values: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(values))
    if (value !== undefined) query.set(name, value);
  return `${LOGIN_PATH}?${query}`;
}

/**
 * A browser signed in to the test account as `owner@example.com` (the
 * address allowed for that account, as the operator sets it).
 */
export async function signedInClient(service: TestService): Promise<PageClient> {
  await new AllowedEmailStore(service.services.database).allow(
    "owner@example.com",
    service.accountId,
  );
  const sessions = new SessionStore(service.services.database, 3_600_000);
  const { token } = await sessions.create({
    accountId: service.accountId,
    email: "owner@example.com",
    userAgent: "test",
  });
  const client = new PageClient(service.url);
  client.cookies.set("persona_session", token);
  return client;
}

/** The consent page's form for one decision, as the browser would post it. */
export async function consentFormOf(
  client: PageClient,
  url: string,
  decision: "approve" | "deny",
): Promise<Record<string, string>> {
  const { html } = await client.page(url);
  const form: Record<string, string> = { _csrf: csrfIn(html), decision };
  for (const name of ["state", "redirect_uri", "recipient_public_key_jwk", "name", "source"]) {
    const value = hiddenField(html, name);
    if (value !== undefined) form[name] = value;
  }
  return form;
}

import { LOGIN_PATH } from "@persona-reply/shared";
import { exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MailCatcher, startMailCatcher } from "../../test-support/mail-catcher.js";
import { type ApiFixture, startApi } from "../../test-support/spawn-service.js";
import { PageClient } from "./support/page-client.js";
import { followLink, requestLink } from "./support/sign-in-flow.js";

// The holes an outside review found in the signed-in pages, against
// the real service process, a real SMTP server and the operator CLI. Each
// scenario connects from its own loopback address (127.0.0.x), so the
// per-client sign-in limit of one does not spend another's.

let mail: MailCatcher;
let api: ApiFixture;

beforeAll(async () => {
  mail = await startMailCatcher();
  api = await startApi({
    PERSONA_SMTP_URL: mail.url,
    PERSONA_MAIL_FROM: "Persona Reply <noreply@persona.test>",
  });
});
afterAll(async () => {
  await api?.stop();
  await mail?.close();
});

/** A browser as the service sees one: its own peer address on the loopback network. */
function browserAt(localAddress: string): PageClient {
  return new PageClient(api.baseUrl, { localAddress });
}

/** Signs `client` in as `email` through the mailed link; returns the final redirect. */
async function signIn(client: PageClient, email: string, returnTo?: string): Promise<Response> {
  expect((await requestLink(client, email, returnTo)).status).toBe(200);
  return followLink(client, await mail.nextMailTo(email));
}

describe("return paths after sign-in stay on the site (open redirect)", () => {
  const OFF_SITE = [
    "/.//evil.example/x",
    "/a/..//evil.example",
    "/%2e//evil.example",
    "/x/../\\evil.example",
    "/.\\/evil.example",
    "//evil.example/",
    "https://evil.example/",
  ];

  it("a signed-in GET /sign-in?return_to=… goes to the account page, never to another host", async () => {
    api.admin("email", "allow", "ada@example.com", "--account", api.accountId);
    const client = browserAt("127.0.0.2");
    expect((await signIn(client, "ada@example.com")).headers.get("location")).toBe("/account");
    for (const returnTo of OFF_SITE) {
      const answer = await client.request(`/sign-in?return_to=${encodeURIComponent(returnTo)}`);
      expect(answer.status, returnTo).toBe(303);
      expect(answer.headers.get("location"), returnTo).toBe("/account");
    }
    const local = await client.request(`/sign-in?return_to=${encodeURIComponent("/a/../keys")}`);
    expect(local.headers.get("location")).toBe("/keys");
  });

  it("a return path posted with the form, kept with the link, is checked when the link is used", async () => {
    api.admin("email", "allow", "bea@example.com", "--account", api.accountId);
    for (const [index, returnTo] of ["/%2e//evil.example", "/x/../\\evil.example"].entries()) {
      const client = browserAt(`127.0.1.${index + 1}`);
      const form = await client.page("/sign-in");
      // A forged form: the page itself never puts an unsafe path in its hidden field.
      const asked = await client.postForm("/sign-in", {
        _csrf: form.csrf,
        email: "bea@example.com",
        return_to: returnTo,
      });
      expect(asked.status).toBe(200);
      const signedIn = await followLink(client, await mail.nextMailTo("bea@example.com"));
      expect(signedIn.status).toBe(303);
      expect(signedIn.headers.get("location"), returnTo).toBe("/account");
    }
  });

  it("the browser login comes back to its consent page, and its state never reaches the log", async () => {
    api.admin("email", "allow", "cy@example.com", "--account", api.accountId);
    const recipient = await generateKeyPair("RSA-OAEP-256", { modulusLength: 2048 });
    const jwk = Buffer.from(JSON.stringify(await exportJWK(recipient.publicKey))).toString(
      "base64url",
    );
    const state = "Zq9-login-state-never-logged_0123456789abc";
    const query = new URLSearchParams({
      state,
      redirect_uri: "http://127.0.0.1:53682/callback",
      recipient_public_key_jwk: jwk,
      source: "cli",
    });
    const loginPath = `${LOGIN_PATH}?${query}`;
    const client = browserAt("127.0.2.1");
    const toSignIn = await client.request(loginPath);
    expect(toSignIn.status).toBe(303);
    const signInPath = toSignIn.headers.get("location") ?? "";
    const returnTo = new URL(signInPath, api.baseUrl).searchParams.get("return_to") ?? "";
    expect(returnTo).toBe(loginPath);
    const signedIn = await signIn(client, "cy@example.com", returnTo);
    expect(signedIn.headers.get("location")).toBe(loginPath);
    const consent = await client.page(loginPath);
    expect(consent.status).toBe(200);
    expect(consent.html).toContain('id="approve"');

    // Request log lines are written after the answer: wait for the last one, then look.
    await expect.poll(() => api.output()).toContain(`${LOGIN_PATH}?state=[redacted]`);
    await expect.poll(() => api.output()).toContain("%3Fstate%3D[redacted]");
    expect(api.output()).not.toContain(state);
  });
});

describe("moving an address to another account (persona-admin email allow)", () => {
  it("ends its sessions; signing in again opens the new account", async () => {
    const email = "moved@example.com";
    api.admin("email", "allow", email, "--account", api.accountId);
    const [demoKey] = JSON.parse(api.admin("key", "list", "--account", api.accountId)) as Array<{
      masked: string;
    }>;
    const client = browserAt("127.0.3.1");
    await signIn(client, email);
    const before = await client.page("/keys");
    expect(before.status).toBe(200);
    expect(before.html).toContain(demoKey?.masked);

    // Allowing it again for the same account changes nothing.
    expect(api.admin("email", "allow", email, "--account", api.accountId)).toContain("may sign in");
    expect((await client.page("/keys")).status).toBe(200);

    const other = api.admin("account", "create", "Other customer");
    expect(api.admin("email", "allow", email, "--account", other)).toBe(
      `${email} moved from account ${api.accountId} to account ${other}; 1 session(s) ended`,
    );
    for (const path of ["/account", "/keys", "/playground", "/sessions"]) {
      const stale = await client.request(path);
      expect(stale.status, path).toBe(303);
      expect(stale.headers.get("location"), path).toMatch(/^\/sign-in\?return_to=/u);
    }
    const createKey = await client.postForm("/keys", { _csrf: before.csrf, name: "after move" });
    expect([401, 403]).toContain(createKey.status);
    expect(api.admin("key", "list", "--account", api.accountId)).not.toContain("after move");

    const again = browserAt("127.0.3.2");
    await signIn(again, email);
    const after = await again.page("/keys");
    expect(after.status).toBe(200);
    expect(after.html).not.toContain(demoKey?.masked);
  });
});

describe("sign-in limits: a stranger cannot lock an address out", () => {
  it("counts an address's requests per client, so its owner still gets a link", async () => {
    const email = "dee@example.com";
    api.admin("email", "allow", email, "--account", api.accountId);
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 6; attempt++) {
      statuses.push((await requestLink(browserAt("127.0.4.1"), email)).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    for (let sent = 0; sent < 5; sent++) await mail.nextMailTo(email);

    const owner = browserAt("127.0.4.2");
    const signedIn = await signIn(owner, email);
    expect(signedIn.status).toBe(303);
    expect((await owner.page("/keys")).status).toBe(200);
  });
});

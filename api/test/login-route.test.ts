import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { LOGIN_PATH } from "@persona-reply/shared";
import { compactDecrypt, exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  consentFormOf,
  freshLoginState,
  loginPath,
  signedInClient,
} from "./support/login-consent.js";
import { hiddenField, PageClient } from "./support/page-client.js";
import { startTestService, type TestService } from "./support/test-service.js";

let service: TestService;
let recipient: Awaited<ReturnType<typeof generateKeyPair>>;
let encodedJwk: string;
const state = "q8Jd1-Xc2VbN3mZ4aS5dF6gH7jK8lP9o0iU_yT";
const callback = "http://127.0.0.1:53682/callback";

const encode = (jwk: object) => Buffer.from(JSON.stringify(jwk)).toString("base64url");

beforeAll(async () => {
  service = await startTestService();
  recipient = await generateKeyPair("RSA-OAEP-256", { modulusLength: 2048 });
  encodedJwk = encode(await exportJWK(recipient.publicKey));
});
afterAll(() => service.stop());

function loginUrl(overrides: Record<string, string | undefined> = {}): string {
  return loginPath({
    state,
    redirect_uri: callback,
    recipient_public_key_jwk: encodedJwk,
    name: "laptop CLI",
    source: "cli",
    ...overrides,
  });
}

const signedIn = () => signedInClient(service);

async function keyCount(): Promise<number> {
  return (await service.services.keys.list(service.accountId)).length;
}

const rsa = (bits: number) => generateKeyPairSync("rsa", { modulusLength: bits });
/** A public JWK of `key` with its exponent replaced by `e` (base64url). */
const withExponent = (key: KeyObject, e: string) => ({ ...key.export({ format: "jwk" }), e });

describe(`GET ${LOGIN_PATH}: every bad parameter is a 400 page, never a redirect`, () => {
  const cases: Array<[string, Record<string, string | undefined>, string]> = [
    ["missing state", { state: undefined }, "state"],
    ["an https:// redirect", { redirect_uri: "https://127.0.0.1:5000/cb" }, "redirect_uri"],
    ["a look-alike host", { redirect_uri: "http://127.0.0.1.evil.com:5000/cb" }, "redirect_uri"],
    [
      "a username before evil.com",
      { redirect_uri: "http://localhost@evil.com/cb" },
      "redirect_uri",
    ],
    ["a fragment", { redirect_uri: "http://evil.com#@127.0.0.1/" }, "redirect_uri"],
    ["no port", { redirect_uri: "http://127.0.0.1/cb" }, "redirect_uri"],
    [
      "a private JWK",
      { recipient_public_key_jwk: encode(rsa(2048).privateKey.export({ format: "jwk" })) },
      "recipient_public_key_jwk",
    ],
    [
      "a 1024-bit key",
      { recipient_public_key_jwk: encode(rsa(1024).publicKey.export({ format: "jwk" })) },
      "recipient_public_key_jwk",
    ],
    // With e = 1 "encryption" is the identity, so the key in the
    // callback URL could be read without any private key; e = 3 is refused too.
    [
      "an exponent e = 1",
      { recipient_public_key_jwk: encode(withExponent(rsa(2048).publicKey, "AQ")) },
      "recipient_public_key_jwk",
    ],
    [
      "an exponent e = 3",
      { recipient_public_key_jwk: encode(withExponent(rsa(2048).publicKey, "Aw")) },
      "recipient_public_key_jwk",
    ],
    [
      "an exponent e = 65539",
      { recipient_public_key_jwk: encode(withExponent(rsa(2048).publicKey, "AQAD")) },
      "recipient_public_key_jwk",
    ],
    [
      "a modulus over 8192 bits",
      {
        recipient_public_key_jwk: encode({
          kty: "RSA",
          n: Buffer.alloc(1025, 0xff).toString("base64url"),
          e: "AQAB",
        }),
      },
      "recipient_public_key_jwk",
    ],
    [
      "a non-RSA key",
      {
        recipient_public_key_jwk: encode(
          generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey.export({ format: "jwk" }),
        ),
      },
      "recipient_public_key_jwk",
    ],
    ["a source outside the list", { source: "browser_extension" }, "source"],
  ];

  it.each(cases)("%s", async (_case, overrides, parameter) => {
    const before = await keyCount();
    for (const client of [new PageClient(service.url), await signedIn()]) {
      const response = await client.request(loginUrl(overrides));
      expect(response.status).toBe(400);
      expect(response.headers.get("location")).toBeNull();
      expect(response.headers.get("content-type")).toMatch(/^text\/html/u);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      const html = await response.text();
      expect(html).toContain(`parameter ${parameter} `);
    }
    expect(await keyCount()).toBe(before);
  });
});

describe(`GET ${LOGIN_PATH}: sign-in and consent`, () => {
  it("sends a visitor who is not signed in to the sign-in page, and back afterwards", async () => {
    const url = loginUrl();
    const response = await new PageClient(service.url).request(url);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`/sign-in?return_to=${encodeURIComponent(url)}`);
  });

  it("says on the sign-in page that a tool waits for approval, named by its source", async () => {
    for (const [source, words] of [
      ["cli", "the persona command-line tool"],
      ["codex", "the Codex plugin"],
      ["claude_code", "the Claude Code plugin"],
      [undefined, "your command-line tool"],
    ] as const) {
      const client = new PageClient(service.url);
      const redirect = await client.request(loginUrl({ source }));
      const signIn = await client.page(redirect.headers.get("location") ?? "");
      expect(signIn.html).toContain(`Sign in to approve the key for ${words}.`);
      // The page after asking for the link says it again.
      const asked = await client.postForm("/sign-in", {
        _csrf: signIn.csrf,
        email: "someone@example.com",
        return_to: hiddenField(signIn.html, "return_to") ?? "",
      });
      expect(await asked.text()).toContain(`Sign in to approve the key for ${words}.`);
    }
    const plain = await new PageClient(service.url).page("/sign-in?return_to=%2Fkeys");
    expect(plain.html).not.toContain("approve the key");
  });

  it("shows the key name, the source and the callback's host and port, and creates nothing", async () => {
    const before = await keyCount();
    const client = await signedIn();
    const { status, html, response } = await client.page(loginUrl());
    expect(status).toBe(200);
    expect(html).toContain('<td id="key-name">laptop CLI</td>');
    expect(html).toContain("the persona command-line tool");
    expect(html).toContain("<code>127.0.0.1:53682</code>");
    expect(html).toContain('id="approve"');
    expect(html).toContain('id="deny"');
    expect(response.headers.get("content-security-policy")).toContain(
      "form-action 'self' http://127.0.0.1:53682",
    );
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    expect(await keyCount()).toBe(before);
  });
});

describe(`POST ${LOGIN_PATH}: approve and deny`, () => {
  // Each consent is a login of its own: a state answered once is "used".
  const consentForm = (
    client: PageClient,
    decision: "approve" | "deny",
    fresh = freshLoginState(),
  ) => consentFormOf(client, loginUrl({ state: fresh }), decision);

  it("approve creates a key, encrypts it to the caller and redirects with state and encrypted_api_key only", async () => {
    const client = await signedIn();
    const form = await consentForm(client, "approve");
    const before = await keyCount();
    const response = await client.postForm(LOGIN_PATH, form);
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get("location") ?? "");
    expect(location.origin + location.pathname).toBe(callback);
    expect([...location.searchParams.keys()].sort()).toEqual(["encrypted_api_key", "state"]);
    expect(location.searchParams.get("state")).toBe(form.state);
    expect(await keyCount()).toBe(before + 1);

    const { plaintext, protectedHeader } = await compactDecrypt(
      location.searchParams.get("encrypted_api_key") ?? "",
      recipient.privateKey,
    );
    expect(protectedHeader).toEqual({ alg: "RSA-OAEP-256", enc: "A256GCM" });
    const key = new TextDecoder().decode(plaintext);
    expect(key).toMatch(/^prk_[0-9A-Za-z]{38}$/u);
    expect(await response.text()).not.toContain(key);
    const keys = await service.services.keys.list(service.accountId);
    expect(keys.at(-1)).toMatchObject({ name: "laptop CLI", masked: `prk_…${key.slice(-4)}` });

    const generated = await service.post(
      "/api/v1/generate",
      { personaId: service.persona.id, messages: [{ role: "user", content: "Hello!" }] },
      { headers: { "x-api-key": key } },
    );
    expect(generated.status).toBe(200);
  });

  it("deny redirects with state and error=access_denied, and creates nothing", async () => {
    const client = await signedIn();
    const form = await consentForm(client, "deny");
    const before = await keyCount();
    const response = await client.postForm(LOGIN_PATH, form);
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get("location") ?? "");
    expect(Object.fromEntries(location.searchParams)).toEqual({
      state: form.state,
      error: "access_denied",
    });
    expect(await keyCount()).toBe(before);
  });

  it("refuses a POST without the CSRF token, a changed callback, or no session", async () => {
    const client = await signedIn();
    const form = await consentForm(client, "approve");
    const before = await keyCount();

    const noToken = await client.postForm(LOGIN_PATH, { ...form, _csrf: "" });
    expect(noToken.status).toBe(403);
    const forged = await client.postForm(LOGIN_PATH, { ...form, _csrf: `${form._csrf}x` });
    expect(forged.status).toBe(403);

    const changed = await client.postForm(LOGIN_PATH, {
      ...form,
      redirect_uri: "http://evil.example:5000/cb",
    });
    expect(changed.status).toBe(400);
    expect(changed.headers.get("location")).toBeNull();

    const signedOut = new PageClient(service.url);
    const page = await signedOut.page("/sign-in");
    const anonymous = await signedOut.postForm(LOGIN_PATH, { ...form, _csrf: page.csrf });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("location")).toBeNull();

    const undecided = await client.postForm(LOGIN_PATH, { ...form, decision: "maybe" });
    expect(undecided.status).toBe(400);
    expect(await keyCount()).toBe(before);
  });
});

import { randomBytes } from "node:crypto";
import { LOGIN_PATH } from "@persona-reply/shared";
import { exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  consentFormOf,
  freshLoginState,
  loginPath,
  signedInClient,
} from "./support/login-consent.js";
import { PageClient } from "./support/page-client.js";
import { describeEachDialect } from "./support/test-databases.js";
import { startTestService, type TestService } from "./support/test-service.js";

const USED_PAGE = "it was approved or denied already";

await describeEachDialect(`POST ${LOGIN_PATH}: a consent is used once`, (database) => {
  let service: TestService;
  let second: TestService;
  let encodedJwk: string;
  beforeAll(async () => {
    // Two instances on one store, as behind a load balancer (one session secret).
    const environment = {
      PERSONA_DATABASE_URL: database.url,
      PERSONA_SESSION_SECRET: randomBytes(32).toString("hex"),
    };
    service = await startTestService(environment);
    second = await startTestService(environment);
    const recipient = await generateKeyPair("RSA-OAEP-256", { modulusLength: 2048 });
    encodedJwk = Buffer.from(JSON.stringify(await exportJWK(recipient.publicKey))).toString(
      "base64url",
    );
  });
  afterAll(async () => {
    await second?.stop();
    await service?.stop();
  });

  const loginUrl = (state: string) =>
    loginPath({
      state,
      redirect_uri: "http://127.0.0.1:53682/callback",
      recipient_public_key_jwk: encodedJwk,
      source: "cli",
    });
  const activeKeys = async () =>
    (await service.services.keys.list(service.accountId)).filter((key) => key.revokedAt === null)
      .length;
  const expectUsedPage = async (response: Response) => {
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect(response.headers.get("content-type")).toMatch(/^text\/html/u);
    expect(await response.text()).toContain(USED_PAGE);
  };
  const approval = async (client: PageClient) =>
    consentFormOf(client, loginUrl(freshLoginState()), "approve");

  it("a second post of the same approval answers the used page and creates no key", async () => {
    const client = await signedInClient(service);
    const form = await approval(client);
    const before = await activeKeys();
    const first = await client.postForm(LOGIN_PATH, form);
    expect(first.status).toBe(303);
    expect(await activeKeys()).toBe(before + 1);
    await expectUsedPage(await client.postForm(LOGIN_PATH, form));
    expect(await activeKeys()).toBe(before + 1);
    // The consent page itself now says so, and offers nothing to post.
    const again = await client.request(loginUrl(form.state ?? ""));
    await expectUsedPage(again);
  });

  it("two concurrent posts of one approval create exactly one key, on one instance or two", async () => {
    const client = await signedInClient(service);
    // The same browser, talking to the other instance (cookies are per host, not per port).
    const elsewhere = new PageClient(second.url);
    for (const clients of [
      [client, client],
      [client, elsewhere],
    ] as const) {
      const form = await approval(client);
      for (const [name, value] of client.cookies) elsewhere.cookies.set(name, value);
      const before = await activeKeys();
      const answers = await Promise.all(
        clients.map((browser) => browser.postForm(LOGIN_PATH, form)),
      );
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).toEqual([303, 400]);
      await expectUsedPage(answers.find((answer) => answer.status === 400) as Response);
      expect(await activeKeys()).toBe(before + 1);
    }
  });

  it("a denied consent cannot be approved afterwards", async () => {
    const client = await signedInClient(service);
    const state = freshLoginState();
    const deny = await consentFormOf(client, loginUrl(state), "deny");
    const before = await activeKeys();
    expect((await client.postForm(LOGIN_PATH, deny)).status).toBe(303);
    await expectUsedPage(await client.postForm(LOGIN_PATH, { ...deny, decision: "approve" }));
    await expectUsedPage(await client.postForm(LOGIN_PATH, deny));
    expect(await activeKeys()).toBe(before);
  });
});

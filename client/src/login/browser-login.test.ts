import { CompactEncrypt, importJWK } from "jose";
import { describe, expect, it } from "vitest";
import { loginWithBrowser } from "./browser-login.js";
import { BrowserLoginError } from "./login-errors.js";

// loginWithBrowser with its real loopback server; the "browser" is a
// function that plays the service's redirect over real HTTP.

const apiKey = `prk_${"Q7w8E9r0".repeat(4)}Tt5Yy6`;

/** Reads the login URL and answers the callback the way the service would. */
async function serviceAnswer(url: string, change: (query: URLSearchParams) => void = () => {}) {
  const login = new URL(url);
  expect(login.pathname.endsWith("/api/persona/cli/login")).toBe(true);
  const redirect = new URL(login.searchParams.get("redirect_uri") ?? "");
  const jwk = JSON.parse(
    Buffer.from(login.searchParams.get("recipient_public_key_jwk") ?? "", "base64url").toString(),
  );
  const encrypted = await new CompactEncrypt(new TextEncoder().encode(apiKey))
    .setProtectedHeader({ alg: "RSA-OAEP-256", enc: "A256GCM" })
    .encrypt(await importJWK(jwk, "RSA-OAEP-256"));
  redirect.searchParams.set("state", login.searchParams.get("state") ?? "");
  redirect.searchParams.set("encrypted_api_key", encrypted);
  change(redirect.searchParams);
  return redirect;
}

describe("loginWithBrowser", () => {
  it("asks with a fresh state and public key, and returns the decrypted key", async () => {
    let loginUrl = "";
    let browser: Promise<Response> | undefined;
    const progress: number[] = [];
    const result = await loginWithBrowser({
      baseUrl: "http://127.0.0.1:9/prefix/",
      name: "test laptop",
      onUrl: (url) => {
        loginUrl = url;
      },
      onProgress: (waited) => progress.push(waited),
      openBrowser: async (url) => {
        const callback = await serviceAnswer(url);
        // Another path (a browser's favicon request) does not count as the callback.
        expect((await fetch(new URL("/favicon.ico", callback))).status).toBe(404);
        browser = fetch(callback);
      },
    });
    const response = await browser;
    expect(response?.status).toBe(200);
    expect(response?.headers.get("referrer-policy")).toBe("no-referrer");
    const page = (await response?.text()) ?? "";
    expect(result.apiKey === apiKey).toBe(true);
    expect(result.maskedApiKey).toBe(`prk_…${apiKey.slice(-4)}`);
    expect(page).toContain(
      `The persona command-line tool received your new key (prk_…${apiKey.slice(-4)}).`,
    );
    expect(page).toContain("You can close this tab and go back to your terminal.");
    expect(page.includes(apiKey)).toBe(false);
    expect(progress[0]).toBe(0);

    const url = new URL(loginUrl);
    expect(url.origin + url.pathname).toBe("http://127.0.0.1:9/prefix/api/persona/cli/login");
    expect(url.searchParams.get("name")).toBe("test laptop");
    expect(url.searchParams.get("source")).toBe("cli");
    expect(url.searchParams.get("state")).toMatch(/^[\w-]{43}$/u);
    expect(url.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/u);
    const jwk = JSON.parse(
      Buffer.from(url.searchParams.get("recipient_public_key_jwk") ?? "", "base64url").toString(),
    );
    expect(Object.keys(jwk).sort()).toEqual(["alg", "e", "kty", "n", "use"]);
    expect(Buffer.from(jwk.n, "base64url").length * 8).toBe(2048);
  });

  it("names the requester on the last page by its source: Claude Code, Codex", async () => {
    for (const [source, name, place] of [
      ["claude_code", "Claude Code (the Persona Reply plugin)", "Claude Code"],
      ["codex", "Codex (the Persona Reply plugin)", "Codex"],
    ] as const) {
      let browser: Promise<Response> | undefined;
      await loginWithBrowser({
        baseUrl: "http://127.0.0.1:9",
        source,
        openBrowser: async (url) => {
          expect(new URL(url).searchParams.get("source")).toBe(source);
          browser = fetch(await serviceAnswer(url));
        },
      });
      const page = (await (await browser)?.text()) ?? "";
      expect(page).toContain(`${name} received your new key (prk_…${apiKey.slice(-4)}).`);
      expect(page).toContain(`You can close this tab and go back to ${place}.`);
      expect(page).not.toContain("persona tool");
    }
  });

  it("refuses a tampered state, tells the browser so, and returns nothing", async () => {
    let browser: Promise<Response> | undefined;
    const attempt = loginWithBrowser({
      baseUrl: "http://127.0.0.1:9",
      openBrowser: async (url) => {
        const callback = await serviceAnswer(url, (query) =>
          query.set("state", "forged-state-value-1234567890"),
        );
        browser = fetch(callback);
      },
    });
    await expect(attempt).rejects.toMatchObject({ code: "state_mismatch" });
    const response = await browser;
    expect(response?.status).toBe(400);
    expect(await response?.text()).toContain("state mismatch");
  });

  it("gives up after the timeout, and closes its server", async () => {
    let redirectUri = "";
    const attempt = loginWithBrowser({
      baseUrl: "http://127.0.0.1:9",
      openBrowser: false,
      timeoutMs: 200,
      onUrl: (url) => {
        redirectUri = new URL(url).searchParams.get("redirect_uri") ?? "";
      },
    });
    const error = await attempt.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BrowserLoginError);
    expect((error as BrowserLoginError).code).toBe("timeout");
    await expect(fetch(redirectUri)).rejects.toThrow();
  });

  it("can be cancelled", async () => {
    const controller = new AbortController();
    const attempt = loginWithBrowser({
      baseUrl: "http://127.0.0.1:9",
      openBrowser: false,
      signal: controller.signal,
      onUrl: () => controller.abort(),
    });
    await expect(attempt).rejects.toMatchObject({ code: "aborted" });
  });
});

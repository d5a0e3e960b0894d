import { generateKeyPairSync } from "node:crypto";
import { checkRedirectUri } from "@persona-reply/shared";
import { describe, expect, it } from "vitest";
import { checkLoginParameters } from "./login-parameters.js";

function encodeJwk(jwk: object): string {
  return Buffer.from(JSON.stringify(jwk)).toString("base64url");
}

function rsaJwk(bits: number, part: "public" | "private" = "public") {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: bits });
  return (part === "public" ? publicKey : privateKey).export({ format: "jwk" });
}

const publicJwk = encodeJwk(rsaJwk(2048));
const valid = {
  state: "Vb3k9R2mQx7Lp0sT8nYw4cZ1aE6hJ5uFdGiKoMqNrS",
  redirect_uri: "http://127.0.0.1:53682/callback",
  recipient_public_key_jwk: publicJwk,
};

async function problemWith(overrides: Record<string, unknown>, remove: string[] = []) {
  const parameters: Record<string, unknown> = { ...valid, ...overrides };
  for (const name of remove) delete parameters[name];
  const checked = await checkLoginParameters(parameters);
  return checked.ok ? undefined : { parameter: checked.parameter, reason: checked.reason };
}

describe("login route parameters (docs/API.md §4.5): each bad parameter is refused", () => {
  it("missing state", async () => {
    expect(await problemWith({}, ["state"])).toEqual({ parameter: "state", reason: "is required" });
  });

  it.each([
    ["an https:// redirect", "https://127.0.0.1:5000/cb", /http:\/\/ loopback URL, not https:/u],
    ["a look-alike host", "http://127.0.0.1.evil.com:5000/cb", /host must be exactly/u],
    ["a username before the real host", "http://localhost@evil.com/cb", /username or password/u],
    ["a fragment hiding the real host", "http://evil.com#@127.0.0.1/", /fragment/u],
    ["no port", "http://127.0.0.1/cb", /explicit port/u],
  ])("%s", async (_case, redirectUri, reason) => {
    const problem = await problemWith({ redirect_uri: redirectUri });
    expect(problem?.parameter).toBe("redirect_uri");
    expect(problem?.reason).toMatch(reason);
  });

  it("a private JWK", async () => {
    const problem = await problemWith({
      recipient_public_key_jwk: encodeJwk(rsaJwk(2048, "private")),
    });
    expect(problem?.parameter).toBe("recipient_public_key_jwk");
    expect(problem?.reason).toMatch(/private key members \(d, p, q, dp, dq, qi\)/u);
  });

  it("a 1024-bit key", async () => {
    const problem = await problemWith({ recipient_public_key_jwk: encodeJwk(rsaJwk(1024)) });
    expect(problem).toEqual({
      parameter: "recipient_public_key_jwk",
      reason: "must have an RSA modulus of at least 2048 bits, not 1024",
    });
  });

  it("a non-RSA key", async () => {
    const { publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const problem = await problemWith({
      recipient_public_key_jwk: encodeJwk(publicKey.export({ format: "jwk" })),
    });
    expect(problem).toEqual({
      parameter: "recipient_public_key_jwk",
      reason: 'must be an RSA key (kty "RSA"), not "EC"',
    });
  });

  it("a source outside the list", async () => {
    const problem = await problemWith({ source: "vscode" });
    expect(problem).toEqual({
      parameter: "source",
      reason: "must be one of cli, codex, claude_code",
    });
  });
});

describe("login route parameters: further refusals", () => {
  it.each([
    [{ state: "short" }, "state", /16–512 characters/u],
    [{ state: "a b c d e f g h i j k" }, "state", /only the characters/u],
    [{ state: [valid.state, valid.state] }, "state", /given once/u],
    [{}, "redirect_uri", /is required/u, ["redirect_uri"]],
    [{ redirect_uri: "ftp://127.0.0.1:21/x" }, "redirect_uri", /not ftp:/u],
    [{ redirect_uri: "http://127.0.0.1:80/cb" }, "redirect_uri", /explicit port/u],
    [{ redirect_uri: "http://user:pw@127.0.0.1:5000/cb" }, "redirect_uri", /username/u],
    [{ redirect_uri: "http://[::2]:5000/cb" }, "redirect_uri", /host must be exactly/u],
    [{ redirect_uri: "http://0.0.0.0:5000/cb" }, "redirect_uri", /host must be exactly/u],
    [{ redirect_uri: "http://127.0.0.1:5000/c b" }, "redirect_uri", /spaces/u],
    [{ redirect_uri: "/callback" }, "redirect_uri", /absolute URL/u],
    [{}, "recipient_public_key_jwk", /is required/u, ["recipient_public_key_jwk"]],
    [{ recipient_public_key_jwk: "not base64!" }, "recipient_public_key_jwk", /base64url/u],
    [{ recipient_public_key_jwk: "bm90IGpzb24" }, "recipient_public_key_jwk", /JSON/u],
    [{ name: "" }, "name", /must not be empty/u],
    [{ name: "x".repeat(101) }, "name", /at most 100/u],
    [{ name: "bad\u0007name" }, "name", /control characters/u],
    [{ source: "" }, "source", /one of/u],
  ])("%j → %s", async (overrides, parameter, reason, remove: string[] = []) => {
    const problem = await problemWith(overrides, remove);
    expect(problem?.parameter).toBe(parameter);
    expect(problem?.reason).toMatch(reason);
  });

  it("refuses a JWK whose alg or use is not for RSA-OAEP-256 encryption", async () => {
    const jwk = rsaJwk(2048);
    expect(
      (await problemWith({ recipient_public_key_jwk: encodeJwk({ ...jwk, alg: "RS256" }) }))
        ?.reason,
    ).toMatch(/only RSA-OAEP-256/u);
    expect(
      (await problemWith({ recipient_public_key_jwk: encodeJwk({ ...jwk, use: "sig" }) }))?.reason,
    ).toMatch(/must be "enc"/u);
  });
});

describe("login route parameters: accepted", () => {
  it("accepts the three loopback hosts and rebuilds the callback from its parts", async () => {
    for (const [raw, rebuilt] of [
      ["http://127.0.0.1:53682/callback", "http://127.0.0.1:53682/callback"],
      ["http://LOCALHOST:8080/cb?x=1", "http://localhost:8080/cb?x=1"],
      ["http://[::1]:9000", "http://[::1]:9000/"],
    ] as const) {
      const checked = checkRedirectUri(raw);
      expect(checked).toMatchObject({ ok: true, url: rebuilt });
    }
  });

  it("returns the checked values, with name and source", async () => {
    const jwk = rsaJwk(3072);
    const checked = await checkLoginParameters({
      ...valid,
      recipient_public_key_jwk: encodeJwk({ ...jwk, alg: "RSA-OAEP-256", use: "enc" }),
      name: "  laptop  ",
      source: "claude_code",
    });
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.value).toMatchObject({
      state: valid.state,
      redirectUri: "http://127.0.0.1:53682/callback",
      callbackOrigin: "http://127.0.0.1:53682",
      callbackHostPort: "127.0.0.1:53682",
      name: "laptop",
      source: "claude_code",
    });
    expect(checked.value.recipient.modulusBits).toBe(3072);
    expect(checked.value.recipient.jwk).toEqual({ kty: "RSA", n: jwk.n, e: jwk.e });
  });
});

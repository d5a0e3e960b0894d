import { CompactEncrypt, type CryptoKey, generateKeyPair } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { BrowserLoginError } from "./login-errors.js";
import { readCallback } from "./read-callback.js";

// The service's side is played with jose exactly as the login route does it
// (api/src/login/encrypt-api-key.ts): compact JWE, RSA-OAEP-256 + A256GCM.

const state = "kX1_p2Yt3Rz4Qa5Wb6Ec7Vd8Uf9Tg0Sh-Ri1Oj2Nk3M";
let keys: { publicKey: CryptoKey; privateKey: CryptoKey };
const apiKey = `prk_${"A1b2C3d4".repeat(4)}Zz9Yy8`;

beforeAll(async () => {
  keys = await generateKeyPair("RSA-OAEP-256", { modulusLength: 2048 });
});

function encrypt(value: string, alg = "RSA-OAEP-256", key = keys.publicKey) {
  return new CompactEncrypt(new TextEncoder().encode(value))
    .setProtectedHeader({ alg, enc: "A256GCM" })
    .encrypt(key);
}

async function failure(query: Record<string, string>): Promise<BrowserLoginError> {
  const error = await readCallback(new URLSearchParams(query), state, keys.privateKey).catch(
    (caught: unknown) => caught,
  );
  if (!(error instanceof BrowserLoginError)) throw new Error("expected a BrowserLoginError");
  return error;
}

describe("readCallback", () => {
  it("decrypts the key sent with the right state", async () => {
    const query = new URLSearchParams({ state, encrypted_api_key: await encrypt(apiKey) });
    expect((await readCallback(query, state, keys.privateKey)) === apiKey).toBe(true);
  });

  it("refuses a tampered, missing or doubled state before looking at the key", async () => {
    const encrypted = await encrypt(apiKey);
    const tampered = `${state.slice(0, -1)}N`;
    expect((await failure({ state: tampered, encrypted_api_key: encrypted })).code).toBe(
      "state_mismatch",
    );
    expect((await failure({ encrypted_api_key: encrypted })).code).toBe("state_mismatch");
    const doubled = new URLSearchParams([
      ["state", state],
      ["state", state],
      ["encrypted_api_key", encrypted],
    ]);
    await expect(readCallback(doubled, state, keys.privateKey)).rejects.toMatchObject({
      code: "state_mismatch",
    });
  });

  it("reports a denial", async () => {
    const error = await failure({ state, error: "access_denied" });
    expect(error.code).toBe("denied");
    expect(error.message).toMatch(/denied in the browser/u);
  });

  it("refuses a key encrypted to someone else, with another algorithm, or tampered", async () => {
    const other = await generateKeyPair("RSA-OAEP-256", { modulusLength: 2048 });
    expect(
      (
        await failure({
          state,
          encrypted_api_key: await encrypt(apiKey, "RSA-OAEP-256", other.publicKey),
        })
      ).code,
    ).toBe("invalid_response");
    const oaep1 = await generateKeyPair("RSA-OAEP", { modulusLength: 2048 });
    expect(
      (
        await failure({
          state,
          encrypted_api_key: await encrypt(apiKey, "RSA-OAEP", oaep1.publicKey),
        })
      ).code,
    ).toBe("invalid_response");
    const parts = (await encrypt(apiKey)).split(".");
    parts[3] = `${parts[3]?.slice(0, -2)}AA`;
    expect((await failure({ state, encrypted_api_key: parts.join(".") })).code).toBe(
      "invalid_response",
    );
    expect((await failure({ state })).code).toBe("invalid_response");
  });

  it("refuses a decrypted value that is not a key", async () => {
    expect((await failure({ state, encrypted_api_key: await encrypt("two words") })).code).toBe(
      "invalid_response",
    );
  });
});

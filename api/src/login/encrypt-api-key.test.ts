import { compactDecrypt, decodeProtectedHeader, exportJWK, generateKeyPair } from "jose";
import { describe, expect, it } from "vitest";
import { generateApiKey } from "../keys/api-key.js";
import { encryptApiKey } from "./encrypt-api-key.js";
import { readRecipientKey } from "./recipient-key.js";

describe("encryptApiKey (compact JWE, RSA-OAEP-256 + A256GCM)", () => {
  it("round-trips a key through the caller's public JWK and private key", async () => {
    const { publicKey, privateKey } = await generateKeyPair("RSA-OAEP-256", {
      modulusLength: 2048,
    });
    const encoded = Buffer.from(JSON.stringify(await exportJWK(publicKey))).toString("base64url");
    const recipient = await readRecipientKey(encoded);
    if (!recipient.ok) throw new Error(recipient.reason);
    const apiKey = generateApiKey();
    const jwe = await encryptApiKey(apiKey, recipient.value.key);

    expect(jwe.split(".")).toHaveLength(5);
    expect(jwe).not.toContain(apiKey);
    expect(decodeProtectedHeader(jwe)).toEqual({ alg: "RSA-OAEP-256", enc: "A256GCM" });
    const { plaintext } = await compactDecrypt(jwe, privateKey, {
      keyManagementAlgorithms: ["RSA-OAEP-256"],
      contentEncryptionAlgorithms: ["A256GCM"],
    });
    expect(new TextDecoder().decode(plaintext) === apiKey).toBe(true);
  });

  it("cannot be read with another private key, nor after tampering", async () => {
    const mine = await generateKeyPair("RSA-OAEP-256", { modulusLength: 2048 });
    const other = await generateKeyPair("RSA-OAEP-256", { modulusLength: 2048 });
    const jwe = await encryptApiKey(generateApiKey(), mine.publicKey);
    await expect(compactDecrypt(jwe, other.privateKey)).rejects.toThrow();
    const parts = jwe.split(".");
    const ciphertext = Buffer.from(parts[3] ?? "", "base64url");
    ciphertext[0] = (ciphertext[0] ?? 0) ^ 1;
    parts[3] = ciphertext.toString("base64url");
    await expect(compactDecrypt(parts.join("."), mine.privateKey)).rejects.toThrow();
  });
});

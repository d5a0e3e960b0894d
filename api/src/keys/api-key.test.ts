import { describe, expect, it } from "vitest";
import { checkApiKeyShape, generateApiKey, hashApiKey, maskApiKey } from "./api-key.js";

describe("API keys", () => {
  it("have the prk_ prefix, 42 characters and a valid checksum", () => {
    const key = generateApiKey();
    expect(key).toMatch(/^prk_[0-9A-Za-z]{38}$/u);
    expect(checkApiKeyShape(key)).toBe("valid");
  });

  it("are unique", () => {
    const keys = new Set(Array.from({ length: 1_000 }, generateApiKey));
    expect(keys.size).toBe(1_000);
  });

  it("tell a one-character typo apart from a malformed string", () => {
    const key = generateApiKey();
    const index = 10;
    const replacement = key[index] === "x" ? "y" : "x";
    const typo = key.slice(0, index) + replacement + key.slice(index + 1);
    expect(checkApiKeyShape(typo)).toBe("checksum_mismatch");
    expect(checkApiKeyShape(key.slice(0, -1))).toBe("malformed");
    expect(checkApiKeyShape(`sk_${key.slice(4)}`)).toBe("malformed");
  });

  it("hash to 64 hex characters and mask to prefix and last four", () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/u);
    expect(hashApiKey(key)).not.toContain(key.slice(4, 20));
    expect(maskApiKey(key)).toBe(`prk_…${key.slice(-4)}`);
  });
});

import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../errors/client-errors.js";
import { normalizeBaseUrl } from "./base-url.js";
import { maskApiKey, redactSecrets } from "./mask-api-key.js";

describe("normalizeBaseUrl (docs/API.md §4.4: the site origin, without /api/v1)", () => {
  it("keeps origins and proxy path prefixes, dropping trailing slashes", () => {
    expect(normalizeBaseUrl("https://persona.example.com/")).toBe("https://persona.example.com");
    expect(normalizeBaseUrl(" http://127.0.0.1:8787 ")).toBe("http://127.0.0.1:8787");
    expect(normalizeBaseUrl("https://example.com/persona//")).toBe("https://example.com/persona");
  });

  it("refuses /api/v1, other schemes, credentials, queries and non-URLs", () => {
    const refused: Array<[string, RegExp]> = [
      ["https://example.com/api/v1", /without \/api\/v1.*use https:\/\/example\.com$/u],
      ["https://example.com/proxy/API/V1/", /use https:\/\/example\.com\/proxy$/u],
      ["ftp://example.com", /must be an http or https URL, not ftp/u],
      ["https://user:secret@example.com", /must not contain a user name or password/u],
      ["https://example.com/?a=1", /must not contain a query or fragment/u],
      ["example.com", /is not a URL: "example\.com"/u],
    ];
    for (const [value, message] of refused) {
      expect(() => normalizeBaseUrl(value)).toThrow(ConfigurationError);
      expect(() => normalizeBaseUrl(value)).toThrow(message);
    }
    expect(() => normalizeBaseUrl("https://user:secret@example.com")).not.toThrow(/secret/u);
  });
});

describe("maskApiKey", () => {
  it("shows the prefix and the last four only", () => {
    expect(maskApiKey(`prk_${"4fGq".repeat(8)}abcd`)).toBe("prk_…abcd");
    expect(maskApiKey("no-prefix-key-1234567890wxyz")).toBe("…wxyz");
    expect(maskApiKey("prk_short")).toBe("…");
  });

  it("is applied by redactSecrets to given secrets and key-shaped text", () => {
    expect(redactSecrets("a custom-secret-value-9876 b", ["custom-secret-value-9876"])).toBe(
      "a …9876 b",
    );
    expect(redactSecrets(`see prk_${"ABCD".repeat(5)}1234 here`)).toBe("see prk_…1234 here");
    expect(redactSecrets("nothing to hide")).toBe("nothing to hide");
  });
});

import { describe, expect, it } from "vitest";
import { createBearerToken, readBearerToken } from "./bearer-token.js";

describe("createBearerToken", () => {
  it("makes 43 base64url characters (256 bits), different each time", () => {
    const tokens = new Set(Array.from({ length: 20 }, () => createBearerToken()));
    expect(tokens.size).toBe(20);
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/u);
  });
});

describe("readBearerToken", () => {
  const token = createBearerToken();

  it("accepts the token after the Bearer scheme, in any case", () => {
    expect(readBearerToken(`Bearer ${token}`, token)).toBe("valid");
    expect(readBearerToken(`bearer ${token}`, token)).toBe("valid");
  });

  it("tells a missing credential from a wrong one", () => {
    for (const header of [undefined, "", "Bearer", "Bearer ", `Basic ${token}`, token]) {
      expect(readBearerToken(header, token), String(header)).toBe("missing");
    }
    for (const header of [
      `Bearer ${token}x`,
      `Bearer ${token.slice(1)}`,
      `Bearer ${createBearerToken()}`,
      `Bearer ${token} extra`,
    ]) {
      expect(readBearerToken(header, token), header).not.toBe("valid");
    }
  });
});

import { describe, expect, it } from "vitest";
import { redactUrl } from "./redact-url.js";

describe("redactUrl", () => {
  it("hides the sign-in token and keeps everything else", () => {
    expect(redactUrl("/sign-in/verify?token=abcDEF_-123&x=1")).toBe(
      "/sign-in/verify?token=[redacted]&x=1",
    );
    expect(redactUrl("/a?x=1&token=secret")).toBe("/a?x=1&token=[redacted]");
    expect(redactUrl("/keys")).toBe("/keys");
    expect(redactUrl("/a?mytoken=1")).toBe("/a?mytoken=1");
  });
});

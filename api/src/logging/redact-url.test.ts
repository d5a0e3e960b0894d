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

  it("hides the browser login's state, also inside a return path", () => {
    expect(
      redactUrl("/api/persona/cli/login?state=s3cr3t-St4te_~.&redirect_uri=http%3A%2F%2F127.0.0.1"),
    ).toBe("/api/persona/cli/login?state=[redacted]&redirect_uri=http%3A%2F%2F127.0.0.1");
    const returnPath = `/api/persona/cli/login?source=cli&state=s3cr3t-St4te_~.&name=x%20y`;
    const redacted = redactUrl(`/sign-in?return_to=${encodeURIComponent(returnPath)}`);
    expect(redacted).toBe(
      `/sign-in?return_to=${encodeURIComponent("/api/persona/cli/login?source=cli&state=")}[redacted]${encodeURIComponent("&name=x%20y")}`,
    );
    expect(redacted).not.toContain("s3cr3t");
    expect(redactUrl(`/sign-in?return_to=%2Fx%3Fstate%3Dabc%2520def`)).toBe(
      "/sign-in?return_to=%2Fx%3Fstate%3D[redacted]",
    );
    expect(redactUrl("/a?statement=1&x=%3Fstatement%3D2")).toBe(
      "/a?statement=1&x=%3Fstatement%3D2",
    );
  });
});

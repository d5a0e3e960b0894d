import { describe, expect, it } from "vitest";
import { waitingToolLabel } from "./source-labels.js";

describe("waitingToolLabel (who waits behind a sign-in)", () => {
  it("names the login's source when the return path is the browser login route", () => {
    expect(waitingToolLabel("/api/persona/cli/login?state=abc&source=codex")).toBe(
      "the Codex plugin",
    );
    expect(waitingToolLabel("/api/persona/cli/login?source=claude_code")).toBe(
      "the Claude Code plugin",
    );
    expect(waitingToolLabel("/api/persona/cli/login?source=cli")).toBe(
      "the persona command-line tool",
    );
  });

  it("says 'your command-line tool' for no source or one it does not know", () => {
    expect(waitingToolLabel("/api/persona/cli/login?state=abc")).toBe("your command-line tool");
    expect(waitingToolLabel("/api/persona/cli/login?source=%3Cscript%3E")).toBe(
      "your command-line tool",
    );
  });

  it("says nothing for other return paths", () => {
    expect(waitingToolLabel(undefined)).toBeUndefined();
    expect(waitingToolLabel("/keys")).toBeUndefined();
    expect(waitingToolLabel("/api/persona/cli/login/extra?source=cli")).toBeUndefined();
  });
});

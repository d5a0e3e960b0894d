import { describe, expect, it } from "vitest";
import { parseSetupArguments, SetupUsageError } from "./parse-setup-arguments.js";

const BASE = ["--env-file", ".env", "--source", "claude_code"];

describe("parseSetupArguments", () => {
  it("reads the required flags and defaults the rest", () => {
    expect(parseSetupArguments(BASE)).toEqual({
      action: "run",
      arguments: {
        envFile: ".env",
        source: "claude_code",
        yes: false,
        force: false,
        openBrowser: true,
      },
    });
  });

  it("reads every option", () => {
    const parsed = parseSetupArguments([
      "--env-file",
      "/work/app/.env",
      "--source",
      "codex",
      "--persona-id",
      "3BEE94BC-C62F-4582-9FA6-2C47D62AC431",
      "--base-url",
      "https://persona.example.com/",
      "--name",
      "  kai's laptop ",
      "--yes",
      "--force",
      "--no-browser",
      "--timeout",
      "90",
      "--callback-port",
      "8123",
    ]);
    expect(parsed).toEqual({
      action: "run",
      arguments: {
        envFile: "/work/app/.env",
        source: "codex",
        personaId: expect.stringMatching(/^3bee94bc-c62f-4582-9fa6-2c47d62ac431$/iu),
        baseUrl: "https://persona.example.com",
        name: "kai's laptop",
        yes: true,
        force: true,
        openBrowser: false,
        timeoutMs: 90_000,
        callbackPort: 8123,
      },
    });
    expect(parseSetupArguments(["--help"])).toEqual({ action: "help" });
  });

  it.each([
    [["--source", "claude_code"], /--env-file is required/u],
    [["--env-file", ".env"], /--source is required/u],
    [[...BASE.slice(0, 2), "--source", "cli"], /--source must be one of claude_code, codex/u],
    [[...BASE, "--persona-id", "not-a-uuid"], /--persona-id must be a persona ID/u],
    [[...BASE, "--callback-port", "65536"], /--callback-port takes a port number from 1 to 65535/u],
    [[...BASE, "--callback-port", "0"], /--callback-port takes a port number from 1 to 65535/u],
    [[...BASE, "--base-url", "http://127.0.0.1:8787/api/v1"], /without \/api\/v1/u],
    [[...BASE, "--timeout", "0"], /--timeout takes whole seconds/u],
    [[...BASE, "--timeout", "1.5"], /--timeout takes whole seconds/u],
    [[...BASE, "--name", " "], /--name takes 1–100 characters/u],
    [[...BASE, "--bogus"], /Unknown option '--bogus'/u],
    [[...BASE, "extra"], /positional/u],
  ])("refuses %j", (argv, message) => {
    expect(() => parseSetupArguments(argv)).toThrow(SetupUsageError);
    expect(() => parseSetupArguments(argv)).toThrow(message);
  });

  it("refuses a key on the command line without repeating it", () => {
    const key = `prk_${"Zz9".repeat(13)}`;
    for (const argv of [
      [...BASE, "--api-key", "x"],
      [...BASE, "--token=x"],
      [...BASE, "--name", key],
    ]) {
      let message = "";
      try {
        parseSetupArguments(argv);
      } catch (error) {
        message = error instanceof Error ? error.message : "";
      }
      expect(message).toMatch(/an API key never goes on the command line/u);
      expect(message).not.toContain(key);
    }
  });

  it("accepts ordinary paths that look a little like keys", () => {
    const parsed = parseSetupArguments([
      "--env-file",
      "/home/kai/work_repositories2024abcdef/.env",
      "--source",
      "codex",
    ]);
    expect(parsed).toMatchObject({
      arguments: { envFile: "/home/kai/work_repositories2024abcdef/.env" },
    });
  });
});

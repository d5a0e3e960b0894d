import { describe, expect, it } from "vitest";
import { DEFAULT_HTTP_PORT, parseArguments, UsageError } from "./parse-arguments.js";

const KEY = `prk_${"Ab3".repeat(13)}`;

function usageError(argv: string[]): UsageError {
  try {
    parseArguments(argv);
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error("expected a UsageError");
}

describe("parseArguments", () => {
  it("runs on stdio by default, with two retries and info logs", () => {
    expect(parseArguments([])).toEqual({
      action: "run",
      arguments: {
        transport: "stdio",
        host: "127.0.0.1",
        port: DEFAULT_HTTP_PORT,
        maxRetries: 2,
        logLevel: "info",
      },
    });
  });

  it("reads --http with --port and --host, and every setting flag", () => {
    const parsed = parseArguments([
      "--http",
      "--port",
      "0",
      "--host",
      "::1",
      "--persona-id",
      "3bee94bc-c62f-4582-9fa6-2c47d62ac431",
      "--base-url",
      "http://127.0.0.1:8787",
      "--profile",
      "work",
      "--dotenv",
      "/tmp/x.env",
      "--timeout",
      "2.5",
      "--max-retries",
      "0",
      "--log-level",
      "debug",
    ]);
    expect(parsed).toEqual({
      action: "run",
      arguments: {
        transport: "http",
        host: "::1",
        port: 0,
        personaId: "3bee94bc-c62f-4582-9fa6-2c47d62ac431",
        baseUrl: "http://127.0.0.1:8787",
        profile: "work",
        envFile: "/tmp/x.env",
        timeoutMs: 2500,
        maxRetries: 0,
        logLevel: "debug",
      },
    });
  });

  it("reads --no-auth with --http, and leaves it out otherwise", () => {
    const parsed = parseArguments(["--http", "--no-auth"]);
    expect(parsed.action === "run" && parsed.arguments.noAuth).toBe(true);
    const withToken = parseArguments(["--http"]);
    expect(withToken.action === "run" && withToken.arguments.noAuth).toBeUndefined();
  });

  it("answers --help and --version", () => {
    expect(parseArguments(["--help"])).toEqual({ action: "help" });
    expect(parseArguments(["-v"])).toEqual({ action: "version" });
  });

  it("refuses a key on the command line without repeating it", () => {
    for (const argv of [
      ["--api-key", KEY],
      [`--api-key=${KEY}`],
      ["--token", "x"],
      ["--persona-id", KEY],
    ]) {
      const error = usageError(argv);
      expect(error.message).toMatch(/cannot be given on the command line/u);
      expect(error.message).not.toContain(KEY);
    }
  });

  it("refuses unknown flags, stray arguments and bad values with a reason", () => {
    expect(usageError(["--verbose"]).message).toMatch(/--verbose/u);
    expect(usageError(["serve"]).message).toBe(
      'unexpected argument "serve"; see persona-mcp --help',
    );
    expect(usageError(["--http", "--port", "70000"]).message).toBe(
      "--port must be a whole number from 0 to 65535",
    );
    expect(usageError(["--port", "9000"]).message).toBe(
      "--port, --host and --no-auth go with --http",
    );
    expect(usageError(["--no-auth"]).message).toBe("--port, --host and --no-auth go with --http");
    expect(usageError(["--timeout", "0"]).message).toMatch(/^--timeout must be/u);
    expect(usageError(["--max-retries", "-1"]).message).toMatch(/--max-retries|-1/u);
    expect(usageError(["--log-level", "loud"]).message).toBe(
      "--log-level must be one of error, warn, info, debug",
    );
  });
});

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig, missingVariables, parseServiceBaseUrl, StartupConfigError } from "./config.js";

describe("parseServiceBaseUrl (docs/API.md §5.4: with or without /api/v1)", () => {
  it.each([
    ["http://127.0.0.1:8787", "http://127.0.0.1:8787"],
    ["http://127.0.0.1:8787/", "http://127.0.0.1:8787"],
    ["http://127.0.0.1:8787/api/v1", "http://127.0.0.1:8787"],
    ["http://127.0.0.1:8787/api/v1/", "http://127.0.0.1:8787"],
    ["https://persona.example.com/reply/api/v1", "https://persona.example.com/reply"],
    ["  https://persona.example.com  ", "https://persona.example.com"],
  ])("%s → origin %s", (value, origin) => {
    expect(parseServiceBaseUrl(value)).toEqual({
      ok: true,
      origin,
      completionsBaseUrl: `${origin}/api/v1`,
    });
  });

  it("defaults to the service's embedded default when unset", () => {
    expect(parseServiceBaseUrl(undefined)).toEqual({
      ok: true,
      origin: "http://127.0.0.1:8787",
      completionsBaseUrl: "http://127.0.0.1:8787/api/v1",
    });
  });

  it.each([
    ["localhost:8787", /must start with http/u],
    ["127.0.0.1:8787", /is not a URL/u],
    ["not a url", /is not a URL/u],
    ["ftp://example.com", /must start with http/u],
    ["http://user:secret@example.com", /without query, fragment or credentials/u],
    ["http://example.com/?x=1", /without query/u],
  ])("rejects %s, naming SERVICE_BASE_URL without echoing it", (value, problem) => {
    const location = parseServiceBaseUrl(value);
    expect(location.ok).toBe(false);
    if (location.ok) return;
    expect(location.problem).toMatch(/^SERVICE_BASE_URL /u);
    expect(location.problem).toMatch(problem);
    expect(location.problem).not.toContain("secret");
  });
});

describe("loadConfig", () => {
  const directories: string[] = [];
  afterEach(() => {
    for (const directory of directories.splice(0)) fs.rmSync(directory, { recursive: true });
  });
  function envFile(content: string): string {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), "example-config-"));
    directories.push(directory);
    const file = path.join(directory, ".env");
    fs.writeFileSync(file, content);
    return file;
  }

  it("takes the environment first, then the app's .env, then the root .env", () => {
    const appEnv = envFile("SERVICE_PERSONA_ID=from-app\nSERVICE_API_KEY=\n# comment\n");
    const rootEnv = envFile(
      "SERVICE_API_KEY=prk_from_root\nSERVICE_PERSONA_ID=from-root\nSERVICE_BASE_URL=http://127.0.0.1:9000\n",
    );
    const config = loadConfig({
      environment: { SERVICE_BASE_URL: "http://127.0.0.1:9100/api/v1" },
      envFiles: [appEnv, rootEnv],
      webDirectory: "/tmp/web",
    });
    // A blank line in the app's .env (as copied from .env.example) does not hide the root's value.
    expect(config.apiKey).toBe("prk_from_root");
    expect(config.personaId).toBe("from-app");
    expect(config.service).toEqual({
      ok: true,
      origin: "http://127.0.0.1:9100",
      completionsBaseUrl: "http://127.0.0.1:9100/api/v1",
    });
    expect(missingVariables(config)).toEqual([]);
  });

  it("uses the defaults when nothing is set, and lists the missing variables by name", () => {
    const config = loadConfig({ environment: {}, envFiles: ["/nonexistent/.env"] });
    expect(config).toMatchObject({
      apiKey: undefined,
      personaId: undefined,
      host: "127.0.0.1",
      port: 5173,
      timeoutMs: 30_000,
      maxRetries: 1,
    });
    expect(config.webDirectory.endsWith(path.join("example-app", "dist", "web"))).toBe(true);
    expect(missingVariables(config)).toEqual(["SERVICE_API_KEY", "SERVICE_PERSONA_ID"]);
  });

  it("reads EXAMPLE_PORT and friends, and rejects bad values by name", () => {
    const config = loadConfig({
      environment: { EXAMPLE_PORT: "0", EXAMPLE_MAX_RETRIES: "3", EXAMPLE_TIMEOUT_MS: "1500" },
      envFiles: [],
    });
    expect(config).toMatchObject({ port: 0, maxRetries: 3, timeoutMs: 1500 });
    expect(() => loadConfig({ environment: { EXAMPLE_PORT: "http" }, envFiles: [] })).toThrow(
      new StartupConfigError("EXAMPLE_PORT must be an integer from 0 to 65535"),
    );
    expect(() => loadConfig({ environment: { EXAMPLE_MAX_RETRIES: "-1" }, envFiles: [] })).toThrow(
      /^EXAMPLE_MAX_RETRIES must be an integer from 0 to 5$/u,
    );
  });

  it("reads EXAMPLE_ALLOWED_HOSTS as host names, and rejects a port or a URL by name", () => {
    expect(loadConfig({ environment: {}, envFiles: [] }).allowedHosts).toEqual([]);
    const config = loadConfig({
      environment: { EXAMPLE_ALLOWED_HOSTS: " MyApp.test, .dev.example ,," },
      envFiles: [],
    });
    expect(config.allowedHosts).toEqual(["myapp.test", ".dev.example"]);
    for (const value of ["myapp.test:5173", "http://myapp.test", "my app"]) {
      expect(() =>
        loadConfig({ environment: { EXAMPLE_ALLOWED_HOSTS: value }, envFiles: [] }),
      ).toThrow(/^EXAMPLE_ALLOWED_HOSTS must be host names/u);
    }
  });
});

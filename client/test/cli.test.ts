import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type ApiFixture,
  EXAMPLE_PERSONA_FILE,
  startApi,
} from "../../test-support/spawn-service.js";
import { type PersonaRun, runPersona } from "./support/run-persona.js";
import { closedPort, json, startScriptedServer, text } from "./support/scripted-server.js";

// The `persona` tool end to end: the built binary as its own process, with
// HOME and XDG_CONFIG_HOME in a temporary folder, against the real service.

let api: ApiFixture;
let home: string;
let env: Record<string, string>;
let profilesFile: string;

/** Runs persona and checks that nothing it printed holds the full key. */
async function persona(args: string[], extra: Record<string, string> = {}, input = "") {
  const run = await runPersona(args, { ...env, ...extra }, input);
  expect(run.stdout).not.toContain(api.apiKey);
  expect(run.stderr).not.toContain(api.apiKey);
  return run;
}

/** Stores the service's key, persona and base URL in the default profile. */
async function configureDefault(): Promise<PersonaRun> {
  return persona(
    ["configure", "--api-key-stdin", "--persona-id", api.personaId, "--base-url", api.baseUrl],
    {},
    `${api.apiKey}\n`,
  );
}

beforeAll(async () => {
  api = await startApi();
});

afterAll(async () => {
  await api?.stop();
});

beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "persona-cli-"));
  env = { HOME: home, XDG_CONFIG_HOME: path.join(home, "config") };
  profilesFile = path.join(home, "config", "persona-reply", "profiles.json");
  return () => fs.rmSync(home, { recursive: true, force: true });
});

describe("persona configure", () => {
  it("stores a key from standard input in a 0600 file in a 0700 folder, printing it masked", async () => {
    const run = await configureDefault();
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`key prk_…${api.apiKey.slice(-4)}`);
    expect(run.stdout).toContain(`Saved profile "default" (active)`);
    expect(fs.statSync(profilesFile).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(profilesFile)).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(fs.readFileSync(profilesFile, "utf8"));
    expect(stored.profiles.default).toEqual({
      apiKey: api.apiKey,
      personaId: api.personaId,
      baseUrl: api.baseUrl,
    });
  });

  it("stores a key from a named environment variable, and refuses an unset one", async () => {
    const run = await persona(["configure", "--api-key-env", "MY_PERSONA_KEY", "--profile", "ci"], {
      MY_PERSONA_KEY: api.apiKey,
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(fs.readFileSync(profilesFile, "utf8")).profiles.ci.apiKey).toBe(api.apiKey);
    const unset = await persona(["configure", "--api-key-env", "NOT_SET_ANYWHERE"]);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain("the environment variable NOT_SET_ANYWHERE is not set");
  });

  it("refuses a key passed as an argument, saying how to give it instead", async () => {
    const attempts = [
      ["configure", "--api-key", api.apiKey],
      ["configure", `--api-key=${api.apiKey}`],
      ["configure", "--api-key-env", api.apiKey],
      ["generate", api.apiKey],
      ["configure", "--key", "something"],
    ];
    for (const args of attempts) {
      const run = await persona(args);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("does not take an API key as a command argument");
      expect(run.stderr).toContain("persona configure --api-key-stdin");
      expect(run.stderr).toContain("persona configure --api-key-env");
    }
    expect(fs.existsSync(profilesFile)).toBe(false);
  });

  it("refuses an empty key, a bad persona ID and a base URL with /api/v1", async () => {
    expect((await persona(["configure", "--api-key-stdin"], {}, "\n")).stderr).toContain(
      "no API key on standard input",
    );
    const badPersona = await persona(["configure", "--persona-id", "not-a-uuid"]);
    expect(badPersona.code).toBe(2);
    expect(badPersona.stderr).toContain("--persona-id must be a persona ID (a UUID)");
    const badUrl = await persona(["configure", "--base-url", `${api.baseUrl}/api/v1`]);
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toContain("--base-url must be the site origin without /api/v1");
    const nothing = await persona(["configure"]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain("nothing to configure");
    expect(fs.existsSync(profilesFile)).toBe(false);
  });

  it("--show masks the key, in words and in JSON", async () => {
    await configureDefault();
    const shown = await persona(["configure", "--show"]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`API key     prk_…${api.apiKey.slice(-4)}`);
    expect(shown.stdout).toContain("(mode 0600)");
    const asJson = JSON.parse((await persona(["configure", "--show", "--json"])).stdout);
    expect(asJson).toEqual({
      profile: "default",
      active: true,
      file: profilesFile,
      fileMode: "0600",
      apiKey: `prk_…${api.apiKey.slice(-4)}`,
      personaId: api.personaId,
      baseUrl: api.baseUrl,
      overriddenBy: [],
    });
    const overridden = await persona(["configure", "--show", "--json"], {
      SERVICE_PERSONA_ID: api.personaId,
    });
    expect(JSON.parse(overridden.stdout).overriddenBy).toEqual(["SERVICE_PERSONA_ID"]);
  });

  it("--clear removes the profile and its key", async () => {
    await configureDefault();
    const cleared = await persona(["configure", "--clear"]);
    expect(cleared.code).toBe(0);
    expect(fs.readFileSync(profilesFile, "utf8")).not.toContain(api.apiKey);
    expect((await persona(["configure", "--clear"])).code).toBe(2);
    expect((await persona(["generate", "Hi"])).code).toBe(78);
  });
});

describe("persona profiles and use", () => {
  it("lists profiles with the active one marked, and switches between them", async () => {
    const empty = await persona(["profiles"]);
    expect(empty.stdout).toContain("No profiles yet");
    await configureDefault();
    await persona(
      ["configure", "--profile", "work", "--api-key-stdin", "--persona-id", api.personaId],
      {},
      api.apiKey,
    );
    const listed = await persona(["profiles"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^\* default /mu);
    expect(listed.stdout).toMatch(/^ {2}work /mu);
    expect(listed.stdout).toContain(`key prk_…${api.apiKey.slice(-4)}`);

    const used = await persona(["use", "work"]);
    expect(used.code).toBe(0);
    expect(used.stdout).toContain('Now using profile "work".');
    const asJson = JSON.parse((await persona(["profiles", "--json"])).stdout);
    expect(asJson.activeProfile).toBe("work");
    expect(asJson.profiles.map((profile: { name: string }) => profile.name)).toEqual([
      "default",
      "work",
    ]);

    const unknown = await persona(["use", "nope"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no profile named "nope"; known profiles: default, work');
  });
});

describe("persona generate and personify", () => {
  it("prints the reply for people and JSON for machines", async () => {
    await configureDefault();
    const human = await persona([
      "generate",
      "Hi!",
      "Which",
      "herbs",
      "grow",
      "on",
      "a",
      "balcony?",
    ]);
    expect(human.code).toBe(0);
    expect(human.stderr).toBe("");
    expect(human.stdout.trim().length).toBeGreaterThan(0);
    expect(human.stdout.trim()).not.toMatch(/^\{/u);

    const machine = await persona(["generate", "--json", "--variations", "Hello there"]);
    expect(machine.code).toBe(0);
    const result = JSON.parse(machine.stdout);
    expect(typeof result.finalReply).toBe("string");
    expect(result.chunks.length).toBeGreaterThan(0);
    expect(result.replyChoices).toContain(result.finalReply);

    const variations = await persona(["generate", "--variations", "Hello there"]);
    expect(variations.stdout).toContain("Variations:");
    expect(variations.stdout).toContain("(selected)");
  });

  it("reads the text from standard input with -", async () => {
    await configureDefault();
    const run = await persona(["personify", "-", "--json"], {}, "The meeting moves to Thursday.\n");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).personified).toContain("Thursday");
    const human = await persona(["personify", "Bring", "the", "seed", "catalogue."]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("seed catalogue");
  });

  it("takes flags over the environment over the profile", async () => {
    await configureDefault();
    const unknownPersona = "00000000-0000-4000-8000-000000000000";
    const fromEnvironment = await persona(["generate", "Hi"], {
      SERVICE_PERSONA_ID: unknownPersona,
    });
    expect(fromEnvironment.code).toBe(3);
    expect(fromEnvironment.stderr).toContain(`unknown personaId: ${unknownPersona}`);
    const fromFlag = await persona(["generate", "Hi", "--persona-id", api.personaId], {
      SERVICE_PERSONA_ID: unknownPersona,
    });
    expect(fromFlag.code).toBe(0);
    const environmentOnly = await runPersona(["generate", "Hi"], {
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, "empty"),
      SERVICE_API_KEY: api.apiKey,
      SERVICE_PERSONA_ID: api.personaId,
      SERVICE_BASE_URL: api.baseUrl,
    });
    expect(environmentOnly.code).toBe(0);
  });
});

describe("exit codes and error output", () => {
  it("2 for usage errors, 78 when not configured", async () => {
    expect((await persona(["generate"])).code).toBe(2);
    expect((await persona(["generate", "--no-such-flag", "Hi"])).code).toBe(2);
    expect((await persona(["frobnicate"])).code).toBe(2);
    expect((await persona([])).code).toBe(2);
    expect((await persona(["--help"])).code).toBe(0);
    const notConfigured = await persona(["generate", "Hi"]);
    expect(notConfigured.code).toBe(78);
    expect(notConfigured.stderr).toContain("no API key: run `persona configure --api-key-stdin`");
    await configureDefault();
    const empty = await persona(["personify", "-"], {}, "  \n");
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("the text is empty");
  });

  it("3 when the key or persona is refused, with the server's message on stderr", async () => {
    await configureDefault();
    const mistyped = `${api.apiKey.slice(0, -1)}${api.apiKey.endsWith("A") ? "B" : "A"}`;
    const badKey = await persona(["generate", "Hi"], { SERVICE_API_KEY: mistyped });
    expect(badKey.code).toBe(3);
    expect(badKey.stdout).toBe("");
    expect(badKey.stderr).toMatch(/^persona: invalid API key/u);
    expect(badKey.stderr).toContain("HTTP 401");
    expect(badKey.stderr).not.toContain(mistyped);

    const limitedPersona = api.admin(
      "persona",
      "create",
      "--account",
      api.accountId,
      "--file",
      EXAMPLE_PERSONA_FILE,
    );
    api.admin("persona", "revoke-personify", limitedPersona);
    const forbidden = await persona(["personify", "--json", "--persona-id", limitedPersona, "Hi"]);
    expect(forbidden.code).toBe(3);
    const error = JSON.parse(forbidden.stderr).error;
    expect(error).toMatchObject({ kind: "permission", status: 403, exitCode: 3 });
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/u);
  });

  it("4 when rate limited, 5 on server errors, 6 when unreachable", async () => {
    const server = await startScriptedServer([
      text(429, "daily quota exhausted", { "retry-after": "3600" }),
      json(
        500,
        { error: { type: "internal_error", message: "internal server error" } },
        { "retry-after": "0" },
      ),
    ]);
    try {
      const settings = {
        SERVICE_API_KEY: api.apiKey,
        SERVICE_PERSONA_ID: api.personaId,
        SERVICE_BASE_URL: server.baseUrl,
      };
      const limited = await persona(["generate", "--json", "Hi"], settings);
      expect(limited.code).toBe(4);
      expect(JSON.parse(limited.stderr).error).toMatchObject({
        kind: "rate_limited",
        status: 429,
        retryAfter: 3600,
        message: "daily quota exhausted",
      });
      const failed = await persona(["generate", "Hi"], settings);
      expect(failed.code).toBe(5);
      expect(failed.stderr).toContain("persona: internal server error");
      expect(failed.stderr).toContain("HTTP 500, internal_error");
      // Retried twice (Retry-After: 0) before giving up: 1 + 3 requests in all.
      expect(server.requests).toHaveLength(4);
    } finally {
      await server.close();
    }
    const port = await closedPort();
    const unreachable = await persona(["generate", "Hi"], {
      SERVICE_API_KEY: api.apiKey,
      SERVICE_PERSONA_ID: api.personaId,
      SERVICE_BASE_URL: `http://127.0.0.1:${port}`,
    });
    expect(unreachable.code).toBe(6);
    expect(unreachable.stderr).toContain(`could not reach http://127.0.0.1:${port}`);
  });
});

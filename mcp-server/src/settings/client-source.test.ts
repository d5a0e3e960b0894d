import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigurationError } from "@persona-reply/client";
import { saveProfile } from "@persona-reply/client/node";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createClientSource } from "./client-source.js";
import { readEnvFile } from "./read-env-file.js";
import { SetupRequiredError } from "./setup-instructions.js";

const KEY_A = `prk_${"Aa1".repeat(13)}`;
const KEY_B = `prk_${"Bb2".repeat(13)}`;
const KEY_C = `prk_${"Cc3".repeat(13)}`;
const PERSONA_A = "11111111-1111-4111-8111-111111111111";
const PERSONA_B = "22222222-2222-4222-8222-222222222222";

let home: string;
let envFile: string;
let baseEnv: NodeJS.ProcessEnv;

beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "persona-mcp-settings-"));
  envFile = path.join(home, "project", ".env");
  fs.mkdirSync(path.dirname(envFile));
  baseEnv = { HOME: home, XDG_CONFIG_HOME: path.join(home, "config") };
});

afterEach(() => {
  fs.rmSync(home, { recursive: true, force: true });
});

function setupError(run: () => unknown): SetupRequiredError {
  try {
    run();
  } catch (error) {
    if (error instanceof SetupRequiredError) return error;
    throw error;
  }
  throw new Error("expected SetupRequiredError");
}

describe("readEnvFile", () => {
  it("takes only the SERVICE_* variables, and reads a missing file as empty", () => {
    fs.writeFileSync(
      envFile,
      `# written by the plugin\nSERVICE_API_KEY="${KEY_A}"\nSERVICE_PERSONA_ID=${PERSONA_A}\nSERVICE_BASE_URL=\nHOME=/elsewhere\n`,
    );
    expect(readEnvFile(envFile)).toEqual({
      values: { SERVICE_API_KEY: KEY_A, SERVICE_PERSONA_ID: PERSONA_A },
      found: true,
    });
    expect(readEnvFile(path.join(home, "none.env"))).toEqual({ values: {}, found: false });
    expect(readEnvFile(home)).toMatchObject({ found: true, problem: "EISDIR" });
  });
});

describe("createClientSource", () => {
  it("says what is missing, where it looked and how to set it up, without crashing", () => {
    const source = createClientSource({ env: baseEnv, envFile });
    const error = setupError(source);
    expect(error.missing).toEqual(["apiKey", "personaId"]);
    expect(error.message).toMatch(
      /^Persona Reply is not set up for this MCP server: no API key and no persona ID found\./u,
    );
    expect(error.message).toContain(`the env file ${envFile} (not found)`);
    expect(error.message).toContain(path.join(home, "config", "persona-reply", "profiles.json"));
    expect(error.message).toContain("persona configure --api-key-stdin");
    expect(error.message).toContain("SERVICE_API_KEY and SERVICE_PERSONA_ID");
  });

  it("asks only for the persona ID when the key is there", () => {
    const source = createClientSource({ env: { ...baseEnv, SERVICE_API_KEY: KEY_A }, envFile });
    const error = setupError(source);
    expect(error.missing).toEqual(["personaId"]);
    expect(error.message).toContain("no persona ID found");
    expect(error.message).toContain("persona configure --persona-id <persona UUID>");
    expect(error.message).not.toContain("--api-key-stdin");
    expect(error.message).not.toContain(KEY_A);
  });

  it("reads the env file at every call, under the environment, over the profile", () => {
    saveProfile(
      "default",
      { apiKey: KEY_C, personaId: PERSONA_B, baseUrl: "http://127.0.0.1:7003" },
      { env: baseEnv },
    );
    const env = { ...baseEnv, SERVICE_PERSONA_ID: PERSONA_A };
    const source = createClientSource({ env, envFile });
    const fromProfile = source();
    expect(fromProfile.maskedApiKey).toBe(`prk_…${KEY_C.slice(-4)}`);
    expect(fromProfile.personaId).toBe(PERSONA_A);
    expect(fromProfile.origins.personaId).toBe("SERVICE_PERSONA_ID in the environment");
    expect(fromProfile.origins.apiKey).toMatch(/^the persona tool's profile "default" \(/u);
    expect(fromProfile.apiKeySource).toBe("profile");
    expect(fromProfile.client.baseUrl).toBe("http://127.0.0.1:7003");

    fs.writeFileSync(
      envFile,
      `SERVICE_API_KEY=${KEY_B}\nSERVICE_PERSONA_ID=${PERSONA_B}\nSERVICE_BASE_URL=http://127.0.0.1:7002\n`,
    );
    const fromFile = source();
    expect(fromFile.maskedApiKey).toBe(`prk_…${KEY_B.slice(-4)}`);
    expect(fromFile.origins.apiKey).toBe(`SERVICE_API_KEY in ${envFile}`);
    expect(fromFile.apiKeySource).toBe("env file");
    expect(
      createClientSource({ env: { ...env, SERVICE_API_KEY: KEY_A }, envFile })().apiKeySource,
    ).toBe("environment");
    // The environment still wins over the file.
    expect(fromFile.personaId).toBe(PERSONA_A);
    expect(fromFile.client.baseUrl).toBe("http://127.0.0.1:7002");
    expect(fromFile.secrets).toEqual([KEY_B]);
    expect(JSON.stringify(fromFile.origins)).not.toContain(KEY_B);
  });

  it("ignores unexpanded placeholders an agent configuration passed through", () => {
    // Written as the agent passes them: the literal text `${NAME}`.
    const placeholder = (text: string) => `\${${text}}`;
    fs.writeFileSync(envFile, `SERVICE_API_KEY=${KEY_B}\nSERVICE_PERSONA_ID=${PERSONA_B}\n`);
    const env = {
      ...baseEnv,
      SERVICE_API_KEY: placeholder("SERVICE_API_KEY"),
      SERVICE_PERSONA_ID: placeholder("SERVICE_PERSONA_ID:-"),
      SERVICE_BASE_URL: "http://127.0.0.1:7005",
    };
    const settings = createClientSource({ env, envFile })();
    expect(settings.maskedApiKey).toBe(`prk_…${KEY_B.slice(-4)}`);
    expect(settings.origins.apiKey).toBe(`SERVICE_API_KEY in ${envFile}`);
    expect(settings.personaId).toBe(PERSONA_B);
    expect(settings.client.baseUrl).toBe("http://127.0.0.1:7005");
  });

  it("lets flags win and reads a named profile", () => {
    saveProfile("work", { apiKey: KEY_C, personaId: PERSONA_B }, { env: baseEnv });
    saveProfile("other", { apiKey: KEY_A }, { env: baseEnv });
    const source = createClientSource({
      env: baseEnv,
      envFile,
      flags: { profile: "work", personaId: PERSONA_A, baseUrl: "http://127.0.0.1:7004" },
    });
    const settings = source();
    expect(settings.maskedApiKey).toBe(`prk_…${KEY_C.slice(-4)}`);
    expect(settings.personaId).toBe(PERSONA_A);
    expect(settings.origins.personaId).toBe("--persona-id");
    expect(settings.origins.baseUrl).toBe("--base-url");
    expect(settings.client.baseUrl).toBe("http://127.0.0.1:7004");
  });

  it("passes the client's ConfigurationError on for an unusable base URL or profile", () => {
    const env = {
      ...baseEnv,
      SERVICE_API_KEY: KEY_A,
      SERVICE_PERSONA_ID: PERSONA_A,
      SERVICE_BASE_URL: "http://127.0.0.1:8787/api/v1",
    };
    expect(createClientSource({ env, envFile })).toThrow(ConfigurationError);
    expect(createClientSource({ env: baseEnv, envFile, flags: { profile: "nope" } })).toThrow(
      /no profile named "nope"/u,
    );
  });
});

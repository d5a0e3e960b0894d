import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isolatedEnvironment } from "../../test-support/isolated-process.js";
import {
  ADMIN_SCRIPT,
  EXAMPLE_PERSONA_FILE,
  MAIN_SCRIPT,
} from "../../test-support/spawn-service.js";
import { writeUpstreamsFile } from "./support/upstreams-file.js";

// The operator's side of model routes, through the built bins: persona-admin
// sets routes, and the service refuses a bad upstream file at start-up.

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-operator-upstreams-"));
const upstreams = writeUpstreamsFile({
  openai: {
    kind: "openai-compatible",
    baseUrl: "http://127.0.0.1:9/v1",
    apiKeyEnv: "TEST_OPENAI_KEY",
    price: { inputMicrosPerMillionTokens: 150_000, outputMicrosPerMillionTokens: 600_000 },
  },
  claude: {
    kind: "anthropic",
    apiKeyEnv: "TEST_ANTHROPIC_KEY",
    price: { inputMicrosPerMillionTokens: 1_000_000, outputMicrosPerMillionTokens: 5_000_000 },
  },
});
afterAll(() => {
  fs.rmSync(directory, { recursive: true, force: true });
  upstreams.remove();
});

const environment = isolatedEnvironment({
  PERSONA_DATABASE_URL: path.join(directory, "store.sqlite"),
  PERSONA_UPSTREAMS_FILE: upstreams.file,
  TEST_OPENAI_KEY: "openai-key-for-tests",
  TEST_ANTHROPIC_KEY: "anthropic-key-for-tests",
});

function admin(...args: string[]) {
  const result = spawnSync(process.execPath, [ADMIN_SCRIPT, ...args], {
    cwd: directory,
    env: environment,
    encoding: "utf8",
  });
  return { code: result.status, stdout: result.stdout.trim(), stderr: result.stderr.trim() };
}

describe("persona-admin persona --route", () => {
  it("sets a route as a list on create and update, and shows it", () => {
    const accountId = admin("account", "create", "Routed Ltd").stdout;
    const created = admin(
      "persona",
      "create",
      "--account",
      accountId,
      "--file",
      EXAMPLE_PERSONA_FILE,
      "--route",
      "openai:gpt-4o-mini",
      "--route",
      "claude:claude-haiku-4-5",
    );
    expect(created.code, created.stderr).toBe(0);
    const personaId = created.stdout;
    expect(JSON.parse(admin("persona", "show", personaId).stdout).route).toEqual([
      "openai:gpt-4o-mini",
      "claude:claude-haiku-4-5",
    ]);

    const updated = admin(
      "persona",
      "update",
      personaId,
      "--route",
      "claude:claude-sonnet-4-5",
      "--route",
      "offline:offline-composer-1",
    );
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({
      name: "Juniper",
      route: ["claude:claude-sonnet-4-5", "offline:offline-composer-1"],
    });

    // --file alone takes the file's route (the example routes to the offline engine).
    expect(admin("persona", "update", personaId, "--file", EXAMPLE_PERSONA_FILE).code).toBe(0);
    expect(JSON.parse(admin("persona", "show", personaId).stdout).route).toEqual([
      "offline:offline-composer-1",
    ]);
  });

  it("refuses a malformed target, an upstream that is not configured, and an update with nothing to set", () => {
    const accountId = admin("account", "create", "Typo Ltd").stdout;
    const create = (...route: string[]) =>
      admin(
        "persona",
        "create",
        "--account",
        accountId,
        "--file",
        EXAMPLE_PERSONA_FILE,
        ...route.flatMap((target) => ["--route", target]),
      );
    const malformed = create("gpt-4o-mini");
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toMatch(/--route gpt-4o-mini: expected upstream:model/u);
    const unknown = create("opnai:gpt-4o-mini");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(
      /opnai:gpt-4o-mini: no upstream named "opnai" is configured \(configured: openai, claude, offline\)/u,
    );
    const repeated = create("openai:m", "openai:m");
    expect(repeated.code).toBe(1);
    expect(repeated.stderr).toBe("persona-admin: route: openai:m is listed twice");
    expect(JSON.parse(admin("persona", "list", "--account", accountId).stdout)).toEqual([]);
    const nothing = admin("persona", "update", "00000000-0000-4000-8000-000000000000");
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toMatch(/give --file, --route, or both/u);
  });
});

describe("an invalid upstream file at start-up", () => {
  it("stops the service with exit code 78, naming the file and the field, never the secret", () => {
    const bad = writeUpstreamsFile({
      openai: {
        kind: "openai-compatible",
        baseUrl: "https://api.openai.com/v1",
        apiKey: "sk-inline-do-not-print",
        price: {},
      },
    });
    try {
      const result = spawnSync(process.execPath, [MAIN_SCRIPT], {
        cwd: directory,
        env: isolatedEnvironment({
          PERSONA_PORT: "0",
          PERSONA_DATABASE_URL: path.join(directory, "never-created.sqlite"),
          PERSONA_UPSTREAMS_FILE: bad.file,
        }),
        encoding: "utf8",
        timeout: 20_000,
      });
      expect(result.status).toBe(78);
      expect(result.stderr).toMatch(
        /configuration error: PERSONA_UPSTREAMS_FILE \(.+upstreams\.yaml\): upstreams\.openai\.apiKey: secrets are never written in this file/u,
      );
      expect(result.stderr + result.stdout).not.toContain("sk-inline-do-not-print");
      expect(fs.existsSync(path.join(directory, "never-created.sqlite"))).toBe(false);
    } finally {
      bad.remove();
    }
  });
});

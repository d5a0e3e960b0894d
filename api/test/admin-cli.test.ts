import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { isolatedEnvironment } from "../../test-support/isolated-process.js";
import { ADMIN_SCRIPT } from "../../test-support/spawn-service.js";
import { SCHEMA_MIGRATIONS } from "../src/schema-migrations.js";

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-admin-"));
const examplePersona = fileURLToPath(new URL("../personas/example-persona.json", import.meta.url));
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

function admin(...args: string[]) {
  const result = spawnSync(process.execPath, [ADMIN_SCRIPT, ...args], {
    cwd: directory,
    env: isolatedEnvironment({ PERSONA_DATABASE_URL: path.join(directory, "store.sqlite") }),
    encoding: "utf8",
  });
  return { code: result.status, stdout: result.stdout.trim(), stderr: result.stderr.trim() };
}

describe("persona-admin (operator onboarding)", () => {
  it("onboards an account, a persona, personify access and keys", () => {
    const account = admin("account", "create", "Acme Ltd");
    expect(account.code).toBe(0);
    const accountId = account.stdout;
    expect(accountId).toMatch(/^[0-9a-f-]{36}$/u);

    const persona = admin("persona", "create", "--account", accountId, "--file", examplePersona);
    expect(persona.code).toBe(0);
    const personaId = persona.stdout;
    expect(personaId).toMatch(/^[0-9a-f-]{36}$/u);
    expect(admin("persona", "revoke-personify", personaId).code).toBe(0);
    expect(JSON.parse(admin("persona", "show", personaId).stdout)).toMatchObject({
      id: personaId,
      name: "Juniper",
      personifyAccess: false,
    });
    expect(admin("persona", "grant-personify", personaId).code).toBe(0);
    expect(
      JSON.parse(admin("persona", "list", "--account", accountId).stdout)[0].personifyAccess,
    ).toBe(true);

    const created = admin("key", "create", "--account", accountId, "--name", "ci");
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^prk_[0-9A-Za-z]{38}$/u);
    expect(created.stderr).toMatch(/only time it is shown/u);
    const key = created.stdout;

    const out = path.join(directory, "key.txt");
    const written = admin("key", "create", "--account", accountId, "--out", out);
    expect(written.code).toBe(0);
    expect(written.stdout).not.toMatch(/prk_[0-9A-Za-z]{20}/u);
    expect(fs.statSync(out).mode & 0o777).toBe(0o600);

    const listed = admin("key", "list", "--account", accountId);
    expect(listed.stdout).not.toContain(key);
    const keys = JSON.parse(listed.stdout) as Array<{ id: string; masked: string; name: string }>;
    expect(keys.map((entry) => entry.masked)).toContain(`prk_…${key.slice(-4)}`);
    const ciKey = keys.find((entry) => entry.name === "ci");
    expect(admin("key", "revoke", ciKey?.id ?? "").code).toBe(0);
    expect(admin("key", "revoke", ciKey?.id ?? "").code).toBe(1);
  });

  it("rejects an invalid persona file with the field at fault", () => {
    const accountId = admin("account", "create", "Other").stdout;
    const bad = path.join(directory, "bad.json");
    fs.writeFileSync(bad, JSON.stringify({ name: "X", traits: { behaviouralGuidelines: {} } }));
    const result = admin("persona", "create", "--account", accountId, "--file", bad);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/traits\.behaviouralGuidelines\.role/u);
  });

  it("refuses unknown accounts", () => {
    const result = admin("key", "create", "--account", "nope");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no account with ID nope/u);
  });
});

describe("persona-admin migrate (a deployment's one-shot step)", () => {
  it("migrates a new database to the latest migration, and again changes nothing", () => {
    const fresh = fs.mkdtempSync(path.join(directory, "migrate-"));
    const run = () =>
      spawnSync(process.execPath, [ADMIN_SCRIPT, "migrate", "--json"], {
        cwd: fresh,
        env: isolatedEnvironment({ PERSONA_DATABASE_URL: path.join(fresh, "new.sqlite") }),
        encoding: "utf8",
      });
    const names = Object.keys(SCHEMA_MIGRATIONS).sort();
    const first = run();
    expect(first.status, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      dialect: "sqlite",
      applied: names.length,
      latest: names.at(-1),
    });
    const second = run();
    expect(second.status, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual(JSON.parse(first.stdout));
  });
});

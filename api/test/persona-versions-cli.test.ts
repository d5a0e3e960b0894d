import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ADMIN_SCRIPT, EXAMPLE_PERSONA_FILE } from "../../test-support/spawn-service.js";

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-versions-cli-"));
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

function admin(...args: string[]) {
  const result = spawnSync(process.execPath, [ADMIN_SCRIPT, ...args], {
    env: { ...process.env, PERSONA_DATABASE_URL: path.join(directory, "store.sqlite") },
    encoding: "utf8",
  });
  return { code: result.status, stdout: result.stdout.trim(), stderr: result.stderr.trim() };
}

interface ExampleFile {
  name: string;
  personifyAccess?: boolean;
  traits: { communicationStyle: Record<string, string> };
}

function personaFile(name: string, change: (file: ExampleFile) => void): string {
  const file = JSON.parse(fs.readFileSync(EXAMPLE_PERSONA_FILE, "utf8")) as ExampleFile;
  change(file);
  const written = path.join(directory, name);
  fs.writeFileSync(written, JSON.stringify(file));
  return written;
}

describe("persona-admin persona versions", () => {
  it("refines a persona twice, shows three versions and a diff, drafts, promotes and rolls back", {
    timeout: 300_000,
  }, () => {
    const accountId = admin("account", "create", "Versions Ltd").stdout;
    const created = admin(
      "persona",
      "create",
      "--account",
      accountId,
      "--file",
      EXAMPLE_PERSONA_FILE,
      "--note",
      "onboarding",
    );
    expect(created.code).toBe(0);
    const id = created.stdout;

    const concise = personaFile("concise.json", (file) => {
      file.traits.communicationStyle = { ...file.traits.communicationStyle, verbosity: "concise" };
    });
    const second = admin("persona", "update", id, "--file", concise, "--note", "shorter replies");
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ id, version: 2 });
    const third = admin(
      "persona",
      "update",
      id,
      "--route",
      "offline:offline-composer-2",
      "--note",
      "new model",
    );
    expect(JSON.parse(third.stdout)).toMatchObject({ id, version: 3 });

    const table = admin("persona", "history", id);
    expect(table.code).toBe(0);
    const lines = table.stdout.split("\n");
    expect(lines[0]).toMatch(/^version\s+status\s+created\s+by\s+changes\s+note\s+release note$/u);
    expect(lines.slice(1).map((line) => line.split(/\s+/u).slice(0, 2))).toEqual([
      ["1", "retired"],
      ["2", "retired"],
      ["3", "live"],
    ]);
    expect(lines[2]).toMatch(/traits\.communicationStyle\.verbosity\s+shorter replies$/u);
    const history = JSON.parse(admin("persona", "history", id, "--json").stdout);
    expect(history.map((version: { note: string }) => version.note)).toEqual([
      "onboarding",
      "shorter replies",
      "new model",
    ]);
    expect(history[2].route).toEqual(["offline:offline-composer-2"]);

    expect(JSON.parse(admin("persona", "show", id, "--version", "1").stdout)).toMatchObject({
      version: 1,
      status: "retired",
      note: "onboarding",
    });

    const diff = admin("persona", "diff", id, "1", "3");
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain("--- v1/route");
    expect(diff.stdout).toContain("+offline:offline-composer-2");
    expect(diff.stdout).toMatch(/^-\s+"verbosity": "balanced",$/mu);
    expect(diff.stdout).toMatch(/^\+\s+"verbosity": "concise",$/mu);
    expect(diff.stdout).toContain("--- v1/system-prompt");
    expect(diff.stdout).toContain("+Keep replies short: one or two sentences.");
    expect(admin("persona", "diff", id, "2", "3").stdout).toContain("system-prompt: unchanged");

    // A draft serves nothing until promoted.
    const renamed = personaFile("renamed.json", (file) => {
      file.name = "Juniper Draft";
    });
    const draft = admin("persona", "update", id, "--file", renamed, "--draft", "--note", "try");
    expect(draft.code).toBe(0);
    expect(JSON.parse(draft.stdout)).toMatchObject({ version: 4, status: "draft" });
    expect(draft.stderr).toContain(`persona promote ${id} 4`);
    expect(JSON.parse(admin("persona", "show", id).stdout)).toMatchObject({
      version: 3,
      name: "Juniper",
    });
    expect(admin("persona", "diff", id, "live", "draft").stdout).toContain(
      '+  "name": "Juniper Draft",',
    );
    expect(admin("persona", "promote", id, "4").stdout).toBe(`persona ${id}: version 4 is live`);
    expect(JSON.parse(admin("persona", "show", id).stdout)).toMatchObject({
      version: 4,
      name: "Juniper Draft",
    });

    const refused = admin("persona", "promote", id, "1");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/not a draft.*roll back/u);
    expect(admin("persona", "promote", id, "x").stderr).toMatch(/not a version/u);

    expect(admin("persona", "rollback", id, "1").stdout).toBe(
      `persona ${id}: version 5 (equal to version 1) is live`,
    );
    expect(JSON.parse(admin("persona", "show", id, "--version", "live").stdout)).toMatchObject({
      version: 5,
      note: "rollback to version 1",
      name: "Juniper",
      route: ["offline:offline-composer-1"],
    });
    expect(admin("usage", "--by", "version").code).toBe(0);
  });
  it("applies a file's /personify access at once with --draft too, says so, and keeps it through the promotion", {
    timeout: 300_000,
  }, () => {
    const accountId = admin("account", "create", "Access Ltd").stdout;
    const id = admin(
      "persona",
      "create",
      "--account",
      accountId,
      "--file",
      EXAMPLE_PERSONA_FILE,
    ).stdout;
    const shown = () => JSON.parse(admin("persona", "show", id).stdout);
    expect(shown()).toMatchObject({ version: 1, personifyAccess: true });

    const withdrawn = personaFile("no-personify.json", (file) => {
      file.personifyAccess = false;
      file.traits.communicationStyle = { ...file.traits.communicationStyle, verbosity: "concise" };
    });
    const draft = admin("persona", "update", id, "--file", withdrawn, "--draft", "--note", "terse");
    expect(draft.code, draft.stderr).toBe(0);
    expect(JSON.parse(draft.stdout)).toMatchObject({ version: 2, status: "draft" });
    expect(draft.stderr).toContain(
      `persona ${id}: /personify access withdrawn at once, as the file says: access is not part of a version, so it does not wait for the draft's promotion`,
    );
    expect(draft.stderr).toContain(`persona promote ${id} 2`);
    // The voice waits for the promotion; the access did not.
    expect(shown()).toMatchObject({ version: 1, personifyAccess: false });
    expect(admin("persona", "promote", id, "2").code).toBe(0);
    expect(shown()).toMatchObject({ version: 2, personifyAccess: false });

    // The same file again: no version, no access change, nothing said of access.
    const again = admin("persona", "update", id, "--file", withdrawn, "--draft");
    expect(again.stderr).not.toContain("/personify access");
    // A live update granting it says so too.
    const granted = personaFile("personify.json", (file) => {
      file.personifyAccess = true;
    });
    const live = admin("persona", "update", id, "--file", granted);
    expect(live.code, live.stderr).toBe(0);
    expect(live.stderr).toBe(
      `persona ${id}: /personify access granted at once, as the file says: access is not part of a version`,
    );
    expect(JSON.parse(live.stdout)).toMatchObject({ version: 3, personifyAccess: true });

    // A file that does not mention access leaves it as it is, draft or live.
    const silent = personaFile("silent.json", (file) => {
      delete file.personifyAccess;
      file.traits.communicationStyle = {
        ...file.traits.communicationStyle,
        verbosity: "elaborate",
      };
    });
    const silentDraft = admin("persona", "update", id, "--file", silent, "--draft");
    expect(silentDraft.code, silentDraft.stderr).toBe(0);
    expect(silentDraft.stderr).not.toContain("/personify access");
    expect(admin("persona", "promote", id, "4").code).toBe(0);
    expect(shown()).toMatchObject({ version: 4, personifyAccess: true });
  });
});

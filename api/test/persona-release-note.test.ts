import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { scratchDirectory } from "../../test-support/isolated-process.js";
import { EXAMPLE_PERSONA_FILE } from "../../test-support/spawn-service.js";
import type { Services } from "../src/services.js";
import { runAdmin } from "./support/admin-in-process.js";
import { describeEachDialect, writeOlderDatabase } from "./support/test-databases.js";
import { closeStore, openStore } from "./support/test-store.js";

// A persona version's release note (migration 0023): what the customer is
// told about a version, given with `--release-note` on the persona-admin
// commands that make versions, kept apart from the operator's `--note`.

/** The example persona file with its verbosity changed, written to a scratch folder. */
function personaFile(verbosity: string): string {
  const file = JSON.parse(fs.readFileSync(EXAMPLE_PERSONA_FILE, "utf8")) as {
    traits: { communicationStyle: Record<string, string> };
  };
  file.traits.communicationStyle = { ...file.traits.communicationStyle, verbosity };
  const written = path.join(scratchDirectory("persona-release-note-"), `${verbosity}.json`);
  fs.writeFileSync(written, JSON.stringify(file));
  return written;
}

await describeEachDialect("persona-admin --release-note", (database) => {
  let services: Services;
  beforeAll(async () => {
    services = await openStore(database.url, { PERSONA_INSTANCE_ID: "release-note-cli" });
  });
  afterAll(async () => {
    await closeStore(services);
  });

  const admin = (...args: string[]) => runAdmin(services, ...args);
  const json = async (...args: string[]) => {
    const run = await admin(...args);
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout);
  };

  it("keeps the release note apart from the note on create, update, a draft and rollbacks", async () => {
    const accountId = (await admin("account", "create", "Release Ltd")).stdout;
    const created = await admin(
      "persona",
      "create",
      "--account",
      accountId,
      "--file",
      EXAMPLE_PERSONA_FILE,
      "--note",
      "onboarding call",
      "--release-note",
      "  Juniper, your garden guide.  ",
    );
    expect(created.code, created.stderr).toBe(0);
    const id = created.stdout;
    expect(await json("persona", "show", id, "--version", "1")).toMatchObject({
      version: 1,
      note: "onboarding call",
      releaseNote: "Juniper, your garden guide.",
    });

    const updated = await json(
      "persona",
      "update",
      id,
      "--file",
      personaFile("concise"),
      "--note",
      "cheaper target",
      "--release-note",
      "Shorter replies.",
    );
    expect(updated).toMatchObject({ id, version: 2 });
    expect(await json("persona", "show", id, "--version", "live")).toMatchObject({
      version: 2,
      note: "cheaper target",
      releaseNote: "Shorter replies.",
    });

    const draft = await json(
      "persona",
      "update",
      id,
      "--route",
      "offline:offline-composer-2",
      "--draft",
      "--release-note",
      "Fresher wording.",
    );
    expect(draft).toMatchObject({ version: 3, status: "draft", releaseNote: "Fresher wording." });
    expect((await admin("persona", "promote", id, "3")).code).toBe(0);

    // A rollback tells the customer what the version it restores told them, unless given words.
    expect((await admin("persona", "rollback", id, "1")).code).toBe(0);
    expect(
      (await admin("persona", "rollback", id, "2", "--release-note", "Back to short replies."))
        .code,
    ).toBe(0);

    const history = await json("persona", "history", id, "--json");
    expect(
      history.map((version: { note: string | null; releaseNote: string | null }) => [
        version.note,
        version.releaseNote,
      ]),
    ).toEqual([
      ["onboarding call", "Juniper, your garden guide."],
      ["cheaper target", "Shorter replies."],
      [null, "Fresher wording."],
      ["rollback to version 1", "Juniper, your garden guide."],
      ["rollback to version 2", "Back to short replies."],
    ]);
    const table = (await admin("persona", "history", id)).stdout.split("\n");
    expect(table[0]).toMatch(/\bnote\s+release note$/u);
    expect(table[2]).toMatch(/cheaper target\s+Shorter replies\.$/u);

    // The signed-in pages read the live version's release note.
    const [listed] = await services.personas.listWithLiveVersion(accountId);
    expect(listed?.live).toMatchObject({ version: 5, releaseNote: "Back to short replies." });
  });

  it("makes a version for a new release note alone, and none for the live one again", async () => {
    const accountId = (await admin("account", "create", "Words Ltd")).stdout;
    const id = (
      await admin("persona", "create", "--account", accountId, "--file", EXAMPLE_PERSONA_FILE)
    ).stdout;
    const worded = await admin(
      "persona",
      "update",
      id,
      "--file",
      EXAMPLE_PERSONA_FILE,
      "--release-note",
      "Now with a release note.",
    );
    expect(worded.code, worded.stderr).toBe(0);
    expect(await json("persona", "show", id, "--version", "live")).toMatchObject({
      version: 2,
      releaseNote: "Now with a release note.",
    });
    const again = await admin(
      "persona",
      "update",
      id,
      "--file",
      EXAMPLE_PERSONA_FILE,
      "--release-note",
      "Now with a release note.",
    );
    expect(again.stderr).toContain("release note equal the live version 2; no version made");
    expect(await services.personas.history(id)).toHaveLength(2);
  });

  it("refuses an empty, overlong or garbled release note and makes no version", async () => {
    const accountId = (await admin("account", "create", "Refused Ltd")).stdout;
    const id = (
      await admin("persona", "create", "--account", accountId, "--file", EXAMPLE_PERSONA_FILE)
    ).stdout;
    const file = personaFile("detailed");
    for (const [text, reason] of [
      ["   ", /must not be empty/u],
      ["x".repeat(501), /at most 500 characters/u],
      ["line one\u0007", /control characters/u],
    ] as const) {
      const refused = await admin("persona", "update", id, "--file", file, "--release-note", text);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(reason);
    }
    expect(await services.personas.history(id)).toHaveLength(1);
    expect((await services.personas.version(id, 1))?.releaseNote).toBeNull();
  });
});

await describeEachDialect("migration 0023: persona release notes", (database) => {
  let services: Services | undefined;
  const accountId = randomUUID();
  const personaId = randomUUID();
  const createdAt = "2026-03-04T05:06:07.000Z";

  beforeAll(async () => {
    // A persona with its version 1, written before release notes existed.
    await writeOlderDatabase(database, "0023", async (raw) => {
      const typed = raw as unknown as Kysely<Record<string, Record<string, unknown>>>;
      await typed
        .insertInto("accounts")
        .values({ id: accountId, name: "Before release notes", created_at: createdAt })
        .execute();
      const content = {
        name: "Juniper",
        traits: JSON.stringify({ behaviouralGuidelines: { role: "a garden guide" } }),
        route: JSON.stringify([{ upstream: "offline", model: "offline-composer-1" }]),
      };
      await typed
        .insertInto("personas")
        .values({
          id: personaId,
          account_id: accountId,
          ...content,
          provider: "offline",
          model: "offline-composer-1",
          personify_access: 0,
          created_at: createdAt,
          updated_at: createdAt,
        })
        .execute();
      await typed
        .insertInto("persona_versions")
        .values({
          persona_id: personaId,
          version: 1,
          ...content,
          note: "onboarding",
          changes: "[]",
          created_at: createdAt,
          created_by: null,
          promoted_at: createdAt,
        })
        .execute();
    });
    services = await openStore(database.url, { PERSONA_INSTANCE_ID: "release-note-migration" });
  });
  afterAll(async () => {
    await closeStore(services);
  });

  it("keeps older versions without a release note, and takes one on the next", async () => {
    if (services === undefined) throw new Error("not opened");
    expect(await services.personas.version(personaId, 1)).toMatchObject({
      note: "onboarding",
      releaseNote: null,
    });
    const next = await services.personas.revise(
      personaId,
      { name: "Juniper 2" },
      { releaseNote: "A new name." },
    );
    expect(next).toMatchObject({
      kind: "created",
      version: { version: 2, releaseNote: "A new name." },
    });
  });
});

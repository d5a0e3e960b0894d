import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { SCHEMA_MIGRATIONS } from "../src/schema-migrations.js";
import type { Services } from "../src/services.js";
import { migrateToLatest } from "../src/storage/migrations.js";
import { describeEachDialect, openRawDatabase } from "./support/test-databases.js";
import { closeStore, openStore } from "./support/test-store.js";

const TRAITS = JSON.stringify({ behaviouralGuidelines: { role: "a garden guide" } });

/** The migrations before 0010: the schema a database had when persona versions arrived. */
const BEFORE_VERSIONS = Object.fromEntries(
  Object.entries(SCHEMA_MIGRATIONS).filter(([name]) => name < "0010"),
);

await describeEachDialect("migration 0010: persona versions", (database) => {
  let services: Services | undefined;
  const personas = [
    { id: randomUUID(), route: null, provider: "offline", model: "offline-composer-1" },
    {
      id: randomUUID(),
      route: JSON.stringify([{ upstream: "openai", model: "gpt-4o-mini" }]),
      provider: "openai",
      model: "gpt-4o-mini",
    },
  ];
  const accountId = randomUUID();
  const updatedAt = "2026-02-03T04:05:06.000Z";
  const usageId = randomUUID();

  beforeAll(async () => {
    // A database at 0008, with personas and a usage row written before versions.
    const raw = openRawDatabase(database);
    try {
      await migrateToLatest(raw, BEFORE_VERSIONS);
      const typed = raw as Kysely<Record<string, Record<string, unknown>>>;
      await typed
        .insertInto("accounts")
        .values({ id: accountId, name: "Before versions", created_at: updatedAt })
        .execute();
      for (const persona of personas) {
        await typed
          .insertInto("personas")
          .values({
            ...persona,
            account_id: accountId,
            name: "Juniper",
            traits: TRAITS,
            personify_access: 0,
            created_at: "2026-01-01T00:00:00.000Z",
            updated_at: updatedAt,
          })
          .execute();
      }
      await typed
        .insertInto("usage_records")
        .values({
          id: usageId,
          created_at: updatedAt,
          account_id: accountId,
          persona_id: personas[0]?.id,
          endpoint: "generate",
          status: 200,
          payment_method: "balance",
        })
        .execute();
    } finally {
      await raw.destroy();
    }
    services = await openStore(database.url, { PERSONA_INSTANCE_ID: "versions-migration" });
  });
  afterAll(async () => {
    await closeStore(services);
  });

  it("keeps every existing persona as its live version 1, route and all", async () => {
    if (services === undefined) throw new Error("not opened");
    for (const persona of personas) {
      const found = await services.personas.find(persona.id);
      expect(found?.version).toBe(1);
      const history = await services.personas.history(persona.id);
      expect(history).toHaveLength(1);
      expect(history?.[0]).toMatchObject({
        version: 1,
        status: "live",
        name: "Juniper",
        route: [{ upstream: persona.provider, model: persona.model }],
        createdAt: updatedAt,
        promotedAt: updatedAt,
        changes: [],
      });
      expect(history?.[0]?.traits).toEqual(found?.traits);
    }
    // Older usage rows name no version; the next change is version 2.
    const [row] = await services.usage.list(accountId);
    expect(row).toMatchObject({ id: usageId, personaVersion: null });
    const next = await services.personas.revise(personas[0]?.id ?? "", { name: "Juniper 2" });
    expect(next).toMatchObject({ kind: "created", version: { version: 2, changes: ["name"] } });
  });
});

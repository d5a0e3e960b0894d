import { randomUUID } from "node:crypto";
import { Migrator } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PersonaStore } from "../src/personas/persona-store.js";
import { type Database, migrateToLatest, openDatabase } from "../src/storage/database.js";
import { migrationProvider } from "../src/storage/migrations.js";
import {
  createTestDatabase,
  dialectsUnderTest,
  suiteTitle,
  type TestDatabase,
} from "./support/test-databases.js";

const TRAITS = JSON.stringify({ behaviouralGuidelines: { role: "a garden guide" } });

for (const { dialect, skipReason } of await dialectsUnderTest()) {
  describe.skipIf(skipReason !== undefined)(
    suiteTitle("migration 0004: model routes", dialect, skipReason),
    () => {
      let testDatabase: TestDatabase;
      let database: Database;
      beforeAll(async () => {
        testDatabase = await createTestDatabase(dialect);
        database = openDatabase(testDatabase.url);
      });
      afterAll(async () => {
        await database?.destroy();
        await testDatabase?.drop();
      });

      it("keeps personas written before routes on their single provider:model target", async () => {
        const migrator = new Migrator({ db: database, provider: migrationProvider });
        const { error } = await migrator.migrateTo("0003_playground");
        expect(error).toBeUndefined();
        const now = new Date().toISOString();
        const accountId = randomUUID();
        await database
          .insertInto("accounts")
          .values({ id: accountId, name: "Before routes", status: "active", created_at: now })
          .execute();
        const older = [
          { id: randomUUID(), provider: "offline", model: "offline-composer-1" },
          { id: randomUUID(), provider: "openai-compatible", model: "llama3.1:8b" },
        ];
        for (const persona of older) {
          await database
            .insertInto("personas")
            .values({
              ...persona,
              account_id: accountId,
              name: "Juniper",
              traits: TRAITS,
              personify_access: 0,
              created_at: now,
              updated_at: now,
            })
            .execute();
        }

        await migrateToLatest(database);
        const personas = new PersonaStore(database);
        for (const persona of older) {
          expect((await personas.find(persona.id))?.route).toEqual([
            { upstream: persona.provider, model: persona.model },
          ]);
        }

        // A new route is stored whole; the older columns hold its first target.
        const [first] = older;
        const route = [
          { upstream: "openai", model: "gpt-4o-mini" },
          { upstream: "claude", model: "claude-haiku" },
        ];
        expect((await personas.setRoute(first?.id ?? "", route))?.route).toEqual(route);
        const row = await database
          .selectFrom("personas")
          .select(["provider", "model", "route"])
          .where("id", "=", first?.id ?? "")
          .executeTakeFirstOrThrow();
        expect(row).toEqual({
          provider: "openai",
          model: "gpt-4o-mini",
          route: JSON.stringify(route),
        });
      });
    },
  );
}

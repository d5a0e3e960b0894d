import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../src/services.js";
import { describeEachDialect } from "./support/test-databases.js";
import { closeStore, openStore } from "./support/test-store.js";

const TRAITS = JSON.stringify({ behaviouralGuidelines: { role: "a garden guide" } });

await describeEachDialect("migration 0006: model routes", (database) => {
  let services: Services;
  beforeAll(async () => {
    services = await openStore(database.url, { PERSONA_INSTANCE_ID: "model-routes-migration" });
  });
  afterAll(async () => {
    await closeStore(services);
  });

  it("keeps personas written before routes on their single provider:model target", async () => {
    const now = new Date().toISOString();
    const account = await services.accounts.create("Before routes");
    // Rows as the first format wrote them: `provider` and `model`, no `route` (null
    // once migration 0006 added the column).
    const older = [
      { id: randomUUID(), provider: "offline", model: "offline-composer-1" },
      { id: randomUUID(), provider: "openai-compatible", model: "llama3.1:8b" },
    ];
    for (const persona of older) {
      await services.database
        .insertInto("personas")
        .values({
          ...persona,
          account_id: account.id,
          name: "Juniper",
          traits: TRAITS,
          personify_access: 0,
          created_at: now,
          updated_at: now,
        })
        .execute();
    }
    for (const persona of older) {
      expect((await services.personas.find(persona.id))?.route).toEqual([
        { upstream: persona.provider, model: persona.model },
      ]);
    }

    // A new route is stored whole; the older columns hold its first target.
    const [first] = older;
    const route = [
      { upstream: "openai", model: "gpt-4o-mini" },
      { upstream: "claude", model: "claude-haiku" },
    ];
    expect((await services.personas.setRoute(first?.id ?? "", route))?.route).toEqual(route);
    const row = await services.database
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
});

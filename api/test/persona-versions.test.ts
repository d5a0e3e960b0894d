import { afterAll, beforeAll, expect, it } from "vitest";
import { PersonaVersionError } from "../src/personas/persona-versions.js";
import { readExamplePersona } from "../src/seed/demo-seed.js";
import type { Services } from "../src/services.js";
import { describeEachDialect } from "./support/test-databases.js";
import { closeStore, openStore } from "./support/test-store.js";

await describeEachDialect("persona versions", (database) => {
  let services: Services;
  let accountId: string;
  beforeAll(async () => {
    services = await openStore(database.url, { PERSONA_INSTANCE_ID: "persona-versions" });
    accountId = (await services.accounts.create("Versions")).id;
  });
  afterAll(async () => {
    await closeStore(services);
  });

  it("keeps a persona refined twice as three versions, the last one live, under one ID", async () => {
    const example = readExamplePersona();
    const created = await services.personas.create(accountId, example, { note: "onboarding" });
    expect(created.version).toBe(1);
    const concise = {
      ...example.traits,
      communicationStyle: { ...example.traits.communicationStyle, verbosity: "concise" as const },
    };
    const second = await services.personas.update(
      created.id,
      { ...example, traits: concise },
      { note: "shorter replies", createdBy: "ops" },
    );
    expect(second?.id).toBe(created.id);
    expect(second?.version).toBe(2);
    const route = [{ upstream: "offline", model: "offline-composer-2" }];
    const third = await services.personas.setRoute(created.id, route, { note: "new model" });
    expect(third?.version).toBe(3);
    expect(third?.route).toEqual(route);

    const history = await services.personas.history(created.id);
    expect(history?.map((version) => [version.version, version.status, version.note])).toEqual([
      [1, "retired", "onboarding"],
      [2, "retired", "shorter replies"],
      [3, "live", "new model"],
    ]);
    expect(history?.[1]?.changes).toEqual(["traits.communicationStyle.verbosity"]);
    expect(history?.[1]?.createdBy).toBe("ops");
    expect(history?.[2]?.changes).toEqual(["route"]);
    // Version 3 kept version 2's traits; version 1 kept the original ones.
    expect(history?.[2]?.traits.communicationStyle.verbosity).toBe("concise");
    expect((await services.personas.findVersion(created.id, 1))?.traits).toEqual(example.traits);

    // The same content again makes no version.
    const again = await services.personas.revise(created.id, { route });
    expect(again).toMatchObject({ kind: "unchanged", live: { version: 3 } });
    expect(await services.personas.history(created.id)).toHaveLength(3);
  });

  it("serves a draft only once promoted, in the personas row the request path reads", async () => {
    const example = readExamplePersona();
    const persona = await services.personas.create(accountId, example);
    const outcome = await services.personas.revise(
      persona.id,
      { name: "Juniper II" },
      { draft: true, note: "trying a new name" },
    );
    expect(outcome).toMatchObject({ kind: "created", version: { version: 2, status: "draft" } });
    // Live is still version 1, with the old name.
    expect(await services.personas.find(persona.id)).toMatchObject({
      version: 1,
      name: example.name,
    });
    expect((await services.personas.findVersion(persona.id, "draft"))?.name).toBe("Juniper II");
    expect((await services.personas.findVersion(persona.id, "live"))?.version).toBe(1);

    const promoted = await services.personas.promote(persona.id, 2);
    expect(promoted).toMatchObject({ version: 2, status: "live" });
    expect(promoted?.promotedAt).not.toBeNull();
    const row = await services.database
      .selectFrom("personas")
      .select(["name", "live_version"])
      .where("id", "=", persona.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ name: "Juniper II", live_version: 2 });
    expect(await services.personas.findVersion(persona.id, "draft")).toBeUndefined();

    // Promoting again, or a version that served before, or none at all, is refused.
    await expect(services.personas.promote(persona.id, 2)).rejects.toMatchObject({
      code: "already_live",
    });
    await expect(services.personas.promote(persona.id, 1)).rejects.toMatchObject({
      code: "not_draft",
    });
    await expect(services.personas.promote(persona.id, 9)).rejects.toBeInstanceOf(
      PersonaVersionError,
    );
    expect(await services.personas.promote("no-such-persona", 1)).toBeUndefined();
  });

  it("applies a file's /personify access at once when it makes a draft: access is no part of a version", async () => {
    const example = readExamplePersona();
    const persona = await services.personas.create(accountId, {
      ...example,
      personifyAccess: true,
    });
    const drafted = await services.personas.update(
      persona.id,
      { ...example, name: "Juniper Draft", personifyAccess: false },
      { draft: true },
    );
    expect(drafted).toMatchObject({ version: 1, name: example.name, personifyAccess: false });
    await services.personas.promote(persona.id, 2);
    expect(await services.personas.load(persona.id)).toMatchObject({
      version: 2,
      name: "Juniper Draft",
      personifyAccess: false,
    });
  });

  it("rolls back as a new live version equal to the old one", async () => {
    const example = readExamplePersona();
    const persona = await services.personas.create(accountId, example);
    await services.personas.revise(persona.id, { name: "Changed" });
    const rolled = await services.personas.rollback(persona.id, 1);
    expect(rolled).toMatchObject({
      version: 3,
      status: "live",
      name: example.name,
      note: "rollback to version 1",
      changes: ["name"],
    });
    expect((await services.personas.find(persona.id))?.name).toBe(example.name);
    await expect(services.personas.rollback(persona.id, 3)).rejects.toMatchObject({
      code: "already_live",
    });
  });

  it("lists an account's personas with their live versions", async () => {
    const own = (await services.accounts.create("Listing")).id;
    const persona = await services.personas.create(own, readExamplePersona());
    await services.personas.revise(persona.id, { name: "Live two" }, { note: "renamed" });
    await services.personas.revise(persona.id, { name: "Draft three" }, { draft: true });
    const listed = await services.personas.listWithLiveVersion(own);
    expect(listed.map(({ persona: p, live }) => [p.id, p.name, live.version, live.note])).toEqual([
      [persona.id, "Live two", 2, "renamed"],
    ]);
  });
});

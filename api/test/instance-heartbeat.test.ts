import type { Kysely } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { InstanceHeartbeat } from "../src/instances/instance-heartbeat.js";
import { instanceUpstreamsMigration } from "../src/instances/instance-upstreams-migration.js";
import { liveInstances, STALE_AFTER_MS } from "../src/instances/live-instances.js";
import { createLogger } from "../src/logging/logger.js";
import type { Services } from "../src/services.js";
import { describeEachDialect } from "./support/test-databases.js";
import { closeStore, openStore } from "./support/test-store.js";

// The heartbeat of a running instance, in this process on a real store:
// its row is refreshed while it runs, a failed write is logged once and
// never thrown, and the row is gone when it stops. Stale rows are ignored.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check` holds (polling), or fails after `ms`. */
async function until(check: () => Promise<boolean>, ms = 3000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    expect(Date.now() - started, "waited too long").toBeLessThan(ms);
    await sleep(20);
  }
}

await describeEachDialect("instance heartbeat", (database) => {
  let services: Services;
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = createLogger("info", {
    write(chunk: string) {
      for (const line of chunk.split("\n")) if (line.trim() !== "") lines.push(JSON.parse(line));
    },
  });
  beforeAll(async () => {
    services = await openStore(database.url);
  });
  afterAll(() => closeStore(services));

  const rowOf = (id: string) =>
    services.database
      .selectFrom("instance_upstreams")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirst();

  it("refreshes its row while it runs, survives failed writes, and deletes the row when it stops", async () => {
    const heartbeat = new InstanceHeartbeat(services.database, {
      name: "web-1:4242",
      upstreams: ["offline", "claude"],
      logger,
      intervalMs: 50,
    });
    await heartbeat.start();
    const first = await rowOf(heartbeat.id);
    expect(first).toMatchObject({
      instance: "web-1:4242",
      started_at: heartbeat.startedAt,
      upstreams: JSON.stringify(["claude", "offline"]),
    });
    await until(
      async () => ((await rowOf(heartbeat.id))?.heartbeat_at ?? "") > (first?.heartbeat_at ?? ""),
    );
    expect((await liveInstances(services.database)).map((live) => live.instance)).toEqual([
      "web-1:4242",
    ]);

    // Writes fail while the table is gone: logged once, never thrown; then written again.
    await services.database.schema.dropTable("instance_upstreams").execute();
    await until(async () =>
      lines.some((line) => line.msg.startsWith("could not write this instance's heartbeat")),
    );
    await sleep(200);
    expect(
      lines.filter((line) => line.msg.startsWith("could not write")).map((line) => line.level),
    ).toEqual([40]);
    await instanceUpstreamsMigration.up(services.database as unknown as Kysely<unknown>);
    await until(async () => (await rowOf(heartbeat.id)) !== undefined);
    await until(async () => lines.some((line) => line.msg === "instance heartbeat written again"));

    await heartbeat.stop();
    expect(await rowOf(heartbeat.id)).toBeUndefined();
    await sleep(150);
    expect(await rowOf(heartbeat.id)).toBeUndefined();
  });

  it("lists only instances whose heartbeat is at most STALE_AFTER_MS old", async () => {
    const now = Date.now();
    const row = (id: string, ageMs: number) => ({
      id,
      instance: id,
      started_at: new Date(now - 3_600_000).toISOString(),
      heartbeat_at: new Date(now - ageMs).toISOString(),
      upstreams: JSON.stringify(["offline"]),
    });
    await services.database
      .insertInto("instance_upstreams")
      .values([
        row("fresh", 1000),
        row("edge", STALE_AFTER_MS - 1000),
        row("stale", STALE_AFTER_MS + 1000),
      ])
      .execute();
    expect((await liveInstances(services.database, now)).map((live) => live.instance)).toEqual([
      "edge",
      "fresh",
    ]);
  });
});

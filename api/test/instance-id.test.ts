import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { loadConfig } from "../src/config/config.js";
import { createServices } from "../src/create-services.js";
import { createLogger } from "../src/logging/logger.js";
import type { Services } from "../src/services.js";
import { describeEachDialect } from "./support/test-databases.js";
import { closeStore } from "./support/test-store.js";

// Without PERSONA_INSTANCE_ID an instance names itself its dialect's way
// (billing/reservations-dialect.ts): on SQLite after the database file, so
// the one instance of a file, restarted after a crash, releases the
// reservations it left at once; on PostgreSQL at random, so instances
// sharing the database never release each other's.

const envDirectory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-instance-id-"));

function openUnnamed(databaseUrl: string): Promise<Services> {
  const config = loadConfig({
    PERSONA_DATABASE_URL: databaseUrl,
    PERSONA_LOG_LEVEL: "silent",
    // A file no one writes: never the checkout's ./.env.
    PERSONA_ENV_FILE: path.join(envDirectory, ".env"),
  });
  return createServices(config, createLogger("silent"));
}

afterAll(() => fs.rmSync(envDirectory, { recursive: true, force: true }));

await describeEachDialect("the instance's name when PERSONA_INSTANCE_ID is unset", (database) => {
  it("SQLite: the file's, so a restart releases what it left; PostgreSQL: its own", async () => {
    let first: Services | undefined = await openUnnamed(database.url);
    let second: Services | undefined;
    try {
      const account = await first.accounts.create("Left behind");
      await first.billing.balances.topUp(account.id, 10_000, "funds");
      const held = await first.billing.balances.reserve(account.id, 4_000, "crashed-request");
      expect(held?.amountMicros).toBe(4_000);
      const firstName = first.billing.balances.instanceId;
      // The process goes away with its reservation held.
      await closeStore(first);
      first = undefined;

      second = await openUnnamed(database.url);
      await second.billing.startSweeper();
      const secondName = second.billing.balances.instanceId;
      const reserved = (await second.billing.balances.balanceOf(account.id))?.reservedMicros;
      if (database.dialect === "sqlite") {
        expect(firstName).toMatch(/^sqlite-[0-9a-f]{16}$/u);
        expect(secondName).toBe(firstName);
        expect(reserved).toBe(0);
      } else {
        expect(firstName).toMatch(/^[0-9a-f-]{36}$/u);
        expect(secondName).toMatch(/^[0-9a-f-]{36}$/u);
        expect(secondName).not.toBe(firstName);
        // Another instance's hold stays until it expires.
        expect(reserved).toBe(4_000);
      }
    } finally {
      await closeStore(first);
      await closeStore(second);
    }
  });
});

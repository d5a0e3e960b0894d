import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SpawnedService, spawnService } from "../../test-support/spawn-service.js";
import {
  createTestDatabase,
  openRawDatabase,
  postgresUnavailable,
  suiteTitle,
  type TestDatabase,
} from "./support/test-databases.js";

// The first instance on an empty PostgreSQL database migrates it: an
// ordinary start, which the log must not report as a failure.
const skipReason = await postgresUnavailable();

/** pino's levels: 40 warn, 50 error, 60 fatal. */
const WARN = 40;

describe.skipIf(skipReason !== undefined)(
  suiteTitle("the first start on an empty database", "postgres", skipReason),
  () => {
    let database: TestDatabase;
    let directory: string;
    let service: SpawnedService | undefined;
    beforeAll(async () => {
      database = await createTestDatabase("postgres");
      directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-first-start-"));
    });
    afterAll(async () => {
      await service?.stop();
      await database?.drop();
      if (directory !== undefined) fs.rmSync(directory, { recursive: true, force: true });
    });

    it("migrates and becomes ready without a warning or error line", async () => {
      service = await spawnService(directory, { PERSONA_DATABASE_URL: database.url });
      const ready = await fetch(`${service.url}/readyz`);
      expect(ready.status, await ready.text()).toBe(200);
      const entries = service
        .output()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { level: number; msg: string });
      expect(entries.some((entry) => entry.msg === "Persona Reply is listening")).toBe(true);
      expect(entries.filter((entry) => entry.level >= WARN)).toEqual([]);
    });

    it("still refuses a database written by a newer version once it has migrations (exit 78)", async () => {
      await service?.stop();
      service = undefined;
      const raw = openRawDatabase(database);
      try {
        await sql`insert into kysely_migration (name, timestamp) values ('9999_from_the_future', '')`.execute(
          raw,
        );
      } finally {
        await raw.destroy();
      }
      await expect(spawnService(directory, { PERSONA_DATABASE_URL: database.url })).rejects.toThrow(
        /exited with 78[\s\S]*9999_from_the_future/u,
      );
    });
  },
);

import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Sqlite from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe } from "vitest";
import { SCHEMA_MIGRATIONS } from "../../src/schema-migrations.js";
import type { DatabaseDialect } from "../../src/storage/database.js";
import { migrateToLatest } from "../../src/storage/migrations.js";
import type { DatabaseSchema } from "../../src/storage/schema.js";

/**
 * The databases of the storage suites, which run once per dialect from one
 * suite (as kysely's DIALECTS loop does). PostgreSQL is the
 * development and CI server at 127.0.0.1:5432 (trust auth, database
 * `test`); every test run creates its own database next to it and drops
 * it afterwards, so engineers running tests at once never meet.
 */
export const DIALECTS: readonly DatabaseDialect[] = ["sqlite", "postgres"];

/** Where the shared PostgreSQL server is reached (only to create and drop test databases). */
export const POSTGRES_ADMIN_URL =
  process.env.PERSONA_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** A fresh, empty database of one dialect. */
export interface TestDatabase {
  dialect: DatabaseDialect;
  /** What `PERSONA_DATABASE_URL` is set to: a SQLite file or a PostgreSQL URL. */
  url: string;
  /** Drops the database (or deletes the file). */
  drop(): Promise<void>;
}

async function withAdminClient<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({
    connectionString: POSTGRES_ADMIN_URL,
    connectionTimeoutMillis: 3000,
  });
  client.on("error", () => undefined);
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

let reachability: Promise<string | undefined> | undefined;

/**
 * Says why PostgreSQL cannot be used, or undefined when it can. In CI
 * (`CI=true`) an unreachable server is an error: the suites fail, never skip.
 *
 * @throws when `CI=true` and the server cannot be reached
 */
export function postgresUnavailable(): Promise<string | undefined> {
  reachability ??= withAdminClient(async (client) => {
    await client.query("select 1");
    return undefined;
  }).catch((error: unknown) => {
    const reason = `PostgreSQL unreachable at ${POSTGRES_ADMIN_URL.replace(/\/\/[^@]*@/u, "//")} (${(error as Error).message})`;
    if (process.env.CI === "true") throw new Error(`${reason}; CI runs every suite on PostgreSQL`);
    return reason;
  });
  return reachability;
}

/**
 * The dialects to run with, each with a reason to skip it (locally only,
 * when PostgreSQL is not running), for `describe.skipIf`.
 */
export async function dialectsUnderTest(): Promise<
  Array<{ dialect: DatabaseDialect; skipReason: string | undefined }>
> {
  const postgres = await postgresUnavailable();
  return DIALECTS.map((dialect) => ({
    dialect,
    skipReason: dialect === "postgres" ? postgres : undefined,
  }));
}

/** Titles a dialect's suite, saying why it was skipped if it was. */
export function suiteTitle(title: string, dialect: DatabaseDialect, skipReason?: string): string {
  return skipReason === undefined
    ? `${title} [${dialect}]`
    : `${title} [${dialect}] (skipped: ${skipReason})`;
}

/** Creates a fresh database of a dialect (`persona_test_<random>` on PostgreSQL). */
export async function createTestDatabase(dialect: DatabaseDialect): Promise<TestDatabase> {
  if (dialect === "sqlite") {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-store-"));
    return {
      dialect,
      url: path.join(directory, "store.sqlite"),
      drop: async () => fs.rmSync(directory, { recursive: true, force: true }),
    };
  }
  const name = `persona_test_${randomBytes(8).toString("hex")}`;
  await withAdminClient(async (client) => {
    // CREATE DATABASE copies template1 and fails while another session
    // copies it at the same moment; a short retry covers parallel runs.
    for (let attempt = 0; ; attempt += 1) {
      try {
        await client.query(`CREATE DATABASE ${name}`);
        return;
      } catch (error) {
        if (attempt >= 10 || !/being accessed by other users/u.test(String(error))) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200 + attempt * 100));
      }
    }
  });
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    dialect,
    url: url.toString(),
    drop: () =>
      withAdminClient(async (client) => {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }),
  };
}

/** The database of one dialect's suite: known by dialect at once, by URL once its suite started. */
export type SuiteDatabase = TestDatabase;

/**
 * Declares a suite once per dialect (kysely's DIALECTS loop, from one
 * setup): `describe` titled `title [dialect]` (skipped, with the reason,
 * when PostgreSQL is not running locally), with a fresh database created
 * before its tests and dropped after its own `afterAll` hooks ran.
 *
 * @param body - declares the tests; `database.url` may be read once a hook or test runs
 *
 * @example
 * await describeEachDialect("storage", (database) => {
 *   beforeAll(async () => { services = await openStore(database.url); });
 *   it("…", () => {});
 * });
 */
export async function describeEachDialect(
  title: string,
  body: (database: SuiteDatabase) => void,
): Promise<void> {
  for (const { dialect, skipReason } of await dialectsUnderTest()) {
    describe.skipIf(skipReason !== undefined)(suiteTitle(title, dialect, skipReason), () => {
      let created: TestDatabase | undefined;
      const database: SuiteDatabase = {
        dialect,
        get url(): string {
          if (created === undefined)
            throw new Error(`the ${dialect} test database is not created yet`);
          return created.url;
        },
        drop: async () => created?.drop(),
      };
      // Registered first, so it runs last: after the suite's own afterAll closed its stores.
      beforeAll(async () => {
        created = await createTestDatabase(dialect);
      });
      afterAll(async () => {
        await created?.drop();
      });
      body(database);
    });
  }
}

/**
 * A bare kysely connection to a suite's database (no migrations run, no
 * service): for writing a database as an older version left it, before the
 * store opens it. One connection; `destroy()` it when done.
 */
export function openRawDatabase<Schema = unknown>(database: TestDatabase): Kysely<Schema> {
  return new Kysely<Schema>({
    dialect:
      database.dialect === "sqlite"
        ? new SqliteDialect({ database: new Sqlite(database.url) })
        : new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 1 }) }),
  });
}

/**
 * Writes a suite's database as an older version of the service left it:
 * applies the migrations whose names sort before `before` (`"0019"`: up to
 * 0018), then runs `write` on a bare connection, then closes it. The store
 * opened afterwards runs the rest.
 */
export async function writeOlderDatabase(
  database: TestDatabase,
  before: string,
  write: (raw: Kysely<DatabaseSchema>) => Promise<void>,
): Promise<void> {
  const raw = openRawDatabase<DatabaseSchema>(database);
  try {
    await migrateToLatest(
      raw as unknown as Kysely<unknown>,
      Object.fromEntries(Object.entries(SCHEMA_MIGRATIONS).filter(([name]) => name < before)),
    );
    await write(raw);
  } finally {
    await raw.destroy();
  }
}

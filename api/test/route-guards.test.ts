import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolatedEnvironment } from "../../test-support/isolated-process.js";
import {
  ADMIN_SCRIPT,
  type SpawnedService,
  spawnService,
} from "../../test-support/spawn-service.js";
import { AllowedEmailStore } from "../src/playground/allowed-email-store.js";
import { SessionStore } from "../src/playground/session-store.js";
import type { Services } from "../src/services.js";
import { expectErrorFormat } from "./support/error-format.js";
import { type FakeUpstream, startFakeUpstream } from "./support/fake-upstream.js";
import { PageClient } from "./support/page-client.js";
import {
  createTestDatabase,
  postgresUnavailable,
  suiteTitle,
  type TestDatabase,
} from "./support/test-databases.js";
import { closeStore, createCustomer, openStore, type StoreCustomer } from "./support/test-store.js";
import { writeUpstreamsFile } from "./support/upstreams-file.js";

// Guards so that no persona change stops a customer: every running
// instance publishes the upstreams it can serve; persona-admin refuses a
// route one of them lacks (naming it), `--force` goes through and is kept
// in the persona's history; and an instance that cannot serve a route
// answers 503 in each endpoint's format, charging nothing. Real service
// processes from the built files, persona-admin as the operator runs it.

/** Log line of an instance refusing a persona whose route it cannot serve. */
const UNSERVABLE_LOG = "a persona's route names no upstream this instance can serve";

/**
 * The instance's log lines about personas it cannot serve, once the first
 * reached its output (the service writes logs asynchronously, within 200 ms).
 */
async function unservableLines(instance: SpawnedService): Promise<string[]> {
  const started = Date.now();
  for (;;) {
    const lines = instance
      .output()
      .split("\n")
      .filter((line) => line.includes(UNSERVABLE_LOG));
    if (lines.length > 0 || Date.now() - started > 3000) return lines;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The `extra` upstream, which only persona-admin (and, on PostgreSQL, instance A) configures. */
function extraUpstreamFile(baseUrl: string) {
  return writeUpstreamsFile({
    extra: {
      kind: "openai-compatible",
      baseUrl,
      apiKeyEnv: "EXTRA_UPSTREAM_KEY",
      price: { requestMicros: 300 },
    },
  });
}

/** persona-admin with the given environment (its database and upstream file). */
function adminWith(environment: Record<string, string>, cwd: string) {
  return (...args: string[]) => {
    const result = spawnSync(process.execPath, [ADMIN_SCRIPT, ...args], {
      cwd,
      env: isolatedEnvironment(environment),
      encoding: "utf8",
    });
    return { code: result.status, stdout: result.stdout.trim(), stderr: result.stderr.trim() };
  };
}

/** The instance's count of 503s for a persona whose route it cannot serve (`/metrics`). */
async function unservableCount(url: string, personaId: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const pattern = new RegExp(
    `^persona_route_unservable_total\\{persona="${personaId}"\\} (\\d+)$`,
    "mu",
  );
  return Number(pattern.exec(text)?.[1] ?? 0);
}

/** What an account holds and has been charged, to compare before and after. */
async function moneyOf(store: Services, accountId: string) {
  const balance = await store.billing.balances.balanceOf(accountId);
  const usage = await store.usage.list(accountId);
  return {
    balanceMicros: balance?.balanceMicros,
    reservedMicros: balance?.reservedMicros,
    chargedMicros: usage.reduce((sum, row) => sum + row.costMicros, 0),
  };
}

function generate(url: string, customer: StoreCustomer): Promise<Response> {
  return fetch(`${url}/api/v1/generate`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": customer.key },
    body: JSON.stringify({
      personaId: customer.persona.id,
      messages: [{ role: "user", content: "Hello!" }],
    }),
  });
}

/** Sends /generate until the instance has learnt of the route change (it answers 503). */
async function untilUnservable(url: string, customer: StoreCustomer): Promise<void> {
  const started = Date.now();
  for (;;) {
    const response = await generate(url, customer);
    await response.arrayBuffer();
    if (response.status === 503) return;
    expect(response.status).toBe(200);
    expect(Date.now() - started, "the change reaches every instance within a second").toBeLessThan(
      3000,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * One request of each endpoint family to an instance that cannot serve the
 * customer's persona: /generate, /personify, /completions and the
 * playground's two; each must be a 503 in its family's error format.
 *
 * @returns how many requests were sent
 */
async function expectUnservableEverywhere(
  url: string,
  store: Services,
  customer: StoreCustomer,
): Promise<number> {
  const api = (pathname: string, body: unknown) =>
    fetch(`${url}${pathname}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${customer.key}` },
      body: JSON.stringify(body),
    });
  const personaId = customer.persona.id;
  const messages = [{ role: "user", content: "Which herbs like shade?" }];
  await new AllowedEmailStore(store.database).allow("owner@example.com", customer.accountId);
  const { token } = await new SessionStore(store.database, 3_600_000).create({
    accountId: customer.accountId,
    email: "owner@example.com",
    userAgent: "test",
  });
  const browser = new PageClient(url);
  browser.cookies.set("persona_session", token);
  const { csrf } = await browser.page("/playground");
  const playground = (pathname: string, body: unknown) =>
    browser.request(pathname, {
      method: "POST",
      headers: { "content-type": "application/json", "x-csrf-token": csrf },
      body: JSON.stringify(body),
    });
  const answers = [
    { format: "native", response: await api("/api/v1/generate", { personaId, messages }) },
    { format: "native", response: await api("/api/v1/personify", { personaId, raw: "Hi all." }) },
    {
      format: "completions",
      response: await api("/api/v1/completions", { model: personaId, prompt: "Hello!" }),
    },
    {
      format: "json",
      response: await playground("/playground/api/generate", { personaId, messages }),
    },
    {
      format: "json",
      response: await playground("/playground/api/personify", { personaId, raw: "Hi all." }),
    },
  ] as const;
  for (const { format, response } of answers) {
    const text = await response.text();
    const where = `${format} ${response.url}: ${text}`;
    expect(response.status, where).toBe(503);
    expectErrorFormat(
      format,
      { status: 503, contentType: response.headers.get("content-type") ?? "", text },
      where,
    );
    const error = (JSON.parse(text) as { error: { type: string; message: string } }).error;
    expect(error.type, where).toBe(format === "completions" ? "server_error" : "route_unservable");
    expect(error.message, where).toMatch(/cannot serve the persona's model route/u);
    // The client never learns the operator's upstream names.
    expect(error.message, where).not.toContain("extra");
  }
  return answers.length;
}

describe("persona route guards with one instance on SQLite", () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-route-guards-"));
  const file = path.join(directory, "store.sqlite");
  const upstreams = extraUpstreamFile("http://127.0.0.1:9/v1");
  // The operator's CLI knows `extra`; the running service does not.
  const admin = adminWith(
    {
      PERSONA_DATABASE_URL: file,
      PERSONA_UPSTREAMS_FILE: upstreams.file,
      EXTRA_UPSTREAM_KEY: "extra-key-for-tests",
    },
    directory,
  );
  let instance: SpawnedService;
  let store: Services;
  let customer: StoreCustomer;
  let named: string;

  beforeAll(async () => {
    instance = await spawnService(directory, {
      PERSONA_DATABASE_URL: file,
      PERSONA_SEED_DEMO: "false",
      PERSONA_ENV_FILE: path.join(directory, "service.env"),
    });
    store = await openStore(file);
    customer = await createCustomer(store, {
      balanceMicros: 1_000_000,
      limits: { minute: 1000, hour: 1000, day: 1000 },
      persona: { personifyAccess: true },
    });
    const [row] = await store.database.selectFrom("instance_upstreams").selectAll().execute();
    named = `${os.hostname()}:${instance.child.pid} (started ${row?.started_at})`;
  }, 60_000);
  afterAll(async () => {
    await instance?.stop();
    await closeStore(store);
    upstreams.remove();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  it("publishes the running instance and the upstreams it serves", async () => {
    const rows = await store.database.selectFrom("instance_upstreams").selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.instance).toBe(`${os.hostname()}:${instance.child.pid}`);
    expect(JSON.parse(rows[0]?.upstreams ?? "")).toEqual(["offline"]);
  });

  it("refuses persona update --route to an upstream the instance lacks, naming it; --force records it", () => {
    const id = customer.persona.id;
    const refused = admin("persona", "update", id, "--route", "extra:fake-model");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `persona-admin: route extra:fake-model: 1 of 1 running instances lack its upstreams: ${named} lacks extra; configure the upstreams there (PERSONA_UPSTREAMS_FILE and their key variables) and restart them, or pass --force (they then answer 503 for this persona)`,
    );
    expect(JSON.parse(admin("persona", "show", id).stdout)).toMatchObject({
      version: 1,
      route: ["offline:offline-composer-1"],
    });

    const forced = admin("persona", "update", id, "--route", "extra:fake-model", "--force");
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toContain(`forced: ${named} lacked extra`);
    const history = JSON.parse(admin("persona", "history", id, "--json").stdout) as Array<{
      version: number;
      note: string | null;
    }>;
    expect(history.at(-1)).toMatchObject({ version: 2, note: `forced: ${named} lacked extra` });
  });

  it("answers 503 in every endpoint family's format, charges nothing, counts and logs it once", async () => {
    await untilUnservable(instance.url, customer);
    const before = await moneyOf(store, customer.accountId);
    const counted = await unservableCount(instance.url, customer.persona.id);
    const sent = await expectUnservableEverywhere(instance.url, store, customer);
    expect(await moneyOf(store, customer.accountId)).toEqual({ ...before, reservedMicros: 0 });
    expect(await unservableCount(instance.url, customer.persona.id)).toBe(counted + sent);
    const refusals = (await store.usage.list(customer.accountId)).filter(
      (row) => row.status === 503,
    );
    expect(refusals.length).toBeGreaterThanOrEqual(sent);
    expect(refusals.every((row) => row.costMicros === 0)).toBe(true);
    // Logged once a minute per persona at most, naming the persona and the upstream, never a key.
    const logged = await unservableLines(instance);
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0] ?? "{}")).toMatchObject({
      level: 40,
      personaId: customer.persona.id,
      missingUpstreams: ["extra"],
    });
    expect(instance.output()).not.toContain(customer.key);
    expect(instance.output()).not.toContain('"code":"internal_error"');
  });

  it("guards promote and rollback the same way: a draft is told, going live is refused or forced", () => {
    const id = customer.persona.id;
    // Version 3: back to the offline engine, which the instance serves.
    const back = admin("persona", "rollback", id, "1");
    expect(back.code, back.stderr).toBe(0);
    const draft = admin("persona", "update", id, "--route", "extra:other-model", "--draft");
    expect(draft.code, draft.stderr).toBe(0);
    expect(draft.stderr).toContain(`${named} lacks extra`);
    expect(draft.stderr).toContain("a draft is not refused");

    const promote = admin("persona", "promote", id, "4");
    expect(promote.code).toBe(1);
    expect(promote.stderr).toContain(
      `1 of 1 running instances lack its upstreams: ${named} lacks extra`,
    );
    expect(admin("persona", "promote", id, "4", "--force").code).toBe(0);

    expect(admin("persona", "rollback", id, "3").code).toBe(0);
    const rollback = admin("persona", "rollback", id, "2");
    expect(rollback.code).toBe(1);
    expect(rollback.stderr).toContain(`${named} lacks extra`);
    expect(admin("persona", "rollback", id, "2", "--force").code).toBe(0);

    const notes = (
      JSON.parse(admin("persona", "history", id, "--json").stdout) as Array<{ note: string | null }>
    ).map((version) => version.note);
    expect(notes.slice(2)).toEqual([
      "rollback to version 1",
      `forced: ${named} lacked extra`,
      "rollback to version 3",
      `rollback to version 2; forced: ${named} lacked extra`,
    ]);
  });

  it("guards a canary as a promotion: refused naming the instance, --force kept in its history", () => {
    const id = customer.persona.id;
    // Live back on the offline engine; version 2 routes to `extra`, which the instance lacks.
    expect(admin("persona", "rollback", id, "1").code).toBe(0);
    const refused = admin("persona", "canary", id, "2", "--percent", "10");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `1 of 1 running instances lack its upstreams: ${named} lacks extra`,
    );
    expect(JSON.parse(admin("persona", "status", id, "--json").stdout)).toMatchObject({
      canary: null,
    });

    const forced = admin("persona", "canary", id, "2", "--percent", "10", "--force");
    expect(forced.code, forced.stderr).toBe(0);
    const status = JSON.parse(admin("persona", "status", id, "--json").stdout) as {
      canary: { version: number } | null;
      events: Array<{ action: string; details: Record<string, unknown> | null }>;
    };
    expect(status.canary).toMatchObject({ version: 2, percent: 10 });
    expect(status.events.at(-1)).toMatchObject({
      action: "start",
      details: { forced: `forced: ${named} lacked extra` },
    });
    expect(admin("persona", "canary", id, "--stop").code).toBe(0);
  });

  it("deletes the instance's row when it stops; then persona-admin checks its own upstreams and says so", async () => {
    expect(await instance.stop()).toBe(0);
    expect(await store.database.selectFrom("instance_upstreams").selectAll().execute()).toEqual([]);
    const id = customer.persona.id;
    const known = admin("persona", "update", id, "--route", "extra:third-model");
    expect(known.code, known.stderr).toBe(0);
    expect(known.stderr).toMatch(/^no instance of the service is running/u);
    const unknown = admin("persona", "update", id, "--route", "nowhere:model");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^no instance of the service is running/u);
    expect(unknown.stderr).toContain(
      'persona-admin: nowhere:model: no upstream named "nowhere" is configured (configured: extra, offline)',
    );
    // Its own upstreams decide for a draft too, as they always did.
    expect(admin("persona", "update", id, "--route", "nowhere:model", "--draft").code).toBe(1);
  });
});

const skipReason = await postgresUnavailable();

describe.skipIf(skipReason !== undefined)(
  suiteTitle("persona route guards with two instances on one database", "postgres", skipReason),
  () => {
    let database: TestDatabase;
    let store: Services;
    let directory: string;
    let upstream: FakeUpstream;
    let upstreams: ReturnType<typeof extraUpstreamFile>;
    let admin: ReturnType<typeof adminWith>;
    let customer: StoreCustomer;
    /** Instance A serves `extra` (its own upstream file); instance B only the offline engine. */
    const instances: SpawnedService[] = [];
    const startedAt = new Map<string, string>();

    beforeAll(async () => {
      database = await createTestDatabase("postgres");
      store = await openStore(database.url);
      directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-route-guards-"));
      upstream = await startFakeUpstream();
      upstreams = extraUpstreamFile(upstream.baseUrl);
      const common = {
        PERSONA_DATABASE_URL: database.url,
        PERSONA_SEED_DEMO: "false",
        PERSONA_PROVIDER_MAX_RETRIES: "0",
      };
      for (const [name, own] of [
        ["a", { PERSONA_UPSTREAMS_FILE: upstreams.file, EXTRA_UPSTREAM_KEY: "extra-key" }],
        ["b", {}],
      ] as const) {
        instances.push(
          await spawnService(directory, {
            ...common,
            ...own,
            PERSONA_INSTANCE_ID: `instance-${name}`,
            PERSONA_ENV_FILE: path.join(directory, `${name}.env`),
          }),
        );
      }
      for (const row of await store.database
        .selectFrom("instance_upstreams")
        .selectAll()
        .execute()) {
        startedAt.set(row.instance, row.started_at);
      }
      // The operator runs persona-admin with instance A's upstream file.
      admin = adminWith(
        {
          PERSONA_DATABASE_URL: database.url,
          PERSONA_UPSTREAMS_FILE: upstreams.file,
          EXTRA_UPSTREAM_KEY: "extra-key",
        },
        directory,
      );
      customer = await createCustomer(store, {
        balanceMicros: 1_000_000,
        limits: { minute: 1000, hour: 1000, day: 1000 },
        persona: { personifyAccess: true },
      });
    }, 60_000);
    afterAll(async () => {
      await Promise.all(instances.map((instance) => instance.stop()));
      await closeStore(store);
      await database?.drop();
      await upstream?.close();
      upstreams?.remove();
      if (directory !== undefined) fs.rmSync(directory, { recursive: true, force: true });
    });

    const named = (instance: string) => `${instance} (started ${startedAt.get(instance)})`;

    it("publishes both instances with the upstreams each serves", async () => {
      const rows = await store.database
        .selectFrom("instance_upstreams")
        .select(["instance", "upstreams"])
        .orderBy("instance")
        .execute();
      expect(rows).toEqual([
        { instance: "instance-a", upstreams: JSON.stringify(["extra", "offline"]) },
        { instance: "instance-b", upstreams: JSON.stringify(["offline"]) },
      ]);
    });

    it("refuses persona update --route to an upstream only instance A serves, naming instance B", () => {
      const id = customer.persona.id;
      const refused = admin(
        "persona",
        "update",
        id,
        "--route",
        "extra:fake-model",
        "--note",
        "to extra",
      );
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        /^persona-admin: route extra:fake-model: 1 of 2 running instances lack its upstreams: /u,
      );
      expect(refused.stderr).toContain(`${named("instance-b")} lacks extra;`);
      expect(refused.stderr).not.toContain("instance-a");
      expect(JSON.parse(admin("persona", "show", id).stdout).version).toBe(1);
    });

    it("lets --force through and keeps it in persona history", () => {
      const id = customer.persona.id;
      const forced = admin(
        "persona",
        "update",
        id,
        "--route",
        "extra:fake-model",
        "--note",
        "to extra",
        "--force",
      );
      expect(forced.code, forced.stderr).toBe(0);
      const note = `to extra; forced: ${named("instance-b")} lacked extra`;
      const history = JSON.parse(admin("persona", "history", id, "--json").stdout) as Array<{
        version: number;
        status: string;
        note: string | null;
      }>;
      expect(history.at(-1)).toEqual(expect.objectContaining({ version: 2, status: "live", note }));
      expect(admin("persona", "history", id).stdout.split("\n").at(-1)).toMatch(
        new RegExp(`^2\\s+live\\s.*route\\s+${note.replace(/[()]/gu, "\\$&")}$`, "u"),
      );
    });

    it("instance B answers 503 in each endpoint family's format, charges nothing and counts it; A serves", async () => {
      const [a, b] = instances as [SpawnedService, SpawnedService];
      await untilUnservable(b.url, customer);
      const served = await generate(a.url, customer);
      expect(served.status, await served.clone().text()).toBe(200);
      expect(((await served.json()) as { result: { finalReply: string } }).result.finalReply).toBe(
        "Hello from upstream.",
      );

      const before = await moneyOf(store, customer.accountId);
      const counted = await unservableCount(b.url, customer.persona.id);
      const sent = await expectUnservableEverywhere(b.url, store, customer);
      expect(await moneyOf(store, customer.accountId)).toEqual({ ...before, reservedMicros: 0 });
      expect(await store.billing.balances.ledgerSum(customer.accountId)).toBe(before.balanceMicros);
      expect(await unservableCount(b.url, customer.persona.id)).toBe(counted + sent);
      expect(await unservableCount(a.url, customer.persona.id)).toBe(0);
      const logged = await unservableLines(b);
      expect(logged).toHaveLength(1);
      expect(logged[0]).toContain(customer.persona.id);
      expect(logged[0]).toContain('"missingUpstreams":["extra"]');
      expect(b.output()).not.toContain(customer.key);
    });

    it("deletes a stopped instance's row; the route then goes through without --force", async () => {
      const b = instances[1] as SpawnedService;
      expect(await b.stop()).toBe(0);
      const rows = await store.database
        .selectFrom("instance_upstreams")
        .select("instance")
        .execute();
      expect(rows).toEqual([{ instance: "instance-a" }]);
      const moved = admin("persona", "update", customer.persona.id, "--route", "extra:other-model");
      expect(moved.code, moved.stderr).toBe(0);
      expect(moved.stderr).toBe("");
    });

    it("ignores a row whose heartbeat is stale, and heeds the same row while it is fresh", async () => {
      const ghost = {
        id: "ghost-row",
        instance: "ghost",
        started_at: "2026-01-01T00:00:00.000Z",
        heartbeat_at: new Date(Date.now() - 60_000).toISOString(),
        upstreams: JSON.stringify(["offline"]),
      };
      await store.database.insertInto("instance_upstreams").values(ghost).execute();
      const id = customer.persona.id;
      const ignored = admin("persona", "update", id, "--route", "extra:third-model");
      expect(ignored.code, ignored.stderr).toBe(0);

      await store.database
        .updateTable("instance_upstreams")
        .set({ heartbeat_at: new Date().toISOString() })
        .where("id", "=", ghost.id)
        .execute();
      const heeded = admin("persona", "update", id, "--route", "extra:fourth-model");
      expect(heeded.code).toBe(1);
      expect(heeded.stderr).toContain(
        "1 of 2 running instances lack its upstreams: ghost (started 2026-01-01T00:00:00.000Z) lacks extra",
      );
      await store.database.deleteFrom("instance_upstreams").where("id", "=", ghost.id).execute();
    });
  },
);

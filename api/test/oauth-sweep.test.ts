import { randomBytes, randomUUID } from "node:crypto";
import type { OAuthClientInformationFull } from "@modelcontextprotocol/sdk/shared/auth.js";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { OAUTH_SWEEP_MAX_BATCHES, sweepExpiredOAuth } from "../src/oauth/oauth-sweep.js";
import { hashSecretToken } from "../src/playground/secret-token.js";
import type { Services } from "../src/services.js";
import { UsageRetention } from "../src/usage/usage-retention.js";
import { describeEachDialect } from "./support/test-databases.js";
import { closeStore, createCustomer, openStore, type StoreCustomer } from "./support/test-store.js";
import { writeChargedUsage } from "./support/usage-ledger.js";

// The retention run sweeps the OAuth authorization server's spent rows on
// both dialects: codes and tokens expired (codes: or used) more than a day
// ago go, in batches; live ones, those within the day, and spent refresh
// tokens not yet expired (reuse detection needs them) stay; grants stay.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const BATCH = 3;
const CALLBACK = "http://127.0.0.1:53682/callback";

await describeEachDialect("the OAuth sweep of the retention run", (database) => {
  let services: Services;
  let customer: StoreCustomer;
  /** The time runs are made at; the rows' times are relative to it (the store's checks use the clock). */
  let now: Date;

  beforeAll(async () => {
    services = await openStore(database.url, {
      PERSONA_USAGE_RETENTION_DAYS: "30",
      PERSONA_RETENTION_BATCH_SIZE: String(BATCH),
      PERSONA_RETENTION_PAUSE_MS: "0",
    });
    customer = await createCustomer(services, { balanceMicros: 0 });
    now = new Date();
  });
  afterAll(async () => {
    await closeStore(services);
  });

  const at = (offsetMs: number) => new Date(now.getTime() + offsetMs).toISOString();

  /** A grant of a freshly registered client, as consent makes it (with its code, used at once). */
  async function newGrant(): Promise<string> {
    const clientId = randomUUID();
    await services.oauth.registerClient({
      client_id: clientId,
      client_name: "Sweep test app",
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: "none",
    } as OAuthClientInformationFull);
    const code = await services.oauth.approve({
      clientId,
      accountId: customer.accountId,
      personaId: customer.persona.id,
      resource: "http://localhost/mcp",
      redirectUri: CALLBACK,
      codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    });
    const exchange = await services.oauth.exchangeCode(clientId, code, CALLBACK, undefined);
    if (!exchange.ok) throw new Error(`exchange failed: ${exchange.reason}`);
    return exchange.grant.id;
  }

  async function insertCode(grantId: string, expiresAt: string, usedAt: string | null) {
    const hash = hashSecretToken(randomBytes(32).toString("base64url"));
    await services.database
      .insertInto("oauth_codes")
      .values({
        code_hash: hash,
        grant_id: grantId,
        code_challenge: "challenge",
        expires_at: expiresAt,
        used_at: usedAt,
      })
      .execute();
    return hash;
  }

  async function insertToken(
    grantId: string,
    kind: "access" | "refresh",
    expiresAt: string,
    spentAt: string | null = null,
    token = randomBytes(32).toString("base64url"),
  ) {
    const hash = hashSecretToken(token);
    await services.database
      .insertInto("oauth_tokens")
      .values({
        token_hash: hash,
        grant_id: grantId,
        kind,
        created_at: at(-40 * DAY),
        expires_at: expiresAt,
        spent_at: spentAt,
      })
      .execute();
    return hash;
  }

  async function hashesOf(grantId: string) {
    const codes = await services.database
      .selectFrom("oauth_codes")
      .select("code_hash")
      .where("grant_id", "=", grantId)
      .execute();
    const tokens = await services.database
      .selectFrom("oauth_tokens")
      .select("token_hash")
      .where("grant_id", "=", grantId)
      .execute();
    return {
      codes: codes.map((row) => row.code_hash).sort(),
      tokens: tokens.map((row) => row.token_hash).sort(),
    };
  }

  it("removes codes and tokens expired (or used) more than a day ago, in batches, and keeps the rest and the grant", async () => {
    const grantId = await newGrant();
    // The code consent made and the pair its exchange issued are live: they stay.
    const live = await hashesOf(grantId);
    expect(live.codes).toHaveLength(1);
    expect(live.tokens).toHaveLength(2);

    const goneCodes = [
      await insertCode(grantId, at(-2 * DAY), null),
      await insertCode(grantId, at(-2 * DAY), at(-2 * DAY - 30_000)),
      // Used more than a day ago goes, whatever its expiry says.
      await insertCode(grantId, at(-23 * HOUR), at(-25 * HOUR)),
    ];
    const keptCodes = [
      await insertCode(grantId, at(-23 * HOUR), null),
      await insertCode(grantId, at(-23 * HOUR), at(-23 * HOUR - 30_000)),
      await insertCode(grantId, at(60_000), null),
    ];
    const expiredAccess = [];
    for (let n = 0; n < 7; n += 1) {
      expiredAccess.push(await insertToken(grantId, "access", at(-(2 + n) * DAY)));
    }
    const goneTokens = [
      ...expiredAccess,
      await insertToken(grantId, "access", at(-DAY - 60_000)),
      await insertToken(grantId, "refresh", at(-3 * DAY), at(-20 * DAY)),
      await insertToken(grantId, "refresh", at(-3 * DAY)),
    ];
    const keptTokens = [
      await insertToken(grantId, "access", at(-23 * HOUR)),
      await insertToken(grantId, "access", at(HOUR)),
      // Spent ten days ago, expires in twenty: kept, so a reuse still revokes the grant.
      await insertToken(grantId, "refresh", at(20 * DAY), at(-10 * DAY)),
      await insertToken(grantId, "refresh", at(29 * DAY)),
    ];
    const grantsBefore = await services.oauth.listGrants(customer.accountId);

    const report = await services.retention.run(now);

    expect(report.oauthCodesRemoved).toBe(goneCodes.length);
    expect(report.oauthTokensRemoved).toBe(goneTokens.length);
    expect(report.oauthSweepUnfinished).toBeUndefined();
    expect(report.oauthSweepFailed).toBeUndefined();
    // Batches of 3: one for the codes, four for the ten tokens (nothing else to remove).
    expect(report.batches).toBe(
      Math.ceil(goneCodes.length / BATCH) + Math.ceil(goneTokens.length / BATCH),
    );
    expect(await hashesOf(grantId)).toEqual({
      codes: [...live.codes, ...keptCodes].sort(),
      tokens: [...live.tokens, ...keptTokens].sort(),
    });
    expect(await services.oauth.listGrants(customer.accountId)).toEqual(grantsBefore);

    // A second run finds nothing more.
    const again = await services.retention.run(now);
    expect(again.oauthCodesRemoved).toBeUndefined();
    expect(again.oauthTokensRemoved).toBeUndefined();
  });

  it("keeps a spent refresh token until a day after it expires: presented again, it still revokes its grant", async () => {
    const grantId = await newGrant();
    const [grant] = (await services.oauth.listGrants(customer.accountId)).filter(
      (entry) => entry.id === grantId,
    );
    const spent = randomBytes(32).toString("base64url");
    await insertToken(grantId, "refresh", at(5 * DAY), at(-2 * DAY), spent);

    await services.retention.run(now);

    const reused = await services.oauth.exchangeRefresh(grant?.clientId ?? "", spent, undefined);
    expect(reused).toEqual({ ok: false, reason: "reused" });
    const [revoked] = (await services.oauth.listGrants(customer.accountId)).filter(
      (entry) => entry.id === grantId,
    );
    expect(revoked?.revokedAt).not.toBeNull();
  });

  it("sweeps with usage retention off too, from the background job", async () => {
    const grantId = await newGrant();
    const expired = await insertToken(grantId, "access", at(-2 * DAY));
    const off = new UsageRetention(services.store, {
      ...services.retention.settings,
      days: null,
    });
    const report = await off.run(now);
    expect(report).toMatchObject({ skipped: "off", oauthTokensRemoved: 1 });
    expect((await hashesOf(grantId)).tokens).not.toContain(expired);

    // The job runs with retention off as well (it used to start only to make partitions).
    const job = new UsageRetention(services.store, { ...services.retention.settings, days: null });
    const later = await insertToken(grantId, "access", at(-3 * DAY));
    job.start(10);
    try {
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && (await hashesOf(grantId)).tokens.includes(later)) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await job.stop();
    }
    expect((await hashesOf(grantId)).tokens).not.toContain(later);
  });

  it("removes at most its bound of batches per sweep; the next sweep goes on", async () => {
    const grantId = await newGrant();
    const count = OAUTH_SWEEP_MAX_BATCHES + 2;
    await services.database
      .insertInto("oauth_tokens")
      .values(
        Array.from({ length: count }, (_, n) => ({
          token_hash: hashSecretToken(`bound-${grantId}-${n}`),
          grant_id: grantId,
          kind: "access" as const,
          created_at: at(-10 * DAY),
          expires_at: at(-2 * DAY - n * 1000),
          spent_at: null,
        })),
      )
      .execute();
    const options = { now, batchSize: 1, between: async () => true };
    const first = await sweepExpiredOAuth(services.database, options);
    expect(first).toMatchObject({
      tokensRemoved: OAUTH_SWEEP_MAX_BATCHES,
      batches: OAUTH_SWEEP_MAX_BATCHES,
      unfinished: true,
    });
    // Oldest expiry first: the two left are the two that expired last.
    const left = await services.database
      .selectFrom("oauth_tokens")
      .select("expires_at")
      .where("grant_id", "=", grantId)
      .where("expires_at", "<", at(-DAY))
      .orderBy("expires_at")
      .execute();
    expect(left.map((row) => row.expires_at)).toEqual([at(-2 * DAY - 1000), at(-2 * DAY)]);
    const second = await sweepExpiredOAuth(services.database, options);
    expect(second).toMatchObject({ tokensRemoved: 2, unfinished: false });
  });

  it("a failing sweep fails no other step: the run removes old usage rows and reports the failure", async () => {
    const grantId = await newGrant();
    const expiredCode = await insertCode(grantId, at(-2 * DAY), null);
    await writeChargedUsage(
      services.database,
      { accountId: customer.accountId, status: 429, costMicros: 0 },
      at(-200 * DAY),
    );
    // The tokens' table is away: the sweep's second step fails.
    await sql`alter table oauth_tokens rename to oauth_tokens_away`.execute(services.database);
    let report: Awaited<ReturnType<typeof services.retention.run>>;
    try {
      report = await services.retention.run(now);
    } finally {
      await sql`alter table oauth_tokens_away rename to oauth_tokens`.execute(services.database);
    }
    expect(report.oauthSweepFailed).toMatch(/oauth_tokens/u);
    expect(report.oauthCodesRemoved).toBe(1);
    expect(report.usageRowsRemoved).toBe(1);
    expect((await hashesOf(grantId)).codes).not.toContain(expiredCode);
  });
});

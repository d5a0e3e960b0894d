import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisRateLimiter } from "../src/rate-limits/redis-rate-limiter.js";
import { startTestService, type TestService } from "./support/test-service.js";
import { createCustomer } from "./support/test-store.js";

const REDIS_URL = process.env.PERSONA_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

async function redisUnavailable(): Promise<string | undefined> {
  const probe = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on("error", () => undefined);
  try {
    await probe.connect();
    await probe.ping();
    return undefined;
  } catch (error) {
    const reason = `Redis unreachable at ${REDIS_URL} (${(error as Error).message})`;
    if (process.env.CI === "true") throw new Error(`${reason}; CI runs the Redis suite`);
    return reason;
  } finally {
    probe.disconnect();
  }
}

const skipReason = await redisUnavailable();

describe.skipIf(skipReason !== undefined)(
  `rate limits in Redis (PERSONA_REDIS_URL)${skipReason === undefined ? "" : ` (skipped: ${skipReason})`}`,
  () => {
    // Each run counts under its own prefix and deletes it afterwards.
    const prefix = `persona-test:${randomUUID()}:`;
    let limiter: RedisRateLimiter;
    beforeAll(() => {
      limiter = new RedisRateLimiter(REDIS_URL, prefix);
    });
    afterAll(async () => {
      await limiter?.clear();
      await limiter?.close();
    });

    it("lets exactly 25 of 40 concurrent requests through", async () => {
      const now = Date.now();
      const limits = { minute: 25, hour: 100, day: 500 };
      const decisions = await Promise.all(
        Array.from({ length: 40 }, () => limiter.consume("burst", limits, now)),
      );
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(25);
      const refused = decisions.find((decision) => !decision.allowed);
      expect(refused?.retryAfterSeconds).toBe(60);
      expect(refused?.windows.map((window) => window.remaining)).toEqual([0, 75, 475]);
      const later = await limiter.consume("burst", limits, now + 60_000);
      expect(later.windows.map((window) => window.remaining)).toEqual([24, 74, 474]);
    });

    it("consumes no window when one window refuses", async () => {
      const now = Date.now();
      const tight = { minute: 10, hour: 10, day: 3 };
      for (let index = 0; index < 3; index += 1)
        expect((await limiter.consume("windows", tight, now)).allowed).toBe(true);
      for (let index = 0; index < 5; index += 1) {
        const refused = await limiter.consume("windows", tight, now);
        expect(refused.allowed).toBe(false);
        expect(refused.retryAfterSeconds).toBe(86_400);
      }
      const relaxed = await limiter.consume("windows", { minute: 10, hour: 10, day: 100 }, now);
      expect(relaxed.windows.map((window) => window.remaining)).toEqual([6, 6, 96]);
    });

    it("reads counters without counting (the usage page), and none for an unused bucket", async () => {
      const now = Date.now();
      const limits = { minute: 10, hour: 20, day: 30 };
      for (let index = 0; index < 4; index += 1) await limiter.consume("peeked", limits, now);
      const first = await limiter.peek(["peeked", "never-used"]);
      const again = await limiter.peek(["peeked"]);
      expect(first.get("peeked")).toEqual({
        minute: { start: now, count: 4 },
        hour: { start: now, count: 4 },
        day: { start: now, count: 4 },
      });
      expect(again.get("peeked")).toEqual(first.get("peeked"));
      expect(first.has("never-used")).toBe(false);
      expect((await limiter.peek([])).size).toBe(0);
    });

    it("is what the service counts with when PERSONA_REDIS_URL is set", async () => {
      const service: TestService = await startTestService({ PERSONA_REDIS_URL: REDIS_URL });
      const redis = new Redis(REDIS_URL);
      try {
        const customer = await createCustomer(service.services, { balanceMicros: 1_000_000 });
        const statuses = await Promise.all(
          Array.from({ length: 40 }, () =>
            service
              .post(
                "/api/v1/generate",
                { personaId: customer.persona.id, messages: [{ role: "user", content: "Hi" }] },
                { headers: { "x-api-key": customer.key } },
              )
              .then((response) => response.status),
          ),
        );
        expect(statuses.filter((status) => status === 200)).toHaveLength(25);
        expect(statuses.filter((status) => status === 429)).toHaveLength(15);
        expect(await redis.exists(`persona:rate-limit:${customer.keyId}`)).toBe(1);
        await redis.del(`persona:rate-limit:${customer.keyId}`);
        // The database holds no counter of its own for this key.
        const rows = await service.services.database
          .selectFrom("rate_limit_buckets")
          .select("bucket")
          .where("bucket", "=", customer.keyId)
          .execute();
        expect(rows).toHaveLength(0);
      } finally {
        redis.disconnect();
        await service.stop();
      }
    });
  },
);

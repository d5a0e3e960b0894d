import { Redis } from "ioredis";
import { type RateLimits, WINDOWS, type WindowCounters } from "../storage/rate-limit-buckets.js";
import { StorageUnavailableError } from "../storage/storage-error.js";
import { describeWindows, type RateLimitDecision, refusal } from "./rate-limit-windows.js";
import type { RateLimiter } from "./rate-limiter.js";

/**
 * The same check-then-consume as the SQL limiter, as one Lua script: Redis
 * runs a script atomically, so every window is checked before any is
 * consumed and concurrent requests from every instance are serialized.
 * KEYS[1] is the bucket's hash; ARGV: now, then per window its length and
 * limit. Returns { allowed (1/0), start1, count1, start2, count2, … }.
 */
const CONSUME_SCRIPT = `
local now = tonumber(ARGV[1])
local windows = (#ARGV - 1) / 2
local starts, counts = {}, {}
local allowed = 1
for i = 1, windows do
  local length = tonumber(ARGV[2 * i])
  local limit = tonumber(ARGV[2 * i + 1])
  local start = tonumber(redis.call('HGET', KEYS[1], 's' .. i) or '-1')
  local count = tonumber(redis.call('HGET', KEYS[1], 'c' .. i) or '0')
  if start < 0 or now >= start + length then
    start = now
    count = 0
  end
  if count >= limit then allowed = 0 end
  starts[i], counts[i] = start, count
end
local result = { allowed }
local longest = 0
for i = 1, windows do
  if allowed == 1 then
    counts[i] = counts[i] + 1
    redis.call('HSET', KEYS[1], 's' .. i, starts[i], 'c' .. i, counts[i])
  end
  local length = tonumber(ARGV[2 * i])
  if length > longest then longest = length end
  table.insert(result, starts[i])
  table.insert(result, counts[i])
end
if allowed == 1 then redis.call('PEXPIRE', KEYS[1], longest) end
return result
`;

/**
 * Takes back one count made at ARGV[1] from every window that started at
 * or before it (the windows it was counted in). KEYS[1] is the bucket's hash.
 */
const REFUND_SCRIPT = `
local now = tonumber(ARGV[1])
for i = 1, tonumber(ARGV[2]) do
  local start = tonumber(redis.call('HGET', KEYS[1], 's' .. i) or '-1')
  local count = tonumber(redis.call('HGET', KEYS[1], 'c' .. i) or '0')
  if start >= 0 and start <= now and count > 0 then
    redis.call('HSET', KEYS[1], 'c' .. i, count - 1)
  end
end
return 1
`;

type ScriptCommands = {
  personaConsume(key: string, ...values: number[]): Promise<number[]>;
  personaRefund(key: string, ...values: number[]): Promise<number>;
};

/** A Redis failure → the 503 the request gets. */
function unavailable(error: unknown): StorageUnavailableError {
  const message = error instanceof Error ? error.message : String(error);
  return new StorageUnavailableError(
    /timed? ?out/iu.test(message) ? "timeout" : "unreachable",
    `Redis: ${message}`,
    { cause: error },
  );
}

/**
 * Rate limits kept in Redis (`PERSONA_REDIS_URL`), shared by every
 * instance. Counters of a bucket live in one hash that expires a day after
 * its last counted request.
 *
 * Failure policy (docs/OPERATIONS.md "Redis"): fail closed, fast. Every
 * command has a deadline (`commandTimeout`); while the connection is down
 * commands are refused at once instead of queued (`enableOfflineQueue:
 * false`), and the client reconnects in the background. A request that
 * cannot be counted gets 503 with `Retry-After`, uncharged — never served
 * unlimited.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly inStore = false;
  private readonly redis: Redis;

  /**
   * @param url - `redis://` or `rediss://` URL
   * @param prefix - prefix of the counter keys (tests use their own)
   * @param timeoutMs - longest wait for a command and for a connection
   */
  constructor(
    url: string,
    private readonly prefix = "persona:rate-limit:",
    private readonly timeoutMs = 1_000,
  ) {
    this.redis = new Redis(url, {
      lazyConnect: true,
      connectTimeout: timeoutMs,
      commandTimeout: timeoutMs,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: (attempt) => Math.min(100 * 2 ** attempt, 2_000),
    });
    // Connection errors surface on the commands; without a listener ioredis would print them.
    this.redis.on("error", () => undefined);
    this.redis.defineCommand("personaConsume", { numberOfKeys: 1, lua: CONSUME_SCRIPT });
    this.redis.defineCommand("personaRefund", { numberOfKeys: 1, lua: REFUND_SCRIPT });
    this.redis.connect().catch(() => undefined);
  }

  private get scripts(): ScriptCommands {
    return this.redis as unknown as ScriptCommands;
  }

  /**
   * Waits for the connection while it is being made (at most the timeout),
   * so the first commands after start-up or a reconnect are not refused.
   */
  private async connected(): Promise<void> {
    const status = this.redis.status;
    if (status === "ready") return;
    if (status === "end") {
      throw new StorageUnavailableError("unreachable", `Redis: connection ${status}`);
    }
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.redis.off("ready", onReady);
        reject(
          new StorageUnavailableError(
            "unreachable",
            `Redis: no connection within ${this.timeoutMs} ms (${this.redis.status})`,
          ),
        );
      }, this.timeoutMs);
      const onReady = () => {
        clearTimeout(timer);
        resolve();
      };
      this.redis.once("ready", onReady);
    });
  }

  async consume(bucket: string, limits: RateLimits, now = Date.now()): Promise<RateLimitDecision> {
    const argumentsList: number[] = [now];
    for (const { name, milliseconds } of WINDOWS) argumentsList.push(milliseconds, limits[name]);
    let reply: number[];
    try {
      await this.connected();
      reply = await this.scripts.personaConsume(`${this.prefix}${bucket}`, ...argumentsList);
    } catch (error) {
      throw unavailable(error);
    }
    const counters = {} as WindowCounters;
    WINDOWS.forEach(({ name }, index) => {
      counters[name] = { start: Number(reply[1 + 2 * index]), count: Number(reply[2 + 2 * index]) };
    });
    return reply[0] === 1
      ? { allowed: true, windows: describeWindows(counters, limits, now) }
      : refusal(counters, limits, now);
  }

  async refund(bucket: string, now: number): Promise<void> {
    if (this.redis.status !== "ready") return;
    await this.scripts
      .personaRefund(`${this.prefix}${bucket}`, now, WINDOWS.length)
      .catch(() => undefined);
  }

  /** One pipelined HGETALL per bucket (a handful: the keys of one account). */
  async peek(buckets: readonly string[]): Promise<Map<string, WindowCounters>> {
    const counters = new Map<string, WindowCounters>();
    if (buckets.length === 0) return counters;
    let replies: Array<[Error | null, unknown]>;
    try {
      await this.connected();
      const pipeline = this.redis.pipeline();
      for (const bucket of buckets) pipeline.hgetall(`${this.prefix}${bucket}`);
      replies = ((await pipeline.exec()) ?? []) as Array<[Error | null, unknown]>;
    } catch (error) {
      throw unavailable(error);
    }
    buckets.forEach((bucket, index) => {
      const [error, value] = replies[index] ?? [null, undefined];
      if (error !== null) throw unavailable(error);
      const hash = (value ?? {}) as Record<string, string>;
      if (hash.s1 === undefined) return;
      const read = {} as WindowCounters;
      WINDOWS.forEach(({ name }, position) => {
        read[name] = {
          start: Number(hash[`s${position + 1}`] ?? -1),
          count: Number(hash[`c${position + 1}`] ?? 0),
        };
      });
      counters.set(bucket, read);
    });
    return counters;
  }

  async probe(): Promise<void> {
    try {
      await this.connected();
      await this.redis.ping();
    } catch (error) {
      throw unavailable(error);
    }
  }

  /** Deletes every counter under the prefix (tests clean up with it). */
  async clear(): Promise<void> {
    let cursor = "0";
    do {
      const [next, keys] = await this.redis.scan(cursor, "MATCH", `${this.prefix}*`, "COUNT", 500);
      if (keys.length > 0) await this.redis.del(...keys);
      cursor = next;
    } while (cursor !== "0");
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

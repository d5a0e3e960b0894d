import { Redis } from "ioredis";
import {
  describeWindows,
  type RateLimitDecision,
  type RateLimits,
  refusal,
  WINDOWS,
  type WindowCounters,
} from "./rate-limit-windows.js";
import type { RateLimiter } from "./rate-limiter.js";

/**
 * The same check-then-consume as the SQL limiter, as one Lua script: Redis
 * runs a script atomically, so every window is checked before any is
 * consumed and concurrent requests from every instance are serialized.
 * KEYS[1] is the key's hash; ARGV: now, then per window its length and
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
 * Rate limits kept in Redis (`PERSONA_REDIS_URL`), shared by every
 * instance. Counters of a key live in one hash that expires a day after
 * its last counted request.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;

  /**
   * @param url - `redis://` or `rediss://` URL
   * @param prefix - prefix of the counter keys (tests use their own)
   */
  constructor(
    url: string,
    private readonly prefix = "persona:rate-limit:",
  ) {
    this.redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 });
    // Connection errors surface on the commands; without a listener ioredis
    // would also print them.
    this.redis.on("error", () => undefined);
    this.redis.defineCommand("personaConsume", { numberOfKeys: 1, lua: CONSUME_SCRIPT });
  }

  async consume(
    apiKeyId: string,
    limits: RateLimits,
    now = Date.now(),
  ): Promise<RateLimitDecision> {
    const argumentsList: number[] = [now];
    for (const { name, milliseconds } of WINDOWS) argumentsList.push(milliseconds, limits[name]);
    const command = (
      this.redis as unknown as {
        personaConsume(key: string, ...values: number[]): Promise<number[]>;
      }
    ).personaConsume;
    const reply = await command.call(this.redis, `${this.prefix}${apiKeyId}`, ...argumentsList);
    const counters = {} as WindowCounters;
    WINDOWS.forEach(({ name }, index) => {
      counters[name] = { start: Number(reply[1 + 2 * index]), count: Number(reply[2 + 2 * index]) };
    });
    return reply[0] === 1
      ? { allowed: true, windows: describeWindows(counters, limits, now) }
      : refusal(counters, limits, now);
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
    await this.redis.quit().catch(() => undefined);
  }
}

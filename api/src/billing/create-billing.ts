import { HTTPFacilitatorClient } from "@x402/core/server";
import type { Config } from "../config/config.js";
import type { Logger } from "../logging/logger.js";
import { type PaymentFacilitator, X402Gate } from "../payments/x402-gate.js";
import { LimitsStore } from "../rate-limits/limits-store.js";
import type { RateLimiter } from "../rate-limits/rate-limiter.js";
import { RedisRateLimiter } from "../rate-limits/redis-rate-limiter.js";
import { SqlRateLimiter } from "../rate-limits/sql-rate-limiter.js";
import type { Store } from "../storage/store.js";
import { BalanceStore } from "./balance-store.js";
import { PriceList } from "./price-list.js";
import { ReleaseRetries } from "./release-retries.js";
import type { ReservationsDialect } from "./reservations-dialect.js";
import { reservationsDialectOf } from "./reservations-dialects.js";

/**
 * Milliseconds between two sweeps of expired reservations:
 * `PERSONA_SWEEP_INTERVAL_SECONDS`, or a quarter of
 * `PERSONA_RESERVATION_TTL_SECONDS` when that is shorter (at least one
 * second), so a reservation is released within a quarter of its TTL of
 * expiring (a 4 s TTL was held for 30 s).
 */
export function sweepIntervalMs(
  config: Pick<Config, "PERSONA_SWEEP_INTERVAL_SECONDS" | "PERSONA_RESERVATION_TTL_SECONDS">,
): number {
  const quarterOfTtl = Math.max(1, Math.floor(config.PERSONA_RESERVATION_TTL_SECONDS / 4));
  return Math.min(config.PERSONA_SWEEP_INTERVAL_SECONDS, quarterOfTtl) * 1000;
}

/** Billing, rate limits and payments, built once at start-up. */
export interface Billing {
  balances: BalanceStore;
  limits: LimitsStore;
  rateLimiter: RateLimiter;
  prices: PriceList;
  payments: X402Gate;
  /** Releases the store refused for a while, retried until they succeed. */
  releases: ReleaseRetries;
  /**
   * Releases this instance's reservations left by a crash and expired ones,
   * then keeps sweeping expired ones (and idle rate-limit buckets) every
   * {@link sweepIntervalMs}, and once more each time the store answers
   * again after a failure.
   */
  startSweeper(): Promise<void>;
  /** Stops the sweeper and closes the limiter's own connections. */
  close(): Promise<void>;
}

/** Test seams of {@link createBilling}. */
export interface BillingOverrides {
  facilitator?: PaymentFacilitator;
  rateLimiter?: RateLimiter;
}

/**
 * The name this instance tags its reservations with: `PERSONA_INSTANCE_ID`
 * when set; otherwise its dialect's (SQLite: one derived from the database
 * file's path, so a single instance restarted after a crash releases what
 * it held at once; PostgreSQL: random).
 */
export function instanceIdOf(
  config: Config,
  store: Pick<Store, "location">,
  dialect: ReservationsDialect,
): string {
  return config.PERSONA_INSTANCE_ID ?? dialect.defaultInstanceId(store.location);
}

/**
 * Builds the billing services from the configuration: rate limits in Redis
 * when `PERSONA_REDIS_URL` is set, else in the database; the x402 gate with
 * an HTTP facilitator client (`PERSONA_X402_FACILITATOR_URL`).
 */
export function createBilling(
  config: Config,
  store: Store,
  logger: Logger,
  overrides: BillingOverrides = {},
): Billing {
  const { database } = store;
  const reservations = reservationsDialectOf(store.dialect);
  const instanceId = instanceIdOf(config, store, reservations);
  const balances = new BalanceStore(store, reservations, {
    instanceId,
    reservationTtlMs: config.PERSONA_RESERVATION_TTL_SECONDS * 1000,
  });
  const rateLimiter =
    overrides.rateLimiter ??
    (config.PERSONA_REDIS_URL === undefined
      ? new SqlRateLimiter(store)
      : new RedisRateLimiter(config.PERSONA_REDIS_URL, undefined, config.PERSONA_REDIS_TIMEOUT_MS));
  const facilitator =
    overrides.facilitator ??
    new HTTPFacilitatorClient({ url: config.PERSONA_X402_FACILITATOR_URL, timeoutMs: 15_000 });
  const payments = new X402Gate(
    {
      payTo: config.PERSONA_X402_PAY_TO,
      network: config.PERSONA_X402_NETWORK as `${string}:${string}`,
      asset: config.PERSONA_X402_ASSET,
      assetName: config.PERSONA_X402_ASSET_NAME,
      assetVersion: config.PERSONA_X402_ASSET_VERSION,
      assetDecimals: config.PERSONA_X402_ASSET_DECIMALS,
      maxTimeoutSeconds: config.PERSONA_X402_MAX_TIMEOUT_SECONDS,
      // Retention removes payment rows after these days: an authorization must expire first.
      ...(config.PERSONA_USAGE_RETENTION_DAYS === null
        ? {}
        : { maxValidSeconds: config.PERSONA_USAGE_RETENTION_DAYS * 86_400 }),
    },
    facilitator,
    database,
  );
  const limits = new LimitsStore(database);
  const releases = new ReleaseRetries(store, logger, (usageId, status) =>
    balances.reverseSettlement(usageId, status),
  );
  let timer: NodeJS.Timeout | undefined;
  let stopSweepOnRecovery: () => void = () => undefined;
  const sweepExpired = async () => {
    try {
      const corrected = await balances.reconcileLostHolds();
      if (corrected > 0) {
        logger.warn(
          { accounts: corrected },
          "the database lost its balance holds (crash recovery): reserved sums corrected",
        );
      }
      const released = await balances.sweep({ expiredAt: new Date() });
      if (released > 0) logger.warn({ released }, "released expired balance reservations");
      await limits.pruneIdleBuckets();
    } catch (error) {
      logger.error({ err: error }, "sweeping expired reservations failed");
    }
  };
  return {
    balances,
    limits,
    rateLimiter,
    prices: new PriceList(config.upstreams),
    payments,
    releases,
    async startSweeper() {
      const mine = await balances.sweep({ instanceId });
      if (mine > 0) {
        logger.warn(
          { released: mine, instanceId },
          "released reservations this instance left behind",
        );
      }
      await sweepExpired();
      timer = setInterval(() => void sweepExpired(), sweepIntervalMs(config));
      timer.unref();
      // What expired while the store took no writes is released as soon as it takes them again.
      stopSweepOnRecovery = store.health.onRecovered(() => void sweepExpired());
    },
    async close() {
      if (timer !== undefined) clearInterval(timer);
      stopSweepOnRecovery();
      releases.close();
      await rateLimiter.close();
    },
  };
}

import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** Outcome of one provider call, as the `outcome` label of the provider metrics. */
export type ProviderOutcome = "ok" | "timeout" | "aborted" | "upstream" | "request" | "empty";

/**
 * The service's Prometheus metrics (prom-client), one registry per service
 * instance so several services in one process (tests) never share counts.
 *
 * | metric | type | labels |
 * | --- | --- | --- |
 * | `persona_http_requests_total` | counter | `route`, `method`, `status` |
 * | `persona_http_request_duration_seconds` | histogram | `route`, `method`, `status` |
 * | `persona_http_requests_in_flight` | gauge | — |
 * | `persona_provider_request_duration_seconds` | histogram | `provider`, `outcome` |
 * | `persona_provider_errors_total` | counter | `provider`, `kind` |
 * | `persona_upstream_attempts_total` | counter | `upstream`, `outcome` |
 * | `persona_upstream_fallbacks_total` | counter | `upstream`, `reason` |
 * | `persona_upstream_cooldowns_total` | counter | `upstream` |
 * | `persona_route_unservable_total` | counter | `persona` |
 * | `persona_rate_limit_rejections_total` | counter | `route` |
 * | `persona_balance_rejections_total` | counter | `route` |
 * | `persona_charges_total` | counter | `endpoint`, `payment_method` |
 * | `persona_charged_micros_total` | counter | `endpoint`, `payment_method` |
 * | `persona_storage_statements_total` | counter | `dialect` |
 * | `persona_storage_write_duration_seconds` | histogram | `operation`, `outcome` |
 *
 * plus prom-client's default process and Node.js metrics (`process_*`,
 * `nodejs_*`). `route` is the route's path template (e.g.
 * `/api/v1/generate`, `/keys/:id/revoke`) or `unmatched`, so label values
 * stay bounded whatever paths clients send; `provider` and `upstream` are
 * upstream names of the operator configuration, `persona` a persona ID
 * (personas are made by the operator, so bounded too).
 */
export interface Metrics {
  registry: Registry;
  httpRequests: Counter<"route" | "method" | "status">;
  httpDuration: Histogram<"route" | "method" | "status">;
  httpInFlight: Gauge;
  providerDuration: Histogram<"provider" | "outcome">;
  providerErrors: Counter<"provider" | "kind">;
  /** Attempts on route targets by upstream and outcome (`ok`, `timeout`, `upstream`, `request`, `aborted`). */
  upstreamAttempts: Counter<"upstream" | "outcome">;
  /** Moves from a target of this upstream to the next target, by `reason` (`failure`, `cooldown`). */
  upstreamFallbacks: Counter<"upstream" | "reason">;
  /** Cooldowns started by targets of this upstream. */
  upstreamCooldowns: Counter<"upstream">;
  /**
   * Requests to this persona answered 503 because no target of its route
   * can be served by this instance (its upstreams are not configured here).
   */
  routeUnservable: Counter<"persona">;
  rateLimitRejections: Counter<"route">;
  balanceRejections: Counter<"route">;
  charges: Counter<"endpoint" | "payment_method">;
  chargedMicros: Counter<"endpoint" | "payment_method">;
  /** SQLite: bytes of the write-ahead log (bounded by `PERSONA_SQLITE_WAL_LIMIT_BYTES` after checkpoints). */
  sqliteWalBytes: Gauge;
  /**
   * Statements the store had its database execute, by `dialect` (`sqlite`,
   * `postgres`), read from the store at each scrape.
   */
  storageStatements: Counter<"dialect">;
  /**
   * Names where `persona_storage_statements_total` is read from: the
   * store's running total (`Store.statementCount`), read at each scrape.
   */
  countStorageStatements(dialect: string, total: () => number): void;
  /**
   * How long each request-path write waited for the store, in seconds, by
   * `operation` (`admit`, `settle`, `release`, `record`) and `outcome`
   * (`ok`, `error`): queued behind a group commit, written, committed and,
   * for durable writes, flushed to disk (the storage write's
   * share of a request's latency).
   */
  storageWriteDuration: Histogram<"operation" | "outcome">;
  /**
   * Live answers picked by online evaluation (`persona-admin persona
   * sample`), by `outcome`: `scored`, `dropped_full` (the queue was full),
   * `dropped_deadline` (it waited past its deadline), `failed` (its scores
   * could not be stored).
   */
  onlineSamples: Counter<"outcome">;
}

/** Latency buckets in seconds: from cache-fast rejections to slow model calls. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Storage write buckets in seconds: from a commit without an fsync to a store that stalls until its timeout. */
const STORAGE_BUCKETS = [
  0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];
const PROVIDER_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120];

/**
 * Creates the metrics of one service instance with their own registry.
 *
 * @param options.defaultMetrics - also collect prom-client's process and
 *   Node.js metrics (default true)
 * @example
 * const metrics = createMetrics();
 * metrics.httpRequests.inc({ route: "/api/v1/generate", method: "POST", status: "200" });
 * const text = await metrics.registry.metrics(); // Prometheus text format
 */
export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  let statementSource: { dialect: string; total: () => number; seen: number } | undefined;
  const storageStatements = new Counter({
    name: "persona_storage_statements_total",
    help: "Statements the store had its database execute (PostgreSQL: sent on its connections; SQLite: run by its worker threads).",
    labelNames: ["dialect"] as const,
    registers,
    collect() {
      if (statementSource === undefined) return;
      const total = statementSource.total();
      if (total > statementSource.seen) {
        this.inc({ dialect: statementSource.dialect }, total - statementSource.seen);
        statementSource.seen = total;
      }
    },
  });
  return {
    storageStatements,
    countStorageStatements(dialect, total) {
      statementSource = { dialect, total, seen: 0 };
      storageStatements.inc({ dialect }, 0);
    },
    registry,
    httpRequests: new Counter({
      name: "persona_http_requests_total",
      help: "HTTP requests answered, by route template, method and status.",
      labelNames: ["route", "method", "status"] as const,
      registers,
    }),
    httpDuration: new Histogram({
      name: "persona_http_request_duration_seconds",
      help: "Time from receiving a request to finishing its response, in seconds.",
      labelNames: ["route", "method", "status"] as const,
      buckets: HTTP_BUCKETS,
      registers,
    }),
    httpInFlight: new Gauge({
      name: "persona_http_requests_in_flight",
      help: "Requests being served right now.",
      registers,
    }),
    providerDuration: new Histogram({
      name: "persona_provider_request_duration_seconds",
      help: "Duration of model provider calls (all candidates of a request), in seconds.",
      labelNames: ["provider", "outcome"] as const,
      buckets: PROVIDER_BUCKETS,
      registers,
    }),
    providerErrors: new Counter({
      name: "persona_provider_errors_total",
      help: "Failed model provider calls by provider and kind (timeout, aborted, upstream, empty).",
      labelNames: ["provider", "kind"] as const,
      registers,
    }),
    upstreamAttempts: new Counter({
      name: "persona_upstream_attempts_total",
      help: "Attempts on model route targets, by upstream and outcome (ok, timeout, upstream, request, aborted).",
      labelNames: ["upstream", "outcome"] as const,
      registers,
    }),
    upstreamFallbacks: new Counter({
      name: "persona_upstream_fallbacks_total",
      help: "Requests moved on from a target of this upstream to the next target of the route, by reason (failure, cooldown).",
      labelNames: ["upstream", "reason"] as const,
      registers,
    }),
    upstreamCooldowns: new Counter({
      name: "persona_upstream_cooldowns_total",
      help: "Cooldowns started by route targets of this upstream after consecutive failures.",
      labelNames: ["upstream"] as const,
      registers,
    }),
    routeUnservable: new Counter({
      name: "persona_route_unservable_total",
      help: "Requests answered 503 because no target of the persona's route can be served by this instance (its upstreams are not configured here).",
      labelNames: ["persona"] as const,
      registers,
    }),
    rateLimitRejections: new Counter({
      name: "persona_rate_limit_rejections_total",
      help: "API requests refused with 429 because a rate-limit window of the key was full.",
      labelNames: ["route"] as const,
      registers,
    }),
    balanceRejections: new Counter({
      name: "persona_balance_rejections_total",
      help: "API requests refused with 429 because the account's balance did not cover them.",
      labelNames: ["route"] as const,
      registers,
    }),
    charges: new Counter({
      name: "persona_charges_total",
      help: "Requests charged (settled with a cost above zero).",
      labelNames: ["endpoint", "payment_method"] as const,
      registers,
    }),
    onlineSamples: new Counter({
      name: "persona_online_samples_total",
      help: "Live answers picked for online evaluation, by outcome: scored, dropped_full (queue full), dropped_deadline (waited past the deadline), failed (scores not stored).",
      labelNames: ["outcome"] as const,
      registers,
    }),
    chargedMicros: new Counter({
      name: "persona_charged_micros_total",
      help: "Money charged, in micro-units (10^-6) of the account currency (USD).",
      labelNames: ["endpoint", "payment_method"] as const,
      registers,
    }),
    storageWriteDuration: new Histogram({
      name: "persona_storage_write_duration_seconds",
      help: "Time a request-path write (admit, settle, release, record) waited for the store, queue and commit included, in seconds.",
      labelNames: ["operation", "outcome"] as const,
      buckets: STORAGE_BUCKETS,
      registers,
    }),
    sqliteWalBytes: new Gauge({
      name: "persona_sqlite_wal_bytes",
      help: "SQLite only: size of the write-ahead log file in bytes.",
      registers,
    }),
  };
}

import { z } from "zod";

const positiveInteger = z.coerce.number().int().positive();

/**
 * One entry of the deprecated `PERSONA_MODEL_PRICES` table, in micro-units
 * of the account's currency. Prices now belong to the upstreams
 * (`PERSONA_UPSTREAMS_FILE`, providers/upstream-config.ts); without that
 * file the table is still read, its keys naming the upstreams of the
 * variables (`offline`, `openai-compatible`).
 */
export const routePriceSchema = z.strictObject({
  /** Flat price of every request (the offline engine's whole price). */
  requestMicros: z.number().int().nonnegative().default(0),
  /** Price of a million input tokens as the provider reports them. */
  inputMicrosPerMillionTokens: z.number().int().nonnegative().default(0),
  /** Price of a million output tokens as the provider reports them. */
  outputMicrosPerMillionTokens: z.number().int().nonnegative().default(0),
  /**
   * Output tokens a single candidate is assumed to use at most, for the
   * reservation made before the call (its upper bound).
   */
  maxOutputTokens: z.number().int().positive().default(2048),
});

/** An entry of `PERSONA_MODEL_PRICES` (see {@link routePriceSchema}). */
export type RoutePrice = z.output<typeof routePriceSchema>;

/**
 * The deprecated `PERSONA_MODEL_PRICES` table: `upstream:model` or
 * `upstream:*` to a price (see providers/load-upstreams.ts, which folds it
 * into the upstreams).
 */
export const priceTableSchema = z.record(
  z.string().regex(/^[\w.-]+:.+$/u, 'keys are "upstream:model" or "upstream:*"'),
  routePriceSchema,
);

const jsonText = <T extends z.ZodType>(schema: T) =>
  z.string().transform((text, context) => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      context.addIssue({ code: "custom", message: "must be JSON" });
      return z.NEVER;
    }
    const result = schema.safeParse(value);
    if (!result.success) {
      const issue = result.error.issues[0];
      context.addIssue({
        code: "custom",
        message: `${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`,
      });
      return z.NEVER;
    }
    return result.data as z.output<T>;
  });

/**
 * Configuration variables of billing, rate limits, multi-instance operation
 * and x402 payments, merged into the server's `configSchema`.
 */
export const billingConfigShape = {
  /** Most connections of the PostgreSQL pool per instance. */
  PERSONA_DATABASE_POOL_SIZE: positiveInteger.max(1000).default(10),
  /** Redis for rate-limit counters shared by every instance (optional; else the database). */
  PERSONA_REDIS_URL: z
    .url({ protocol: /^rediss?$/u, error: "must be a redis:// or rediss:// URL" })
    .optional(),
  /**
   * Stable name of this instance (e.g. the pod name). Its reservations left
   * by a crash are released when it starts again; unset, a random one.
   */
  PERSONA_INSTANCE_ID: z
    .string()
    .regex(/^[\w.:-]{1,100}$/u, "letters, digits and . _ : - only")
    .optional(),
  /** Seconds after which an unsettled reservation is released by the sweeper. */
  PERSONA_RESERVATION_TTL_SECONDS: positiveInteger.max(86_400).default(300),
  /** Seconds between two sweeps of expired reservations. */
  PERSONA_SWEEP_INTERVAL_SECONDS: positiveInteger.max(3600).default(30),
  /**
   * Deprecated JSON price table, e.g.
   * `{"openai-compatible:gpt-4o-mini":{"inputMicrosPerMillionTokens":150000}}`; prices
   * belong to the upstreams of `PERSONA_UPSTREAMS_FILE`, which refuses it.
   */
  PERSONA_MODEL_PRICES: jsonText(priceTableSchema).optional(),
  /** x402 facilitator that verifies and settles payments. */
  PERSONA_X402_FACILITATOR_URL: z.url().default("https://x402.org/facilitator"),
  /** Address that receives x402 payments; without it self-serve is off (401 without a key). */
  PERSONA_X402_PAY_TO: z.string().min(1).optional(),
  /** CAIP-2 network of x402 payments (default Base Sepolia). */
  PERSONA_X402_NETWORK: z
    .string()
    .regex(/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,64}$/u, "must be a CAIP-2 network such as eip155:8453")
    .default("eip155:84532"),
  /** Token contract of x402 payments (default USDC on Base Sepolia). */
  PERSONA_X402_ASSET: z.string().min(1).default("0x036CbD53842c5426634e7929541eC2318f3dCF7e"),
  /** EIP-712 domain name and version of the token (USDC: "USDC", "2"). */
  PERSONA_X402_ASSET_NAME: z.string().min(1).default("USDC"),
  PERSONA_X402_ASSET_VERSION: z.string().min(1).default("2"),
  /** Decimals of the token; prices in micro-units are scaled to it (≥ 6). */
  PERSONA_X402_ASSET_DECIMALS: z.coerce.number().int().min(6).max(30).default(6),
  /** Seconds a payment authorization stays valid for the server. */
  PERSONA_X402_MAX_TIMEOUT_SECONDS: positiveInteger.max(3600).default(60),
};

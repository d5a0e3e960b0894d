import { z } from "zod";
import { upstreamNameSchema } from "../personas/model-route.js";
import type { SecretValue } from "./secret-value.js";

/** The protocols an upstream can speak. */
export const UPSTREAM_KINDS = ["openai-compatible", "anthropic", "offline"] as const;

/** The protocol of an upstream. */
export type UpstreamKind = (typeof UPSTREAM_KINDS)[number];

const microUnits = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

/**
 * What one call of a model costs, in micro-units (10⁻⁶) of the account's
 * currency: a flat price per request plus a price per million input and
 * output tokens as the upstream reports them.
 */
export const upstreamPriceSchema = z.strictObject({
  requestMicros: microUnits.default(0),
  inputMicrosPerMillionTokens: microUnits.default(0),
  outputMicrosPerMillionTokens: microUnits.default(0),
});

/** A price (see {@link upstreamPriceSchema}). */
export type UpstreamPrice = z.output<typeof upstreamPriceSchema>;

const maxOutputTokensSchema = z.number().int().positive().max(1_000_000);

/** Settings of one model of an upstream that differ from the upstream's own. */
export const modelSettingsSchema = z.strictObject({
  price: upstreamPriceSchema.optional(),
  maxOutputTokens: maxOutputTokensSchema.optional(),
});

/** Per-model overrides of an upstream (see {@link modelSettingsSchema}). */
export type ModelSettings = z.output<typeof modelSettingsSchema>;

/** Keys that would hold a secret inline; the file names environment variables instead. */
const INLINE_SECRET_KEYS = ["apiKey", "api_key", "key", "token", "secret", "password"] as const;

/** The settings of one upstream (see {@link upstreamEntrySchema}). */
const upstreamEntryShape = {
  kind: z.enum(UPSTREAM_KINDS),
  /** `openai-compatible`: the URL up to `/v1`; `anthropic`: the origin (default the hosted API). */
  baseUrl: z.url({ protocol: /^https?$/u, error: "must be an http:// or https:// URL" }).optional(),
  /** Name of the environment variable holding the upstream's API key. */
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/u, "must be the name of an environment variable")
    .optional(),
  /** Deadline of one attempt on this upstream, its retries included, in milliseconds. */
  timeoutMs: z.number().int().positive().max(600_000).optional(),
  /** Retries of connection errors, 408/409/429/5xx within the deadline (the SDK's backoff). */
  maxRetries: z.number().int().min(0).max(5).optional(),
  /** Output tokens a candidate may use (Anthropic's `max_tokens`; the reservation's bound). */
  maxOutputTokens: maxOutputTokensSchema.default(2048),
  /** Consecutive failures of a target (upstream and model) that start its cooldown. */
  cooldownAfterFailures: z.number().int().min(1).max(1000).default(3),
  /** How long a failing target is skipped while another target of the route remains. */
  cooldownMs: z.number().int().min(1).max(3_600_000).default(30_000),
  /** The price of every model of this upstream; required but for `offline` (100 µ a request). */
  price: upstreamPriceSchema.optional(),
  /** Models whose price or output cap differ from the upstream's. */
  models: z.record(z.string().min(1).max(200), modelSettingsSchema).default({}),
};

const KNOWN_SETTINGS = Object.keys(upstreamEntryShape);

/**
 * One upstream as the operator writes it in `PERSONA_UPSTREAMS_FILE`.
 * `timeoutMs` and `maxRetries` default to `PERSONA_PROVIDER_TIMEOUT_MS` and
 * `PERSONA_PROVIDER_MAX_RETRIES`. An inline secret (`apiKey`, a password in
 * `baseUrl`) is refused with a message pointing to `apiKeyEnv`.
 */
export const upstreamEntrySchema = z
  .object(upstreamEntryShape)
  .catchall(z.unknown())
  .superRefine((entry, context) => {
    for (const key of Object.keys(entry)) {
      if (KNOWN_SETTINGS.includes(key)) continue;
      const secret = (INLINE_SECRET_KEYS as readonly string[]).includes(key);
      context.addIssue({
        code: "custom",
        path: [key],
        message: secret
          ? "secrets are never written in this file: put the key in an environment variable and give its name as apiKeyEnv"
          : `unknown setting (known: ${KNOWN_SETTINGS.join(", ")})`,
      });
    }
    if (entry.baseUrl !== undefined) {
      const url = new URL(entry.baseUrl);
      if (url.username !== "" || url.password !== "") {
        context.addIssue({
          code: "custom",
          path: ["baseUrl"],
          message:
            "credentials in the URL are secrets: put the key in an environment variable and give its name as apiKeyEnv",
        });
      }
    }
    if (entry.kind === "openai-compatible" && entry.baseUrl === undefined) {
      context.addIssue({ code: "custom", path: ["baseUrl"], message: "required for this kind" });
    }
    if (entry.kind === "anthropic" && entry.apiKeyEnv === undefined) {
      context.addIssue({ code: "custom", path: ["apiKeyEnv"], message: "required for this kind" });
    }
    if (entry.kind !== "offline" && entry.price === undefined) {
      context.addIssue({
        code: "custom",
        path: ["price"],
        message:
          "required: the upstream's price in micro-units (e.g. { inputMicrosPerMillionTokens: 150000, outputMicrosPerMillionTokens: 600000 }; zeros for a free one)",
      });
    }
  });

/** The operator's upstream file: upstreams by name. */
export const upstreamFileSchema = z.strictObject({
  upstreams: z.record(upstreamNameSchema, upstreamEntrySchema),
});

/** An upstream ready to build a provider from: defaults filled in, its key read. */
export interface Upstream {
  name: string;
  kind: UpstreamKind;
  /** Absent for `offline`. */
  baseUrl?: string;
  /** Read from the variable `apiKeyEnv` names; absent when none is named. */
  apiKey?: SecretValue;
  timeoutMs: number;
  maxRetries: number;
  maxOutputTokens: number;
  cooldownAfterFailures: number;
  cooldownMs: number;
  price: UpstreamPrice;
  models: Record<string, ModelSettings>;
}

/** The configured upstreams by name (`Config.upstreams`). */
export type Upstreams = ReadonlyMap<string, Upstream>;

/** The price of a model of an upstream: its own entry's, else the upstream's. */
export function priceOfModel(upstream: Upstream, model: string): UpstreamPrice {
  return upstream.models[model]?.price ?? upstream.price;
}

/** The output cap of a model of an upstream: its own entry's, else the upstream's. */
export function maxOutputTokensOfModel(upstream: Upstream, model: string): number {
  return upstream.models[model]?.maxOutputTokens ?? upstream.maxOutputTokens;
}

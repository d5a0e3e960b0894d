import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { z } from "zod";
import type { RoutePrice } from "../billing/billing-config.js";
import { ConfigError } from "../config/config-error.js";
import { SecretValue } from "./secret-value.js";
import {
  type Upstream,
  type UpstreamPrice,
  type Upstreams,
  type upstreamEntrySchema,
  upstreamFileSchema,
} from "./upstream-config.js";

/** The variable naming the operator's upstream file (YAML or JSON). */
export const UPSTREAMS_FILE_VARIABLE = "PERSONA_UPSTREAMS_FILE";

/** Configuration variables of the upstreams, merged into the server's `configSchema`. */
export const upstreamConfigShape = {
  /** Path of the upstream file (YAML or JSON); unset: the upstreams of the variables below. */
  [UPSTREAMS_FILE_VARIABLE]: z.string().min(1).optional(),
};

/** The variables {@link loadUpstreams} reads, as the configuration schema parsed them. */
export interface UpstreamVariables {
  PERSONA_UPSTREAMS_FILE?: string | undefined;
  PERSONA_OPENAI_BASE_URL?: string | undefined;
  PERSONA_OPENAI_API_KEY?: string | undefined;
  PERSONA_PROVIDER_TIMEOUT_MS: number;
  PERSONA_PROVIDER_MAX_RETRIES: number;
  PERSONA_MODEL_PRICES?: Record<string, RoutePrice> | undefined;
}

/** Price of the built-in `offline` upstream: 100 micro-units (0.0001 USD) a request. */
export const OFFLINE_PRICE: UpstreamPrice = {
  requestMicros: 100,
  inputMicrosPerMillionTokens: 0,
  outputMicrosPerMillionTokens: 0,
};

/**
 * Price of the `openai-compatible` upstream of `PERSONA_OPENAI_BASE_URL`: a
 * placeholder near small hosted models (1.00 / 4.00 USD per million input /
 * output tokens); operators set their upstream's real figures.
 */
export const PLACEHOLDER_TOKEN_PRICE: UpstreamPrice = {
  requestMicros: 0,
  inputMicrosPerMillionTokens: 1_000_000,
  outputMicrosPerMillionTokens: 4_000_000,
};

/** Where the Anthropic SDK sends requests when an `anthropic` upstream names no `baseUrl`. */
export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";

const DEFAULT_MAX_OUTPUT_TOKENS = 2048;
const DEFAULT_COOLDOWN = { cooldownAfterFailures: 3, cooldownMs: 30_000 } as const;

/**
 * Reads the upstreams of the configuration (issue "Model routes like a
 * gateway"):
 *
 * - with `PERSONA_UPSTREAMS_FILE`: the upstreams the file names (YAML or
 *   JSON, {@link upstreamFileSchema}); API keys are read from the variables
 *   their `apiKeyEnv` names, never from the file;
 * - without it, the upstreams of the first configuration format:
 *   `openai-compatible` when `PERSONA_OPENAI_BASE_URL` is set (key
 *   `PERSONA_OPENAI_API_KEY`), priced by the deprecated
 *   `PERSONA_MODEL_PRICES` (`upstream:model` or `upstream:*` keys) or the
 *   placeholder {@link PLACEHOLDER_TOKEN_PRICE};
 *
 * and in both cases the built-in `offline` engine unless the file names an
 * upstream `offline` itself, so personas of the first format keep working.
 *
 * @param environment - where `apiKeyEnv` variables are read (the one `loadConfig` reads)
 * @throws {ConfigError} naming the variable and the field at fault, never a secret's value
 */
export function loadUpstreams(
  variables: UpstreamVariables,
  environment: NodeJS.ProcessEnv = process.env,
): Upstreams {
  const defaults = {
    timeoutMs: variables.PERSONA_PROVIDER_TIMEOUT_MS,
    maxRetries: variables.PERSONA_PROVIDER_MAX_RETRIES,
  };
  const upstreams = new Map<string, Upstream>();
  const file = variables.PERSONA_UPSTREAMS_FILE;
  if (file === undefined) {
    if (variables.PERSONA_OPENAI_BASE_URL !== undefined) {
      const key = variables.PERSONA_OPENAI_API_KEY;
      upstreams.set("openai-compatible", {
        name: "openai-compatible",
        kind: "openai-compatible",
        baseUrl: variables.PERSONA_OPENAI_BASE_URL,
        ...(key === undefined ? {} : { apiKey: new SecretValue(key) }),
        ...defaults,
        ...DEFAULT_COOLDOWN,
        maxOutputTokens: DEFAULT_MAX_OUTPUT_TOKENS,
        price: PLACEHOLDER_TOKEN_PRICE,
        models: {},
      });
    }
    upstreams.set("offline", builtInOffline(defaults));
    applyLegacyPrices(upstreams, variables.PERSONA_MODEL_PRICES ?? {});
    return upstreams;
  }
  if (variables.PERSONA_OPENAI_BASE_URL !== undefined) {
    throw new ConfigError(
      `PERSONA_OPENAI_BASE_URL: not read when ${UPSTREAMS_FILE_VARIABLE} is set; declare that upstream in the file (kind: openai-compatible, baseUrl, apiKeyEnv: PERSONA_OPENAI_API_KEY)`,
    );
  }
  if (variables.PERSONA_MODEL_PRICES !== undefined) {
    throw new ConfigError(
      `PERSONA_MODEL_PRICES: not read when ${UPSTREAMS_FILE_VARIABLE} is set; give each upstream its price (and models.<model>.price) in the file`,
    );
  }
  const parsed = readUpstreamFile(file);
  for (const [name, entry] of Object.entries(parsed.upstreams)) {
    upstreams.set(name, resolveEntry(name, entry, defaults, environment, file));
  }
  if (!upstreams.has("offline")) upstreams.set("offline", builtInOffline(defaults));
  return upstreams;
}

function builtInOffline(defaults: { timeoutMs: number; maxRetries: number }): Upstream {
  return {
    name: "offline",
    kind: "offline",
    ...defaults,
    ...DEFAULT_COOLDOWN,
    maxOutputTokens: DEFAULT_MAX_OUTPUT_TOKENS,
    price: OFFLINE_PRICE,
    models: {},
  };
}

/**
 * Folds the deprecated `PERSONA_MODEL_PRICES` table into the upstreams of
 * the variables: `name:*` sets an upstream's price and output cap,
 * `name:model` one model's. Their meaning is unchanged: the provider names
 * of the first format are the names of these upstreams.
 */
function applyLegacyPrices(upstreams: Map<string, Upstream>, table: Record<string, RoutePrice>) {
  for (const [key, entry] of Object.entries(table)) {
    const colon = key.indexOf(":");
    const name = key.slice(0, colon);
    const model = key.slice(colon + 1);
    const upstream = upstreams.get(name);
    if (upstream === undefined) {
      throw new ConfigError(
        `PERSONA_MODEL_PRICES: ${key} names the upstream "${name}", which is not configured (configured: ${[...upstreams.keys()].join(", ")})`,
      );
    }
    const price: UpstreamPrice = {
      requestMicros: entry.requestMicros,
      inputMicrosPerMillionTokens: entry.inputMicrosPerMillionTokens,
      outputMicrosPerMillionTokens: entry.outputMicrosPerMillionTokens,
    };
    if (model === "*") {
      upstream.price = price;
      upstream.maxOutputTokens = entry.maxOutputTokens;
    } else {
      upstream.models[model] = { price, maxOutputTokens: entry.maxOutputTokens };
    }
  }
}

function readUpstreamFile(file: string): z.output<typeof upstreamFileSchema> {
  const where = `${UPSTREAMS_FILE_VARIABLE} (${file})`;
  let text: string;
  try {
    text = fs.readFileSync(path.resolve(file), "utf8");
  } catch (error) {
    throw new ConfigError(`${where}: cannot read it (${(error as NodeJS.ErrnoException).code})`);
  }
  let data: unknown;
  try {
    // Loaded only when a file is named, so processes without one skip its cost.
    const yaml = createRequire(import.meta.url)("yaml") as typeof import("yaml");
    data = yaml.parse(text);
  } catch (error) {
    // Only the first line: the parser's next lines quote the file, which may hold a secret.
    const reason = String((error as Error).message).split("\n")[0];
    throw new ConfigError(`${where}: not valid YAML or JSON: ${reason}`);
  }
  const result = upstreamFileSchema.safeParse(data);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue?.path.join(".") || "(root)";
    throw new ConfigError(`${where}: ${field}: ${issue?.message ?? "invalid"}`);
  }
  return result.data;
}

function resolveEntry(
  name: string,
  entry: z.output<typeof upstreamEntrySchema>,
  defaults: { timeoutMs: number; maxRetries: number },
  environment: NodeJS.ProcessEnv,
  file: string,
): Upstream {
  const upstream: Upstream = {
    name,
    kind: entry.kind,
    timeoutMs: entry.timeoutMs ?? defaults.timeoutMs,
    maxRetries: entry.maxRetries ?? defaults.maxRetries,
    maxOutputTokens: entry.maxOutputTokens,
    cooldownAfterFailures: entry.cooldownAfterFailures,
    cooldownMs: entry.cooldownMs,
    price: entry.price ?? OFFLINE_PRICE,
    models: entry.models,
  };
  const baseUrl =
    entry.baseUrl ?? (entry.kind === "anthropic" ? ANTHROPIC_DEFAULT_BASE_URL : undefined);
  if (baseUrl !== undefined) upstream.baseUrl = baseUrl;
  if (entry.apiKeyEnv !== undefined) {
    const value = environment[entry.apiKeyEnv];
    if (value === undefined || value === "") {
      throw new ConfigError(
        `${UPSTREAMS_FILE_VARIABLE} (${file}): upstreams.${name}.apiKeyEnv: the environment variable ${entry.apiKeyEnv} is not set`,
      );
    }
    upstream.apiKey = new SecretValue(value);
  }
  return upstream;
}

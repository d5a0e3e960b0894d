import { z } from "zod";
import { billingConfigShape } from "../billing/billing-config.js";
import { loadUpstreams, upstreamConfigShape } from "../providers/load-upstreams.js";
import type { Upstreams } from "../providers/upstream-config.js";
import { ConfigError } from "./config-error.js";
import { resolveDatabaseUrl } from "./database-url.js";
import { operationsConfigShape } from "./operations-config.js";
import { retentionConfigShape } from "./retention-config.js";
import { storageConfigShape } from "./storage-config.js";
import { tracingConfigShape } from "./tracing-config.js";

export { ConfigError };

const port = z.coerce.number().int().min(0).max(65_535);

/**
 * The server configuration, read once at start-up from `PERSONA_*`
 * variables (docs/CONFIGURATION.md). `PORT` is accepted
 * as a fallback for `PERSONA_PORT`.
 */
export const configSchema = z.object({
  /** TCP port; 0 picks a free one. */
  PERSONA_PORT: port.default(8787),
  /** Interface to bind: loopback by default. */
  PERSONA_HOST: z.string().min(1).default("127.0.0.1"),
  /** Public origin written to `.env` as SERVICE_BASE_URL; defaults to http://HOST:PORT. */
  PERSONA_PUBLIC_URL: z.url().optional(),
  /**
   * OAuth clients of `/mcp` identified by an https URL (client ID metadata
   * documents): `public` fetches their documents from public addresses
   * only, `any` from private networks too, `off` neither advertises nor
   * accepts them (dynamic registration only).
   */
  PERSONA_OAUTH_CLIENT_METADATA: z.enum(["public", "any", "off"]).default("public"),
  /**
   * SQLite file path or `file:` URL (the embedded default), or a `postgres://`
   * (`postgresql://`) URL for PostgreSQL; any other scheme stops start-up.
   */
  PERSONA_DATABASE_URL: z.string().min(1).default("./data/persona-reply.sqlite"),
  /** Largest accepted request body in bytes (default 1 MiB). */
  PERSONA_BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(1_048_576),
  /** pino log level. */
  PERSONA_LOG_LEVEL: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
    .default("info"),
  /** Whether to seed the demo account, persona and key on first run. */
  PERSONA_SEED_DEMO: z
    .enum(["true", "false", "1", "0"])
    .default("true")
    .transform((value) => value === "true" || value === "1"),
  /** Where the first run writes the demo SERVICE_* values (mode 0600). */
  PERSONA_ENV_FILE: z.string().min(1).default("./.env"),
  /**
   * The address the demo seed allows to sign in to the playground as the demo
   * account (seed/demo-seed.ts). A `.localhost` address reaches no mailbox:
   * without SMTP the sign-in link is printed on the console. Empty: none.
   */
  PERSONA_DEMO_EMAIL: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(
      z.union([
        z.literal(""),
        z.email({ error: "must be an e-mail address, or empty for none" }).max(254),
      ]),
    )
    // null, not undefined: zod would put the default in place of an undefined output.
    .transform((value) => (value === "" ? null : value))
    .default("you@persona.localhost"),
  /**
   * Base URL of the `openai-compatible` upstream (e.g. http://127.0.0.1:11434/v1 for Ollama)
   * when no upstream file is given.
   */
  PERSONA_OPENAI_BASE_URL: z.url().optional(),
  /** API key of the OpenAI-compatible upstream; never logged. */
  PERSONA_OPENAI_API_KEY: z.string().optional(),
  /** Upstream timeout in milliseconds (the default of every upstream). */
  PERSONA_PROVIDER_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** Upstream retries on connection errors, 429 and 5xx (the default of every upstream). */
  PERSONA_PROVIDER_MAX_RETRIES: z.coerce.number().int().min(0).max(5).default(1),
  /**
   * SMTP server for the playground's sign-in mail, e.g. `smtp://user:pass@mail.example.com:587`
   * or `smtps://…:465`. Without it (development) the sign-in link is written to the log.
   */
  PERSONA_SMTP_URL: z
    .url({ protocol: /^smtps?$/u, error: "must be an smtp:// or smtps:// URL" })
    .optional(),
  /**
   * Where an approved applicant books the onboarding call (docs/API.md §1.6), e.g. a
   * scheduling page; put in the approval mail. Unset: the mail says the operator writes
   * to arrange it.
   */
  PERSONA_ONBOARDING_BOOKING_URL: z
    .url({ protocol: /^https?$/u, error: "must be an http:// or https:// URL" })
    .optional(),
  /** Sender of the sign-in mail. */
  PERSONA_MAIL_FROM: z.string().min(3).default("Persona Reply <no-reply@localhost>"),
  /**
   * Secret (≥ 32 characters) for the playground's CSRF tokens. Random per process when
   * unset; set it when several instances serve the playground.
   */
  PERSONA_SESSION_SECRET: z.string().min(32).optional(),
  /** Lifetime of a playground sign-in session in hours (default 7 days). */
  PERSONA_SESSION_TTL_HOURS: z.coerce
    .number()
    .int()
    .positive()
    .max(24 * 90)
    .default(24 * 7),
  /** Billing, rate limits, several instances and x402 (see billing/billing-config.ts). */
  ...billingConfigShape,
  /** Metrics and HTTP server timeouts (config/operations-config.ts). */
  ...operationsConfigShape,
  /** Storage and Redis deadlines (config/storage-config.ts). */
  ...storageConfigShape,
  /** Usage retention and archives (config/retention-config.ts). */
  ...retentionConfigShape,
  /** The upstream file (providers/load-upstreams.ts). */
  ...upstreamConfigShape,
  /** OpenTelemetry traces (config/tracing-config.ts). */
  ...tracingConfigShape,
});

/** The validated server configuration. */
export type Config = z.output<typeof configSchema> & {
  /** The SQLite file resolved to an absolute path (or `:memory:`), or the PostgreSQL URL as given. */
  databasePath: string;
  /** The model upstreams by name: the upstream file's, or those of the variables. */
  upstreams: Upstreams;
};

/**
 * Reads and validates the configuration.
 *
 * @param environment - variables to read, `process.env` by default
 * @throws {ConfigError} naming the first bad variable (or field of the upstream file) and
 *   why (never a secret's value; a database URL of an unsupported scheme is
 *   shown with its password masked). Nothing is created on disk.
 */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  const input = { ...environment };
  if (input.PERSONA_PORT === undefined && input.PORT !== undefined) input.PERSONA_PORT = input.PORT;
  const result = configSchema.safeParse(input);
  if (!result.success) {
    const issue = result.error.issues[0];
    const variable = String(issue?.path[0] ?? "configuration");
    throw new ConfigError(`${variable}: ${issue?.message ?? "invalid value"}`);
  }
  const database = resolveDatabaseUrl(result.data.PERSONA_DATABASE_URL);
  if (!database.ok) throw new ConfigError(`PERSONA_DATABASE_URL: ${database.problem}`);
  return {
    ...result.data,
    databasePath: database.location,
    upstreams: loadUpstreams(result.data, environment),
  };
}

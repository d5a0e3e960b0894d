import path from "node:path";
import { z } from "zod";

const port = z.coerce.number().int().min(0).max(65_535);

/**
 * The server configuration, read once at start-up from `PERSONA_*`
 * variables (DESIGN.md "Names fixed across packages"). `PORT` is accepted
 * as a fallback for `PERSONA_PORT`.
 */
export const configSchema = z.object({
  /** TCP port; 0 picks a free one. */
  PERSONA_PORT: port.default(8787),
  /** Interface to bind: loopback by default. */
  PERSONA_HOST: z.string().min(1).default("127.0.0.1"),
  /** Public origin written to `.env` as SERVICE_BASE_URL; defaults to http://HOST:PORT. */
  PERSONA_PUBLIC_URL: z.url().optional(),
  /** SQLite file path (the embedded default). */
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
  /** Base URL of the OpenAI-compatible upstream (e.g. http://127.0.0.1:11434/v1 for Ollama). */
  PERSONA_OPENAI_BASE_URL: z.url().optional(),
  /** API key of the OpenAI-compatible upstream; never logged. */
  PERSONA_OPENAI_API_KEY: z.string().optional(),
  /** Upstream timeout in milliseconds. */
  PERSONA_PROVIDER_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** Upstream retries on connection errors, 429 and 5xx (the SDK's backoff). */
  PERSONA_PROVIDER_MAX_RETRIES: z.coerce.number().int().min(0).max(5).default(1),
});

/** The validated server configuration. */
export type Config = z.output<typeof configSchema> & {
  /** The database file resolved to an absolute path. */
  databasePath: string;
};

/** Raised when a configuration variable is missing or malformed; names the variable. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/**
 * Reads and validates the configuration.
 *
 * @param environment - variables to read, `process.env` by default
 * @throws {ConfigError} naming the first bad variable and why (never its value)
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
  return { ...result.data, databasePath: path.resolve(result.data.PERSONA_DATABASE_URL) };
}

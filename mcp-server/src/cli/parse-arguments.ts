import { parseArgs } from "node:util";
import { LOG_LEVELS, type LogLevel } from "../logging/logger.js";

/** Port of the Streamable HTTP transport when `--http` comes without `--port`. */
export const DEFAULT_HTTP_PORT = 8788;

/** How `persona-mcp` was asked to run. */
export interface ServerArguments {
  /** `stdio` (default) or `http` (`--http`). */
  transport: "stdio" | "http";
  /** Address for `--http`; default `127.0.0.1`. */
  host: string;
  /** Port for `--http`; default {@link DEFAULT_HTTP_PORT}; 0 picks a free one. */
  port: number;
  /** `--profile`: a profile of the `persona` tool instead of the active one. */
  profile?: string;
  /** `--persona-id`: overrides SERVICE_PERSONA_ID and the profile. */
  personaId?: string;
  /** `--base-url`: overrides SERVICE_BASE_URL and the profile. */
  baseUrl?: string;
  /**
   * `--dotenv`: the dotenv file read at every call; default `.env` in the working directory.
   * Not `--env-file`: Node 20 takes that as its own option anywhere on the command
   * line, even after the script (nodejs/node#54232), and exits when the file is missing.
   */
  envFile?: string;
  /** `--timeout` in milliseconds (given in seconds). */
  timeoutMs?: number;
  /** `--max-retries`: retries after a connection error, 408 or 5xx; default 2. */
  maxRetries: number;
  /** `--log-level`; default `info`. */
  logLevel: LogLevel;
  /**
   * `--no-auth` (with `--http` only): serve without a bearer token. Absent,
   * the HTTP transport requires the token of {@link HTTP_TOKEN_VARIABLE}, or
   * one made at start and printed once.
   */
  noAuth?: true;
}

/** The environment variable that gives the HTTP transport's bearer token instead of a new one at each start. */
export const HTTP_TOKEN_VARIABLE = "PERSONA_MCP_HTTP_TOKEN";

/** What the command line asks for: run, or print help or the version. */
export type ParsedCommand =
  | { action: "run"; arguments: ServerArguments }
  | { action: "help" }
  | { action: "version" };

/** A command line `persona-mcp` cannot run with; the message never repeats a key. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** Text of `persona-mcp --help`. */
export const USAGE = `Usage: persona-mcp [options]

MCP server exposing the Persona Reply persona's generate and personify as tools.

Transports:
  (default)              stdio: the agent starts this process and talks over its pipes
  --http                 Streamable HTTP at http://HOST:PORT/mcp instead
  --port <n>             port for --http (default ${DEFAULT_HTTP_PORT}; 0 picks a free one)
  --host <address>       address for --http (default 127.0.0.1, loopback only)
  --no-auth              for --http: take requests without a bearer token (not advised)

Over --http every request needs Authorization: Bearer <token>. The token is
made at start and printed once, in a client configuration snippet, unless
${HTTP_TOKEN_VARIABLE} gives one (at least 32 characters; never a flag).

Settings (flags > environment > .env file > the persona tool's active profile):
  --persona-id <uuid>    persona to speak as (else SERVICE_PERSONA_ID)
  --base-url <url>       service origin without /api/v1 (else SERVICE_BASE_URL)
  --profile <name>       read this profile of the persona tool instead of the active one
  --dotenv <path>        dotenv file read at every call (default ./.env); never overrides the environment
  --timeout <seconds>    time allowed per request attempt (default 60)
  --max-retries <n>      retries after a connection error or 5xx (default 2; never after 429)
  --log-level <level>    error, warn, info (default) or debug; logs go to standard error

  --help, --version

The API key comes from SERVICE_API_KEY, the env file, or the persona tool's
profile (\`persona configure --api-key-stdin\`), never from the command line.
`;

const KEY_FLAGS = /^--?(api-?key|key|token|secret)(=|$)/iu;
const KEY_SHAPED = /\b[a-z]{2,8}_[0-9A-Za-z]{16,}\b/u;

function integer(value: string, flag: string, minimum: number, maximum: number): number {
  const number = Number(value);
  if (!/^\d+$/u.test(value.trim()) || number < minimum || number > maximum) {
    throw new UsageError(`${flag} must be a whole number from ${minimum} to ${maximum}`);
  }
  return number;
}

/**
 * Reads `persona-mcp`'s command line (`process.argv.slice(2)`).
 *
 * A key is never accepted as an argument (arguments end up in shell history,
 * the process list and agent configuration files): `--api-key`, `--key`,
 * `--token`, `--secret`, or any argument shaped like a key, is refused with
 * a message that does not repeat it.
 *
 * @throws {UsageError} for an unknown flag, a bad value, or a key on the command line
 *
 * @example
 * parseArguments(["--http", "--port", "0"]);
 * // { action: "run", arguments: { transport: "http", host: "127.0.0.1", port: 0, … } }
 */
export function parseArguments(argv: readonly string[]): ParsedCommand {
  for (const argument of argv) {
    if (KEY_FLAGS.test(argument) || KEY_SHAPED.test(argument)) {
      throw new UsageError(
        "an API key cannot be given on the command line: set SERVICE_API_KEY in the environment or the env file, or run `persona configure --api-key-stdin`",
      );
    }
  }
  let values: ReturnType<typeof parse>["values"];
  let positionals: string[];
  try {
    ({ values, positionals } = parse(argv));
  } catch (error) {
    // Node's messages name the flag, e.g. "Unknown option '--foo'".
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (positionals.length > 0) {
    throw new UsageError(`unexpected argument "${positionals[0]}"; see persona-mcp --help`);
  }
  if (values.help) return { action: "help" };
  if (values.version) return { action: "version" };
  if (
    !values.http &&
    (values.port !== undefined || values.host !== undefined || values["no-auth"] === true)
  ) {
    throw new UsageError("--port, --host and --no-auth go with --http");
  }
  const logLevel = values["log-level"] ?? "info";
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(", ")}`);
  }
  const result: ServerArguments = {
    transport: values.http ? "http" : "stdio",
    host: values.host ?? "127.0.0.1",
    port: values.port === undefined ? DEFAULT_HTTP_PORT : integer(values.port, "--port", 0, 65_535),
    maxRetries:
      values["max-retries"] === undefined
        ? 2
        : integer(values["max-retries"], "--max-retries", 0, 10),
    logLevel: logLevel as LogLevel,
  };
  if (values.profile !== undefined) result.profile = values.profile;
  if (values["persona-id"] !== undefined) result.personaId = values["persona-id"];
  if (values["base-url"] !== undefined) result.baseUrl = values["base-url"];
  if (values.dotenv !== undefined) result.envFile = values.dotenv;
  if (values["no-auth"] === true) result.noAuth = true;
  if (values.timeout !== undefined) {
    const seconds = Number(values.timeout);
    if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) {
      throw new UsageError("--timeout must be a number of seconds above 0 and at most 3600");
    }
    result.timeoutMs = seconds * 1000;
  }
  return { action: "run", arguments: result };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      http: { type: "boolean" },
      port: { type: "string" },
      host: { type: "string" },
      "no-auth": { type: "boolean" },
      profile: { type: "string" },
      "persona-id": { type: "string" },
      "base-url": { type: "string" },
      dotenv: { type: "string" },
      timeout: { type: "string" },
      "max-retries": { type: "string" },
      "log-level": { type: "string" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "v" },
    },
  });
}

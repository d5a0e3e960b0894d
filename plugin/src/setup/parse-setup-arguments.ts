import { parseArgs } from "node:util";
import { normalizeBaseUrl } from "@persona-reply/client";
import { parseCallbackPort } from "@persona-reply/client/login";
import { type LoginSource, personaIdSchema } from "@persona-reply/shared";

/** Who runs the setup, sent as the login's `source` (docs/API.md §4.5). */
export const SETUP_SOURCES = ["claude_code", "codex"] as const satisfies readonly LoginSource[];

/** A value of {@link SETUP_SOURCES}. */
export type SetupSource = (typeof SETUP_SOURCES)[number];

/** Longest wait `--timeout` accepts: one hour, in seconds. */
export const MAX_TIMEOUT_SECONDS = 3600;

/** What the setup was asked to do. */
export interface SetupArguments {
  /** `--env-file`: where the key goes, as typed (resolved against the working folder later). */
  envFile: string;
  /** `--source`: `claude_code` or `codex`. */
  source: SetupSource;
  /** `--persona-id`: written as SERVICE_PERSONA_ID. */
  personaId?: string;
  /** `--base-url`: the service's origin, used for the login and written as SERVICE_BASE_URL. */
  baseUrl?: string;
  /** `--name`: the key's name on the playground's /keys page. */
  name?: string;
  /** `--yes`: the destination was confirmed already (in the agent's conversation). */
  yes: boolean;
  /** `--force`: replace a key the file already holds. */
  force: boolean;
  /** `--no-browser`: only print the login URL. */
  openBrowser: boolean;
  /** `--timeout` in milliseconds (given in seconds). */
  timeoutMs?: number;
  /** `--callback-port`: the loopback port for the browser's answer (default: any free port). */
  callbackPort?: number;
}

/** What the command line asks for. */
export type ParsedSetupCommand = { action: "run"; arguments: SetupArguments } | { action: "help" };

/** A command line the setup cannot run with (exit code 2). The message never repeats a key. */
export class SetupUsageError extends Error {
  override name = "SetupUsageError";
}

/** Text of `--help`. */
export const SETUP_USAGE = `Usage: persona-plugin-setup --env-file <path> --source <claude_code|codex> [options]
   or: node -- <plugin>/bundle/setup.mjs --env-file <path> --source <claude_code|codex> [options]
       (keep the -- after node: without it Node takes --env-file as its own option)

Gets a new Persona Reply API key by approving in the browser, and writes it to
an env file as SERVICE_API_KEY without ever showing it.

  --env-file <path>      the env file to write (created with mode 0600 if missing)
  --source <source>      who asks: claude_code or codex (shown on the consent page)
  --persona-id <uuid>    also write SERVICE_PERSONA_ID
  --base-url <url>       the service's origin (no /api/v1); also written as SERVICE_BASE_URL
  --name <name>          the key's name on the playground's /keys page
  --yes                  the destination is confirmed (no question in a terminal)
  --force                replace a SERVICE_API_KEY the file already holds
  --no-browser           do not open a browser; open the printed URL yourself
  --callback-port <n>    loopback port for the browser's answer (default: any free port)
  --timeout <seconds>    how long to wait for the approval (default 600)
  --help

Every other line of the file is kept. Inside a git repository the file is
added to .gitignore. Only the masked key (prk_…abcd) is printed.
`;

const KEY_FLAGS = /^--?(api-?key|key|token|secret)(=|$)/iu;
// Only the service's own key shape: a broader pattern would refuse ordinary paths such as
// `/home/kai/work_repositories2024/.env`.
const KEY_SHAPED = /\bprk_[0-9A-Za-z]{20,}\b/u;

/** Refuses a key on the command line before anything else looks at it (it would land in shell history and transcripts). */
function refuseKeys(argv: readonly string[]): void {
  for (const argument of argv) {
    if (KEY_FLAGS.test(argument) || KEY_SHAPED.test(argument)) {
      throw new SetupUsageError(
        "an API key never goes on the command line; this setup gets a new one through the browser and writes it to the env file",
      );
    }
  }
}

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === "") throw new SetupUsageError(`${flag} is required`);
  return value.trim();
}

function readTimeout(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (!/^\d+$/u.test(value.trim()) || seconds < 1 || seconds > MAX_TIMEOUT_SECONDS) {
    throw new SetupUsageError(`--timeout takes whole seconds from 1 to ${MAX_TIMEOUT_SECONDS}`);
  }
  return seconds * 1000;
}

/**
 * Reads the setup's command line (`process.argv.slice(2)`). A key-shaped
 * argument or a `--api-key`-like flag is refused first, so the key never
 * passes through the command line.
 *
 * @throws {SetupUsageError} for an unknown flag, a missing `--env-file` or
 *   `--source`, or a value out of its range
 *
 * @example
 * parseSetupArguments(["--env-file", ".env", "--source", "claude_code", "--yes"]);
 * // { action: "run", arguments: { envFile: ".env", source: "claude_code", yes: true, … } }
 */
export function parseSetupArguments(argv: readonly string[]): ParsedSetupCommand {
  refuseKeys(argv);
  let values: ReturnType<typeof parse>["values"];
  try {
    values = parse(argv).values;
  } catch (error) {
    throw new SetupUsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help === true) return { action: "help" };

  const envFile = required(values["env-file"], "--env-file");
  const source = required(values.source, "--source");
  if (!(SETUP_SOURCES as readonly string[]).includes(source)) {
    throw new SetupUsageError(`--source must be one of ${SETUP_SOURCES.join(", ")}`);
  }
  const result: SetupArguments = {
    envFile,
    source: source as SetupSource,
    yes: values.yes === true,
    force: values.force === true,
    openBrowser: values["no-browser"] !== true,
  };
  if (values["persona-id"] !== undefined) {
    const parsed = personaIdSchema.safeParse(values["persona-id"].trim());
    if (!parsed.success) throw new SetupUsageError("--persona-id must be a persona ID (a UUID)");
    result.personaId = parsed.data;
  }
  if (values["base-url"] !== undefined) {
    try {
      result.baseUrl = normalizeBaseUrl(values["base-url"], "--base-url");
    } catch (error) {
      throw new SetupUsageError(error instanceof Error ? error.message : String(error));
    }
  }
  if (values.name !== undefined) {
    const name = values.name.trim();
    if (name === "" || name.length > 100)
      throw new SetupUsageError("--name takes 1–100 characters");
    result.name = name;
  }
  const timeoutMs = readTimeout(values.timeout);
  if (timeoutMs !== undefined) result.timeoutMs = timeoutMs;
  if (values["callback-port"] !== undefined) {
    const port = parseCallbackPort(values["callback-port"]);
    if (port === undefined) {
      throw new SetupUsageError("--callback-port takes a port number from 1 to 65535");
    }
    result.callbackPort = port;
  }
  return { action: "run", arguments: result };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: false,
    strict: true,
    options: {
      "env-file": { type: "string" },
      source: { type: "string" },
      "persona-id": { type: "string" },
      "base-url": { type: "string" },
      name: { type: "string" },
      yes: { type: "boolean", short: "y" },
      force: { type: "boolean" },
      "no-browser": { type: "boolean" },
      timeout: { type: "string" },
      "callback-port": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
}

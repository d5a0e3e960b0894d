import { PersonaClient } from "@persona-reply/client";
import { profilesFilePath, resolveSettings, type SettingSource } from "@persona-reply/client/node";
import { readEnvFile, type ServiceVariable } from "./read-env-file.js";
import { SetupRequiredError, setupInstructions } from "./setup-instructions.js";
import { TOOL_RETRY_POLICY } from "./tool-retry-policy.js";

/** Values given on the `persona-mcp` command line (never a key: the command line refuses one). */
export interface ServerFlags {
  /** A profile of the `persona` tool to read instead of the active one. */
  profile?: string | undefined;
  /** The persona's UUID, overriding the environment and the profile. */
  personaId?: string | undefined;
  /** The service's origin, overriding the environment and the profile. */
  baseUrl?: string | undefined;
}

/** Options of {@link createClientSource}. */
export interface ClientSourceOptions {
  /** Command-line values; they win over everything else. */
  flags?: ServerFlags;
  /** The process environment; default `process.env`. Wins over the env file. */
  env?: NodeJS.ProcessEnv;
  /** Absolute path of the env file read at every call (e.g. `<working directory>/.env`). */
  envFile: string;
  /** Time allowed per attempt, in milliseconds; default the client's (60 000). */
  timeoutMs?: number | undefined;
  /** The fetch the client uses; default the global one. */
  fetch?: typeof fetch | undefined;
}

/**
 * Where the API key came from, for what to change after a 401: the server's
 * own environment (which wins over the env file), the env file, or the
 * persona tool's profile.
 */
export type ApiKeySource = "environment" | "env file" | "profile";

/** A configured client and where each of its settings came from, for messages. */
export interface ActiveSettings {
  /** The client, built with {@link TOOL_RETRY_POLICY} (never retries a 429). */
  client: PersonaClient;
  /** The persona every call speaks as. */
  personaId: string;
  /** The key, masked (`prk_…abcd`). */
  maskedApiKey: string;
  /** Secrets to mask in logs and tool results: the key. */
  secrets: readonly string[];
  /** Where each setting came from, in words, e.g. `SERVICE_API_KEY in /work/app/.env`. */
  origins: { apiKey: string; personaId: string; baseUrl: string };
  /** Where the key came from, as a kind (see {@link ApiKeySource}). */
  apiKeySource: ApiKeySource;
}

/** Returns the settings for one tool call; see {@link createClientSource}. */
export type ClientSource = () => ActiveSettings;

const VARIABLE_OF = {
  apiKey: "SERVICE_API_KEY",
  personaId: "SERVICE_PERSONA_ID",
  baseUrl: "SERVICE_BASE_URL",
} as const satisfies Record<string, ServiceVariable>;

/** `${NAME}` or `${NAME:-…}` left as it was written: an agent configuration that did not expand it. */
const PLACEHOLDER = /^\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}$/u;

/**
 * The environment with `SERVICE_*` values that are unexpanded placeholders
 * removed: Claude Code passes an unset `${SERVICE_API_KEY}` of `.mcp.json`
 * through as that literal text, and Codex never expands `env` values. Such a
 * value would be sent as the key; removed, the env file or profile fills in.
 */
export function withoutPlaceholders(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const cleaned: NodeJS.ProcessEnv = { ...env };
  for (const name of Object.values(VARIABLE_OF)) {
    const value = cleaned[name];
    if (value !== undefined && PLACEHOLDER.test(value.trim())) delete cleaned[name];
  }
  return cleaned;
}

const FLAG_OF = { apiKey: "--api-key", personaId: "--persona-id", baseUrl: "--base-url" } as const;

/**
 * Builds the function the tools call before every request to get a
 * configured {@link PersonaClient}. Settings are resolved at each call, so a
 * key written later (by the plugin's setup command into the env file, or by
 * `persona configure`) is used without restarting the server.
 *
 * Precedence: command-line flags, then the process environment
 * (`SERVICE_API_KEY`, `SERVICE_PERSONA_ID`, `SERVICE_BASE_URL`), then the
 * env file (which never overrides the environment), then the `persona`
 * tool's profile (`flags.profile`, else the active one) — `resolveSettings`
 * of `@persona-reply/client/node` with the env file merged under the
 * environment.
 *
 * The returned function throws {@link SetupRequiredError} when no key or no
 * persona ID is found, and the client's `ConfigurationError` for an unusable
 * base URL or profile; the tools turn both into tool errors.
 *
 * @example
 * const source = createClientSource({ envFile: path.resolve(".env") });
 * const { client } = source();
 * await client.personify({ raw: "The meeting moves to Thursday." });
 */
export function createClientSource(options: ClientSourceOptions): ClientSource {
  const processEnv = withoutPlaceholders(options.env ?? process.env);
  return () => {
    const envFile = readEnvFile(options.envFile);
    // The file fills only what the environment leaves empty (dotenv's rule).
    const env: NodeJS.ProcessEnv = { ...processEnv };
    for (const [name, value] of Object.entries(envFile.values)) {
      if ((env[name] ?? "").trim() === "") env[name] = value;
    }
    const settings = resolveSettings({ flags: options.flags ?? {}, env });
    const origin = (
      field: "apiKey" | "personaId" | "baseUrl",
      source: SettingSource | undefined,
    ) => {
      if (source === "flag") return FLAG_OF[field];
      if (source === "profile") {
        return `the persona tool's profile "${settings.profileName ?? "?"}" (${profilesFilePath(processEnv)})`;
      }
      const variable = VARIABLE_OF[field];
      if (source === "environment") {
        return (processEnv[variable] ?? "").trim() !== ""
          ? `${variable} in the environment`
          : `${variable} in ${options.envFile}`;
      }
      return "the default";
    };
    const missing: ("apiKey" | "personaId")[] = [];
    if (settings.apiKey === undefined) missing.push("apiKey");
    if (settings.personaId === undefined) missing.push("personaId");
    if (settings.apiKey === undefined || settings.personaId === undefined) {
      throw new SetupRequiredError(missingMessage(missing, options, envFile, processEnv), missing);
    }
    const client = new PersonaClient({
      apiKey: settings.apiKey,
      personaId: settings.personaId,
      baseUrl: settings.baseUrl,
      timeoutMs: options.timeoutMs,
      retry: TOOL_RETRY_POLICY,
      fetch: options.fetch,
    });
    const apiKeySource: ApiKeySource =
      settings.sources.apiKey === "profile"
        ? "profile"
        : (processEnv.SERVICE_API_KEY ?? "").trim() !== ""
          ? "environment"
          : "env file";
    return {
      client,
      personaId: client.personaId,
      maskedApiKey: client.maskedApiKey,
      secrets: [settings.apiKey],
      apiKeySource,
      origins: {
        apiKey: origin("apiKey", settings.sources.apiKey),
        personaId: origin("personaId", settings.sources.personaId),
        baseUrl:
          settings.sources.baseUrl === undefined
            ? "the client's default (no SERVICE_BASE_URL set)"
            : origin("baseUrl", settings.sources.baseUrl),
      },
    };
  };
}

function missingMessage(
  missing: readonly ("apiKey" | "personaId")[],
  options: ClientSourceOptions,
  envFile: ReturnType<typeof readEnvFile>,
  processEnv: NodeJS.ProcessEnv,
): string {
  const what = missing
    .map((field) => (field === "apiKey" ? "no API key" : "no persona ID"))
    .join(" and ");
  const fileState = envFile.problem
    ? `exists but cannot be read: ${envFile.problem}`
    : envFile.found
      ? "found"
      : "not found";
  const profile = options.flags?.profile;
  const places = [
    "the SERVICE_API_KEY and SERVICE_PERSONA_ID environment variables",
    `the env file ${options.envFile} (${fileState})`,
    `${profile === undefined ? "the active profile" : `the profile "${profile}"`} of the persona tool (${profilesFilePath(processEnv)})`,
  ];
  const steps = setupInstructions(options.envFile);
  if (!missing.includes("apiKey")) {
    // Only the persona ID is missing: the key is set, so point at the persona ID alone.
    steps.splice(
      0,
      steps.length - 1,
      "Set the persona ID the operator handed over at onboarding: `persona configure --persona-id <persona UUID>` in the user's terminal, or SERVICE_PERSONA_ID in this server's environment or in the env file.",
    );
  }
  return [
    `Persona Reply is not set up for this MCP server: ${what} found.`,
    `Looked in: ${places.join("; ")}.`,
    "To set it up, ask the user to do one of these:",
    ...steps.map((step) => `- ${step}`),
    "The env file and the profile are read again at every call, so no restart is needed after the setup (a change to the server's own environment needs a restart).",
  ].join("\n");
}

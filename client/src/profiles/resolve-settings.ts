import { ConfigurationError } from "../errors/client-errors.js";
import { present } from "../settings/environment.js";
import { loadProfiles, type ProfileStoreOptions, type ProfileValues } from "./profile-store.js";

/** Values given on a command line (or by a host program such as the MCP server). */
export interface SettingsFlags {
  apiKey?: string | undefined;
  personaId?: string | undefined;
  baseUrl?: string | undefined;
  /** Read this profile instead of the active one; it must exist. */
  profile?: string | undefined;
}

/** Where a resolved value came from. */
export type SettingSource = "flag" | "environment" | "profile";

/** Settings after precedence: flags > environment > profile. */
export interface ResolvedSettings {
  apiKey?: string;
  personaId?: string;
  baseUrl?: string;
  /** The profile that was consulted (named by `flags.profile`, or the active one). */
  profileName?: string;
  /** Where each present value came from. */
  sources: { [Field in keyof ProfileValues]?: SettingSource };
}

/** Input of {@link resolveSettings}. */
export interface ResolveSettingsInput {
  flags?: SettingsFlags;
  /** Environment for `SERVICE_*`, `XDG_CONFIG_HOME` and `HOME`; `process.env` by default. */
  env?: NodeJS.ProcessEnv;
  /** The profiles file, overriding the environment. */
  file?: string;
}

const ENVIRONMENT_NAMES = {
  apiKey: "SERVICE_API_KEY",
  personaId: "SERVICE_PERSONA_ID",
  baseUrl: "SERVICE_BASE_URL",
} as const;

/**
 * Resolves the API key, persona ID and base URL the way the `persona` tool
 * does: a flag wins over the environment (`SERVICE_API_KEY`,
 * `SERVICE_PERSONA_ID`, `SERVICE_BASE_URL`, docs/API.md §5.4), which wins over the
 * profile (`flags.profile`, else the active one). Empty values count as
 * missing. Values are returned as found; `PersonaClient` checks them.
 *
 * @throws {ConfigurationError} when `flags.profile` names no profile, or the
 * profiles file cannot be read
 *
 * @example
 * import { PersonaClient } from "@persona-reply/client";
 * import { resolveSettings } from "@persona-reply/client/node";
 *
 * const settings = resolveSettings({ env: process.env });
 * const client = new PersonaClient(settings);
 */
export function resolveSettings(input: ResolveSettingsInput = {}): ResolvedSettings {
  const flags = input.flags ?? {};
  const env = input.env ?? process.env;
  const storeOptions: ProfileStoreOptions = { env };
  if (input.file !== undefined) storeOptions.file = input.file;
  const store = loadProfiles(storeOptions);
  const requested = present(flags.profile);
  if (requested !== undefined && store.profiles[requested] === undefined) {
    throw new ConfigurationError(`no profile named "${requested}"; persona profiles lists them`);
  }
  const profileName = requested ?? store.activeProfile;
  const profile = profileName === undefined ? undefined : store.profiles[profileName];
  const settings: ResolvedSettings = { sources: {} };
  if (profileName !== undefined && profile !== undefined) settings.profileName = profileName;
  for (const field of ["apiKey", "personaId", "baseUrl"] as const) {
    const fromFlag = present(flags[field]);
    const fromEnvironment = present(env[ENVIRONMENT_NAMES[field]]);
    const fromProfile = present(profile?.[field]);
    if (fromFlag !== undefined) {
      settings[field] = fromFlag;
      settings.sources[field] = "flag";
    } else if (fromEnvironment !== undefined) {
      settings[field] = fromEnvironment;
      settings.sources[field] = "environment";
    } else if (fromProfile !== undefined) {
      settings[field] = fromProfile;
      settings.sources[field] = "profile";
    }
  }
  return settings;
}

import fs from "node:fs";
import { personaIdSchema } from "@persona-reply/shared";
import type { Command } from "commander";
import { ConfigurationError } from "../../errors/client-errors.js";
import {
  checkProfileName,
  DEFAULT_PROFILE_NAME,
  loadProfiles,
  type ProfileUpdate,
  removeProfile,
  saveProfile,
} from "../../profiles/profile-store.js";
import { profilesFilePath } from "../../profiles/profiles-file-path.js";
import { DEFAULT_BASE_URL, normalizeBaseUrl } from "../../settings/base-url.js";
import { present } from "../../settings/environment.js";
import { maskApiKey } from "../../settings/mask-api-key.js";
import type { CliContext } from "../cli-context.js";
import { printJson, printLines } from "../cli-context.js";
import { checkApiKey, readHiddenLine, readStandardInput } from "../read-input.js";
import { asUsage, UsageError } from "../usage-error.js";

interface ConfigureFlags {
  apiKeyStdin?: boolean;
  apiKeyEnv?: string;
  personaId?: string;
  baseUrl?: string;
  profile?: string;
  show?: boolean;
  clear?: boolean;
  json?: boolean;
}

const ENVIRONMENT_OVERRIDES = ["SERVICE_API_KEY", "SERVICE_PERSONA_ID", "SERVICE_BASE_URL"];

async function readKey(context: CliContext, flags: ConfigureFlags): Promise<string | undefined> {
  if (flags.apiKeyEnv !== undefined) {
    const name = flags.apiKeyEnv;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/u.test(name)) {
      throw new UsageError("--api-key-env takes the name of an environment variable, e.g. MY_KEY");
    }
    const value = context.env[name];
    if (present(value) === undefined) {
      throw new UsageError(`the environment variable ${name} is not set or is empty`);
    }
    return checkApiKey(value ?? "", `the environment variable ${name}`);
  }
  if (flags.apiKeyStdin === true) {
    const text =
      context.stdin.isTTY === true
        ? await readHiddenLine(context, "API key (input hidden): ")
        : await readStandardInput(context);
    return checkApiKey(text, "standard input");
  }
  return undefined;
}

function showProfile(context: CliContext, name: string, json: boolean): void {
  const file = profilesFilePath(context.env);
  const store = loadProfiles({ env: context.env });
  const values = store.profiles[name];
  if (values === undefined) {
    throw new ConfigurationError(
      `no profile named "${name}" yet; create it with: persona configure --profile ${name} --api-key-stdin --persona-id <uuid>`,
    );
  }
  const mode = (fs.statSync(file).mode & 0o777).toString(8).padStart(4, "0");
  const overriddenBy = ENVIRONMENT_OVERRIDES.filter((variable) => present(context.env[variable]));
  const shown = {
    profile: name,
    active: store.activeProfile === name,
    file,
    fileMode: mode,
    apiKey: values.apiKey === undefined ? null : maskApiKey(values.apiKey),
    personaId: values.personaId ?? null,
    baseUrl: values.baseUrl ?? null,
    overriddenBy,
  };
  if (json) {
    printJson(context, shown);
    return;
  }
  printLines(
    context,
    `Profile     ${name}${shown.active ? " (active)" : ""}`,
    `File        ${file} (mode ${mode})`,
    `API key     ${shown.apiKey ?? "(not set)"}`,
    `Persona ID  ${shown.personaId ?? "(not set)"}`,
    `Base URL    ${shown.baseUrl ?? `(not set: SERVICE_BASE_URL, else ${DEFAULT_BASE_URL})`}`,
    ...overriddenBy.map(
      (variable) => `Note: ${variable} is set in the environment and wins over this profile.`,
    ),
  );
}

/**
 * `persona configure` (docs/API.md §4.4): stores a key, persona ID and base URL in a
 * profile. The key comes only from standard input (`--api-key-stdin`, a
 * hidden prompt on a terminal) or an environment variable (`--api-key-env`),
 * never from an argument; `--show` prints the profile with the key masked;
 * `--clear` removes it.
 */
export function registerConfigureCommand(program: Command, context: CliContext): void {
  program
    .command("configure")
    .description("store an API key, persona ID and base URL in a profile")
    .option("--api-key-stdin", "read the API key from standard input (hidden prompt on a terminal)")
    .option("--api-key-env <VAR>", "read the API key from the environment variable VAR")
    .option("--persona-id <uuid>", "the persona ID handed over at onboarding")
    .option("--base-url <url>", "site origin of the service, without /api/v1")
    .option("--profile <name>", "profile to configure (default: the active one, else default)")
    .option("--show", "print the profile, key masked")
    .option("--clear", "remove the profile and its key")
    .option("--json", "print the outcome as JSON")
    .action(async (flags: ConfigureFlags) => {
      const store = loadProfiles({ env: context.env });
      const name = asUsage(() =>
        checkProfileName(flags.profile ?? store.activeProfile ?? DEFAULT_PROFILE_NAME),
      );
      const changing =
        flags.apiKeyStdin === true ||
        flags.apiKeyEnv !== undefined ||
        flags.personaId !== undefined ||
        flags.baseUrl !== undefined;
      if (flags.clear === true) {
        if (changing || flags.show === true) {
          throw new UsageError("--clear cannot be combined with other settings or --show");
        }
        if (!removeProfile(name, { env: context.env })) {
          throw new UsageError(`no profile named "${name}"; nothing was removed`);
        }
        if (flags.json === true) printJson(context, { removed: name });
        else printLines(context, `Removed profile "${name}" and its key.`);
        return;
      }
      if (!changing && flags.show !== true) {
        throw new UsageError(
          "nothing to configure: give --api-key-stdin or --api-key-env VAR, --persona-id <uuid>, --base-url <url>; --show prints the profile, --clear removes it",
        );
      }
      if (flags.apiKeyStdin === true && flags.apiKeyEnv !== undefined) {
        throw new UsageError("give the key one way: --api-key-stdin or --api-key-env, not both");
      }
      const update: ProfileUpdate = {};
      if (flags.personaId !== undefined) {
        const parsed = personaIdSchema.safeParse(flags.personaId.trim());
        if (!parsed.success) throw new UsageError("--persona-id must be a persona ID (a UUID)");
        update.personaId = parsed.data;
      }
      if (flags.baseUrl !== undefined) {
        const baseUrl = flags.baseUrl;
        update.baseUrl = asUsage(() => normalizeBaseUrl(baseUrl, "--base-url"));
      }
      const key = await readKey(context, flags);
      if (key !== undefined) update.apiKey = key;
      if (changing) {
        const saved = saveProfile(name, update, { env: context.env });
        if (flags.show !== true && flags.json !== true) {
          const active = loadProfiles({ env: context.env }).activeProfile === name;
          printLines(
            context,
            `Saved profile "${name}"${active ? " (active)" : ""} to ${profilesFilePath(context.env)}:`,
            `  key ${saved.apiKey === undefined ? "(not set)" : maskApiKey(saved.apiKey)}, persona ${saved.personaId ?? "(not set)"}${saved.baseUrl === undefined ? "" : `, base URL ${saved.baseUrl}`}`,
          );
          if (!active) printLines(context, `Make it the active profile with: persona use ${name}`);
          return;
        }
      }
      showProfile(context, name, flags.json === true);
    });
}

import os from "node:os";
import { personaIdSchema } from "@persona-reply/shared";
import type { Command } from "commander";
import { TimeoutError } from "../../errors/client-errors.js";
import { loginWithBrowser } from "../../login/browser-login.js";
import { parseCallbackPort } from "../../login/callback-server.js";
import { BrowserLoginError } from "../../login/login-errors.js";
import { loginMessages } from "../../login/login-messages.js";
import { createProgressLine } from "../../login/progress-line.js";
import {
  checkProfileName,
  DEFAULT_PROFILE_NAME,
  loadProfiles,
  type ProfileUpdate,
  saveProfile,
  setActiveProfile,
} from "../../profiles/profile-store.js";
import { profilesFilePath } from "../../profiles/profiles-file-path.js";
import { DEFAULT_BASE_URL, normalizeBaseUrl } from "../../settings/base-url.js";
import { present } from "../../settings/environment.js";
import type { CliContext } from "../cli-context.js";
import { printJson, printLines } from "../cli-context.js";
import { asUsage, UsageError } from "../usage-error.js";

interface LoginFlags {
  personaId?: string;
  name?: string;
  profile?: string;
  baseUrl?: string;
  /** Commander's `--no-browser`: false when given. */
  browser?: boolean;
  /** Seconds to wait for the browser, as typed. */
  timeout?: string;
  /** Port of the loopback callback, as typed. */
  callbackPort?: string;
  json?: boolean;
}

const CALLBACK_PORT_USAGE = "--callback-port takes a port number from 1 to 65535";

/** Longest wait `--timeout` accepts: one hour. */
const MAX_TIMEOUT_SECONDS = 3600;

/** The key's default name: says which tool on which computer holds it (shown in /keys). */
function defaultKeyName(): string {
  const host = os
    .hostname()
    .replace(/[^\w.-]/gu, "")
    .slice(0, 60);
  return host === "" ? "persona CLI" : `persona CLI on ${host}`;
}

function readCallbackPort(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const port = parseCallbackPort(value);
  if (port === undefined) throw new UsageError(CALLBACK_PORT_USAGE);
  return port;
}

function readTimeout(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_TIMEOUT_SECONDS) {
    throw new UsageError(`--timeout takes whole seconds from 1 to ${MAX_TIMEOUT_SECONDS}`);
  }
  return seconds * 1000;
}

/**
 * `persona login` (docs/API.md §4.4–4.5): gets a new API key through the browser —
 * sign in to the playground, approve — and stores it in a profile (file mode
 * 0600) without ever printing it; prints only the masked key. The profile
 * becomes the active one. `--no-browser` only prints the URL (headless use);
 * when a browser cannot be opened the tool says so and prints the URL again.
 * `--callback-port` fixes the loopback port the browser is sent back to (an
 * SSH port forward, a container's published port); by default any free one.
 */
export function registerLoginCommand(program: Command, context: CliContext): void {
  program
    .command("login")
    .description("get an API key by approving in the browser, stored in a profile")
    .option("--persona-id <uuid>", "the persona ID to store with the key")
    .option("--name <name>", "name of the new key, shown in the playground's key list")
    .option(
      "--profile <name>",
      "profile to store the key in (default: the active one, else default)",
    )
    .option("--base-url <url>", "site origin of the service, without /api/v1")
    .option("--no-browser", "do not open a browser; open the printed URL yourself")
    .option(
      "--callback-port <port>",
      "loopback port for the browser's answer, e.g. for an SSH port forward (default: any free port)",
    )
    .option("--timeout <seconds>", "how long to wait for the approval (default 600)")
    .option("--json", "print the outcome as JSON")
    .action(async (flags: LoginFlags) => {
      const store = loadProfiles({ env: context.env });
      const profile = asUsage(() =>
        checkProfileName(flags.profile ?? store.activeProfile ?? DEFAULT_PROFILE_NAME),
      );
      const update: ProfileUpdate = {};
      if (flags.personaId !== undefined) {
        const parsed = personaIdSchema.safeParse(flags.personaId.trim());
        if (!parsed.success) throw new UsageError("--persona-id must be a persona ID (a UUID)");
        update.personaId = parsed.data;
      }
      const fromEnvironment = present(context.env.SERVICE_BASE_URL);
      const fromProfile = store.profiles[profile]?.baseUrl;
      const rawBaseUrl = flags.baseUrl ?? fromEnvironment ?? fromProfile ?? DEFAULT_BASE_URL;
      const origin =
        flags.baseUrl !== undefined
          ? "--base-url"
          : fromEnvironment !== undefined
            ? "SERVICE_BASE_URL"
            : "the profile's base URL";
      const baseUrl = asUsage(() => normalizeBaseUrl(rawBaseUrl, origin));
      const name = flags.name?.trim() ?? defaultKeyName();
      if (name === "" || name.length > 100) {
        throw new UsageError("--name takes 1–100 characters");
      }
      const timeoutMs = readTimeout(flags.timeout);
      const callbackPort = readCallbackPort(flags.callbackPort);
      const openBrowser = flags.browser !== false;
      const progress = createProgressLine(context.stderr, "Waiting for approval in the browser");

      let result: Awaited<ReturnType<typeof loginWithBrowser>>;
      try {
        result = await loginWithBrowser({
          baseUrl,
          name,
          source: "cli",
          timeoutMs,
          callbackPort,
          openBrowser: openBrowser ? undefined : false,
          ...loginMessages(context.stderr, openBrowser),
          onProgress: (waited, total) => progress.update(waited, total),
        });
      } catch (error) {
        if (error instanceof BrowserLoginError && error.code === "timeout") {
          throw new TimeoutError(error.message, timeoutMs ?? 0, { cause: error });
        }
        if (error instanceof BrowserLoginError && error.code === "port_unavailable") {
          throw new UsageError(`--callback-port: ${error.message}`);
        }
        throw error;
      } finally {
        progress.finish();
      }

      update.apiKey = result.apiKey;
      update.baseUrl = baseUrl;
      const saved = saveProfile(profile, update, { env: context.env });
      setActiveProfile(profile, { env: context.env });
      const outcome = {
        profile,
        active: true,
        file: profilesFilePath(context.env),
        apiKey: result.maskedApiKey,
        personaId: saved.personaId ?? null,
        baseUrl,
      };
      if (flags.json === true) {
        printJson(context, outcome);
        return;
      }
      printLines(
        context,
        `Logged in: key ${result.maskedApiKey} saved to profile "${profile}" (active) in ${outcome.file}.`,
      );
      if (saved.personaId === undefined) {
        printLines(
          context,
          "No persona ID yet: add it with persona configure --persona-id <uuid>.",
        );
      }
    });
}

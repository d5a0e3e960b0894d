import os from "node:os";
import path from "node:path";
import { DEFAULT_BASE_URL, maskApiKey, normalizeBaseUrl } from "@persona-reply/client";
import {
  BrowserLoginError,
  createProgressLine,
  loginMessages,
  loginWithBrowser,
  type ProgressStream,
} from "@persona-reply/client/login";
import {
  destinationChange,
  type EnvDestination,
  inspectDestination,
} from "../env-file/env-destination.js";
import {
  existingApiKey,
  readEnvValues,
  type SetupValues,
  updateEnvContent,
} from "../env-file/env-file-content.js";
import { writeFileAtomically } from "../env-file/write-file-atomically.js";
import {
  ensureGitIgnored,
  findRepositoryRoot,
  type GitIgnoreOutcome,
} from "../gitignore/ensure-git-ignored.js";
import type { SetupArguments, SetupSource } from "./parse-setup-arguments.js";
import { SETUP_EXIT_CODES, SetupError } from "./setup-error.js";

/** Permission bits of the env file: readable and writable by its owner only. */
export const ENV_FILE_MODE = 0o600;

/** Where the setup reads and writes, and how it asks. Tests pass their own. */
export interface SetupIo {
  /** Receives the outcome: the masked key, the file, the .gitignore change. */
  stdout: { write(text: string): unknown };
  /** Receives the destination statement, the login URL and the waiting line. */
  stderr: ProgressStream;
  /** Folder a relative `--env-file` starts from. */
  cwd: string;
  /** Environment, for `SERVICE_BASE_URL` when neither the flag nor the file gives one. */
  env: NodeJS.ProcessEnv;
  /** Asks the user to confirm the destination; absent when no terminal can answer. */
  confirm?: ((question: string) => Promise<boolean>) | undefined;
  /** Ctrl-C: stops the wait for the browser; nothing is written afterwards. */
  signal?: AbortSignal | undefined;
  /** Opens the login URL; default the system's browser (ignored with `--no-browser`). */
  openBrowser?: ((url: string) => Promise<unknown>) | undefined;
}

/** How the consent page and the key's default name call each source. */
const SOURCE_NAMES: Record<SetupSource, string> = {
  claude_code: "Claude Code plugin",
  codex: "Codex plugin",
};

/** The key's default name: which plugin on which computer holds it (shown on /keys). */
function defaultKeyName(source: SetupSource): string {
  const host = os
    .hostname()
    .replace(/[^\w.-]/gu, "")
    .slice(0, 60);
  return host === "" ? SOURCE_NAMES[source] : `${SOURCE_NAMES[source]} on ${host}`;
}

/** A key-shaped placeholder used to check, before the login, that the file can be updated. */
const PLACEHOLDER_KEY = `prk_${"0".repeat(38)}`;

function baseUrlFor(
  argumentsGiven: SetupArguments,
  fileValues: Record<string, string>,
  io: SetupIo,
) {
  const candidates: Array<[string | undefined, string]> = [
    [argumentsGiven.baseUrl, "--base-url"],
    [fileValues.SERVICE_BASE_URL, "SERVICE_BASE_URL in the env file"],
    [io.env.SERVICE_BASE_URL, "SERVICE_BASE_URL in the environment"],
  ];
  for (const [value, origin] of candidates) {
    if (value !== undefined && value.trim() !== "") {
      try {
        return normalizeBaseUrl(value, origin);
      } catch (error) {
        throw new SetupError(
          SETUP_EXIT_CODES.usage,
          `${error instanceof Error ? error.message : String(error)}. Nothing was written.`,
        );
      }
    }
  }
  return DEFAULT_BASE_URL;
}

function valuesToWrite(argumentsGiven: SetupArguments, apiKey: string): SetupValues {
  const values: SetupValues = { SERVICE_API_KEY: apiKey };
  if (argumentsGiven.personaId !== undefined) values.SERVICE_PERSONA_ID = argumentsGiven.personaId;
  if (argumentsGiven.baseUrl !== undefined) values.SERVICE_BASE_URL = argumentsGiven.baseUrl;
  return values;
}

/** Refuses a destination that holds a key already, unless `--force`. */
function refuseExistingKey(destination: EnvDestination, force: boolean, afterLogin?: string): void {
  const existing =
    destination.content === undefined ? undefined : existingApiKey(destination.content);
  if (existing === undefined || force) return;
  const unsaved =
    afterLogin === undefined
      ? ""
      : ` It appeared while waiting for the browser: the new key ${afterLogin} was created but not saved; revoke it on the playground's /keys page.`;
  throw new SetupError(
    SETUP_EXIT_CODES.refused,
    `${destination.path} already holds a SERVICE_API_KEY (${maskApiKey(existing)}); nothing was changed.${unsaved} To replace it, run the setup again with --force (the old key stays valid until you revoke it on the playground's /keys page).`,
  );
}

function loginFailure(error: unknown, timeoutMs: number | undefined): SetupError {
  if (!(error instanceof BrowserLoginError)) {
    const message = error instanceof Error ? error.message : String(error);
    return new SetupError(
      SETUP_EXIT_CODES.loginFailed,
      `The browser login failed: ${message}. Nothing was written.`,
      { cause: error },
    );
  }
  switch (error.code) {
    case "port_unavailable":
      return new SetupError(
        SETUP_EXIT_CODES.usage,
        `--callback-port: ${error.message}. Nothing was written.`,
        { cause: error },
      );
    case "timeout":
      return new SetupError(
        SETUP_EXIT_CODES.timeout,
        `No approval arrived from the browser within ${Math.round((timeoutMs ?? 600_000) / 1000)} s; nothing was written. Run the setup again and approve in the browser.`,
        { cause: error },
      );
    case "denied":
      return new SetupError(
        SETUP_EXIT_CODES.loginFailed,
        "The login was denied in the browser: no key was created and nothing was written.",
        { cause: error },
      );
    case "aborted":
      return new SetupError(SETUP_EXIT_CODES.cancelled, "Cancelled: nothing was written.", {
        cause: error,
      });
    default:
      return new SetupError(
        SETUP_EXIT_CODES.loginFailed,
        `The browser login failed: ${error.message}. Nothing was written.`,
        { cause: error },
      );
  }
}

/** Where the key goes, as told to the user: the real file first, and the link it is reached through. */
function describeDestination(destination: EnvDestination): string {
  if (destination.link) {
    return `${destination.target} (the file the symbolic link ${destination.path} points to)`;
  }
  if (destination.target !== destination.path) {
    return `${destination.target} (${destination.path}, through linked folders)`;
  }
  return destination.path;
}

/**
 * Refuses to write when the destination is no longer the file the user
 * confirmed (see {@link destinationChange}).
 */
function refuseChangedDestination(
  confirmed: EnvDestination,
  current: EnvDestination,
  unsaved: string,
): void {
  const change = destinationChange(confirmed, current);
  if (change === undefined) return;
  throw new SetupError(
    SETUP_EXIT_CODES.refused,
    `${confirmed.path} changed while the browser was open: ${change}. Nothing was written. ${unsaved} Run the setup again to confirm the new destination.`,
  );
}

/** A line when the key's file lies outside the repository the link is in: that repository's .gitignore cannot cover it. */
function outsideRepositoryLine(destination: EnvDestination): string | undefined {
  if (destination.target === destination.path) return undefined;
  const linkRepository = findRepositoryRoot(path.dirname(destination.path));
  if (linkRepository === undefined) return undefined;
  if (findRepositoryRoot(path.dirname(destination.target)) === linkRepository) return undefined;
  return `The key is in ${destination.target}, outside the repository ${linkRepository} that holds ${destination.path}.`;
}

function gitIgnoreLine(outcome: GitIgnoreOutcome, file: string): string {
  switch (outcome.status) {
    case "outside-repository":
      return `${file} is not inside a git repository, so no .gitignore was changed.`;
    case "already-ignored":
      return `git already ignores ${file}.`;
    case "added":
      return outcome.stillIncluded
        ? `Added ${outcome.entry} to ${outcome.gitignore}, but a rule in a deeper .gitignore still includes the file: check it before committing.`
        : `Added ${outcome.entry} to ${outcome.gitignore}, so git ignores the file.`;
  }
}

/**
 * The key setup of the coding-agent plugin (docs/API.md §4.4 last paragraph, §4.5,
 * §5.3): states the absolute destination first; refuses a file that already
 * holds a key unless `--force`; asks for confirmation in a terminal unless
 * `--yes`; gets a new key by the browser login of `@persona-reply/client/login`
 * (sign in, approve on the consent page); adds the file to `.gitignore`
 * inside a git repository; writes `SERVICE_API_KEY` (and
 * `SERVICE_PERSONA_ID`, `SERVICE_BASE_URL` when given) into the env file with
 * mode 0600, keeping every other line, atomically. Prints only the masked key.
 * A timeout, a denial or Ctrl-C leave the file as it was.
 *
 * @returns the exit code, {@link SETUP_EXIT_CODES}.saved
 * @throws {SetupError} with the exit code and a message for every way it stops
 *   without writing the key
 *
 * @example
 * await runSetup(
 *   { envFile: ".env", source: "claude_code", yes: true, force: false, openBrowser: true },
 *   { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd(), env: process.env },
 * );
 */
export async function runSetup(argumentsGiven: SetupArguments, io: SetupIo): Promise<number> {
  let destination: EnvDestination;
  try {
    destination = inspectDestination(argumentsGiven.envFile, io.cwd);
  } catch (error) {
    throw new SetupError(
      SETUP_EXIT_CODES.usage,
      `${error instanceof Error ? error.message : String(error)}. Nothing was written.`,
    );
  }
  const written = ["SERVICE_API_KEY"];
  if (argumentsGiven.personaId !== undefined) written.push("SERVICE_PERSONA_ID");
  if (argumentsGiven.baseUrl !== undefined) written.push("SERVICE_BASE_URL");
  io.stderr.write(
    `Persona Reply setup: the new API key will be written to ${describeDestination(destination)} as ${written.join(", ")}${destination.content === undefined ? " (a new file, mode 0600)" : " (other lines kept)"}.\n`,
  );

  refuseExistingKey(destination, argumentsGiven.force);
  try {
    updateEnvContent(destination.content, valuesToWrite(argumentsGiven, PLACEHOLDER_KEY));
  } catch (error) {
    throw new SetupError(
      SETUP_EXIT_CODES.usage,
      error instanceof Error ? error.message : String(error),
    );
  }
  const fileValues = readEnvValues(destination.content ?? "");
  const baseUrl = baseUrlFor(argumentsGiven, fileValues, io);

  if (!argumentsGiven.yes) {
    if (io.confirm === undefined) {
      throw new SetupError(
        SETUP_EXIT_CODES.refused,
        "Not confirmed: check the destination above, then run again with --yes (in a coding agent, once the user has confirmed it in the conversation). Nothing was written.",
      );
    }
    const confirmed = await io.confirm(
      `Write the key to ${describeDestination(destination)}? [y/N] `,
    );
    if (!confirmed) {
      throw new SetupError(SETUP_EXIT_CODES.refused, "Not confirmed: nothing was written.");
    }
  }

  const progress = createProgressLine(io.stderr, "Waiting for approval in the browser");
  let login: Awaited<ReturnType<typeof loginWithBrowser>>;
  try {
    login = await loginWithBrowser({
      baseUrl,
      name: argumentsGiven.name ?? defaultKeyName(argumentsGiven.source),
      source: argumentsGiven.source,
      timeoutMs: argumentsGiven.timeoutMs,
      callbackPort: argumentsGiven.callbackPort,
      signal: io.signal,
      openBrowser: argumentsGiven.openBrowser ? io.openBrowser : false,
      ...loginMessages(io.stderr, argumentsGiven.openBrowser),
      onProgress: (waited, total) => progress.update(waited, total),
    });
  } catch (error) {
    throw loginFailure(error, argumentsGiven.timeoutMs);
  } finally {
    progress.finish();
  }
  const masked = login.maskedApiKey;
  const unsaved = `The new key ${masked} was created but not saved; revoke it on the playground's /keys page.`;
  if (io.signal?.aborted === true) {
    throw new SetupError(SETUP_EXIT_CODES.cancelled, `Cancelled: nothing was written. ${unsaved}`);
  }

  // The file may have changed while the browser was open: read it again.
  const confirmedDestination = destination;
  let updated: string;
  try {
    destination = inspectDestination(destination.path, io.cwd);
    refuseChangedDestination(confirmedDestination, destination, unsaved);
    refuseExistingKey(destination, argumentsGiven.force, masked);
    updated = updateEnvContent(destination.content, valuesToWrite(argumentsGiven, login.apiKey));
  } catch (error) {
    if (error instanceof SetupError) throw error;
    throw new SetupError(
      SETUP_EXIT_CODES.usage,
      `${error instanceof Error ? error.message : String(error)} ${unsaved}`,
    );
  }

  let ignored: GitIgnoreOutcome;
  try {
    // Before the key lands on disk, so it is never an untracked, unignored file; the file written, not a link to it.
    ignored = ensureGitIgnored(destination.target);
    // Last look just before writing. The write itself makes a new file beside the target and
    // renames it over the target's name, which replaces (never follows) a link put there since.
    refuseChangedDestination(
      confirmedDestination,
      inspectDestination(destination.path, io.cwd),
      unsaved,
    );
    writeFileAtomically(destination.target, updated, { mode: ENV_FILE_MODE });
  } catch (error) {
    if (error instanceof SetupError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new SetupError(
      SETUP_EXIT_CODES.usage,
      `Could not write ${destination.path} or its .gitignore (${code}); the env file is unchanged. ${unsaved}`,
    );
  }

  const lines = [
    `Saved the new API key ${masked} to ${describeDestination(destination)} as ${written.join(", ")} (file mode 0600).`,
    gitIgnoreLine(ignored, destination.target),
  ];
  const outside = outsideRepositoryLine(destination);
  if (outside !== undefined) lines.splice(1, 0, outside);
  const personaId = argumentsGiven.personaId ?? fileValues.SERVICE_PERSONA_ID;
  if (personaId === undefined || personaId.trim() === "") {
    lines.push(
      `No SERVICE_PERSONA_ID in ${destination.path} yet: add the persona ID you were given at onboarding (run the setup with --persona-id, or add SERVICE_PERSONA_ID=<uuid> to the file).`,
    );
  }
  lines.push(
    "persona-mcp reads its env file (.env in its working folder, or the file its --dotenv flag names) at every tool call, so no restart is needed.",
  );
  io.stdout.write(`${lines.join("\n")}\n`);
  return SETUP_EXIT_CODES.saved;
}

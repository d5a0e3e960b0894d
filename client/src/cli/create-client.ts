import { PersonaClient } from "../client/persona-client.js";
import { ConfigurationError } from "../errors/client-errors.js";
import { resolveSettings } from "../profiles/resolve-settings.js";
import type { CliContext } from "./cli-context.js";
import { UsageError } from "./usage-error.js";

/** Flags shared by the commands that call the service. */
export interface RequestFlags {
  profile?: string;
  personaId?: string;
  baseUrl?: string;
  /** Seconds allowed per attempt, as typed. */
  timeout?: string;
  json?: boolean;
}

/**
 * Builds the client from flags, environment and profile (in that order of
 * precedence, see `resolveSettings`).
 *
 * @throws {ConfigurationError} when no key or persona ID is found, naming the ways to give one
 * @throws {UsageError} for an unreadable `--timeout`
 */
export function createClient(context: CliContext, flags: RequestFlags): PersonaClient {
  const settings = resolveSettings({
    flags: { profile: flags.profile, personaId: flags.personaId, baseUrl: flags.baseUrl },
    env: context.env,
  });
  if (settings.apiKey === undefined) {
    throw new ConfigurationError(
      "no API key: run `persona configure --api-key-stdin` (or `--api-key-env VAR`), or set SERVICE_API_KEY",
    );
  }
  if (settings.personaId === undefined) {
    throw new ConfigurationError(
      "no persona ID: run `persona configure --persona-id <uuid>`, or set SERVICE_PERSONA_ID",
    );
  }
  let timeoutMs: number | undefined;
  if (flags.timeout !== undefined) {
    const seconds = Number(flags.timeout);
    if (!Number.isFinite(seconds) || seconds <= 0) {
      throw new UsageError("--timeout must be a positive number of seconds");
    }
    timeoutMs = seconds * 1000;
  }
  return new PersonaClient({
    apiKey: settings.apiKey,
    personaId: settings.personaId,
    baseUrl: settings.baseUrl,
    timeoutMs,
  });
}

import { PersonaClient } from "@persona-reply/client";
import OpenAI from "openai";
import type { ExampleConfig } from "./config.js";
import { configError } from "./errors.js";

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/iu;

/** What one route call needs to reach the service. */
export interface ServiceTarget {
  /** The persona of this call: the request's `personaId`, else `SERVICE_PERSONA_ID`. */
  personaId: string;
  /** Site origin, for naming the service in errors. */
  origin: string;
  /** The official `openai` client with `baseURL` = origin + `/api/v1` (docs/API.md §4.3, §5.4). */
  completions(): OpenAI;
  /** The client library for the native endpoints, with `baseUrl` = the site origin (docs/API.md §4.4). */
  persona(): PersonaClient;
}

/**
 * Resolves the service target of one call, checking the configuration
 * first so a missing variable is reported by name (never by value).
 */
export type ResolveTarget = (personaIdOverride: string | undefined) => ServiceTarget;

/**
 * Builds the resolver the routes use. The `openai` client is made once and
 * shared; a `PersonaClient` is made per call because its persona is fixed
 * at construction and a request may name another.
 *
 * @throws {ExampleAppError} (from the returned function) a `config` error
 *   naming `SERVICE_API_KEY`, `SERVICE_PERSONA_ID` or `SERVICE_BASE_URL`
 */
export function createTargetResolver(config: ExampleConfig): ResolveTarget {
  let completionsClient: OpenAI | undefined;
  return (personaIdOverride) => {
    const { apiKey, service } = config;
    if (apiKey === undefined) {
      throw configError(
        "SERVICE_API_KEY is not set: put the service's API key in example-app/.env (see .env.example), or run `npm start` at the repository root once so the service writes it to .env, then restart the example server",
      );
    }
    if (!service.ok) throw configError(service.problem);
    const personaId = personaIdOverride ?? config.personaId;
    if (personaId === undefined) {
      throw configError(
        "SERVICE_PERSONA_ID is not set: put the persona ID in example-app/.env (see .env.example) or send personaId with the request",
      );
    }
    if (!UUID_PATTERN.test(personaId)) {
      throw configError("SERVICE_PERSONA_ID is not a persona ID (a UUID)");
    }
    return {
      personaId,
      origin: service.origin,
      completions() {
        completionsClient ??= new OpenAI({
          apiKey,
          baseURL: service.completionsBaseUrl,
          // Not read from OPENAI_* variables of the environment: this client
          // talks to Persona Reply only.
          organization: null,
          project: null,
          timeout: config.timeoutMs,
          maxRetries: config.maxRetries,
        });
        return completionsClient;
      },
      persona() {
        return new PersonaClient({
          apiKey,
          personaId,
          baseUrl: service.origin,
          timeoutMs: config.timeoutMs,
          maxRetries: config.maxRetries,
        });
      },
    };
  };
}

import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describeError, type PersonaError, redactSecrets } from "@persona-reply/client";
import type { ActiveSettings } from "../settings/client-source.js";
import {
  replaceKeyInstructions,
  SetupRequiredError,
  setupInstructions,
} from "../settings/setup-instructions.js";

/** A tool's arguments break a rule the input schema cannot express (e.g. both `messages` and `message`). */
export class ToolInputError extends Error {
  override name = "ToolInputError";
}

/** What a failed tool call is about, for the wording of its error. */
export interface ToolErrorContext {
  /** The tool that failed. */
  tool: "generate" | "personify";
  /** The settings in use, when the failure came after they were resolved. */
  settings?: ActiveSettings | undefined;
  /** The env file the server reads, named in setup instructions. */
  envFile: string;
  /** Current time in Unix milliseconds (for "retry at"); default `Date.now()`. */
  now?: number;
}

/** A tool error: the result to send, and a one-line summary for the log. */
export interface DescribedToolError {
  /** `{ isError: true, content: [{ type: "text", text }] }`. */
  result: CallToolResult;
  /** One line for the log (no key, as everything here). */
  summary: string;
}

/** A message as a sentence: trimmed, with a full stop unless it already ends with one. */
function said(message: string): string {
  const trimmed = message.trim();
  return /[.!?]$/u.test(trimmed) ? trimmed : `${trimmed}.`;
}

function statusText(error: PersonaError): string {
  const facts = [`HTTP ${error.status}`];
  if (error.type !== undefined) facts.push(error.type);
  return facts.join(", ");
}

function retryWords(seconds: number, now: number): string {
  const whole = Math.max(1, Math.ceil(seconds));
  const at = new Date(now + whole * 1000).toISOString().replace(/\.\d{3}Z$/u, "Z");
  return `${whole} second${whole === 1 ? "" : "s"} (at ${at})`;
}

/** How to set the persona ID, for a persona the service does not know or a malformed ID. */
const SET_PERSONA_ID =
  "`persona configure --persona-id <persona UUID>` in the user's terminal, or SERVICE_PERSONA_ID in this server's environment or env file. Retrying will not help.";

/** " The persona ID in use is …, from …." when the settings are known. */
function personaIdWords(settings: ActiveSettings | undefined): string {
  return settings === undefined
    ? ""
    : ` The persona ID in use is ${settings.personaId}, from ${settings.origins.personaId}.`;
}

/** The message and what to do about it, by the client's description of the error. */
function explain(error: unknown, context: ToolErrorContext): { text: string; kind: string } {
  const settings = context.settings;
  const keyWords =
    settings === undefined
      ? ""
      : ` The key in use is ${settings.maskedApiKey}, from ${settings.origins.apiKey}.`;
  if (error instanceof SetupRequiredError) return { text: error.message, kind: "not configured" };
  if (error instanceof ToolInputError) {
    return { text: `Invalid arguments: ${error.message}`, kind: "invalid arguments" };
  }
  const description = describeError(error);
  const persona = description.personaError;
  if (persona === undefined) {
    const message = error instanceof Error ? error.message : String(error);
    return { text: `persona-mcp failed unexpectedly: ${message}`, kind: "unexpected" };
  }
  const message = said(persona.message);
  switch (description.kind) {
    case "configuration":
      return {
        text: [
          `Persona Reply is misconfigured: ${message}`,
          "Fix the setting where it comes from (the server's flags, its environment, the env file, or `persona configure` in the user's terminal), then call again.",
        ].join("\n"),
        kind: "misconfigured",
      };
    case "authentication": {
      // What to change depends on where the key came from: a new key in the
      // env file does nothing while the environment still sets one.
      const steps =
        settings === undefined
          ? [
              "Ask the user to set up a valid key, then call again:",
              ...setupInstructions(context.envFile).map((step) => `- ${step}`),
            ]
          : replaceKeyInstructions(settings.apiKeySource, context.envFile);
      return {
        text: [
          `The Persona Reply service refused the API key (${statusText(persona)}): ${message}${keyWords}`,
          ...steps,
        ].join("\n"),
        kind: "401",
      };
    }
    case "payment_required":
      return {
        text: [
          `The Persona Reply service asked for payment (${statusText(persona)}): ${message}`,
          "This persona takes payment from callers without a key; set up an API key instead:",
          ...setupInstructions(context.envFile).map((step) => `- ${step}`),
        ].join("\n"),
        kind: "402",
      };
    case "permission": {
      const personifyDenied = context.tool === "personify" && /personify/iu.test(persona.message);
      const advice = personifyDenied
        ? `This persona (${settings?.personaId ?? "?"}) has no /personify access. Use the generate tool instead, or ask the Persona Reply operator to grant personify access. Retrying will not help.`
        : "The key's account is not active (or not allowed to do this). Ask the Persona Reply operator; retrying will not help.";
      return {
        text: `The Persona Reply service refused this call (${statusText(persona)}): ${message}\n${advice}`,
        kind: "403",
      };
    }
    case "not_found":
      return {
        text: [
          `The Persona Reply service does not know this persona (${statusText(persona)}): ${message}${personaIdWords(settings)}`,
          `Check the persona ID the operator handed over at onboarding and set it: ${SET_PERSONA_ID}`,
        ].join("\n"),
        kind: "404",
      };
    case "invalid_request":
      // The service names the field and the rule it broke; say that only. The
      // persona ID is no argument of the tools but a setting of this server.
      if (/^personaId\b/u.test(persona.message)) {
        return {
          text: [
            `The Persona Reply service refused the configured persona ID (${statusText(persona)}): ${message}${personaIdWords(settings)}`,
            `Set it to the persona UUID the operator handed over at onboarding: ${SET_PERSONA_ID}`,
          ].join("\n"),
          kind: String(persona.status),
        };
      }
      return {
        text: `The Persona Reply service rejected the arguments (${statusText(persona)}): ${message} Correct them and call again.`,
        kind: String(persona.status),
      };
    case "balance_exhausted":
      return {
        text: `The Persona Reply account's balance is used up (${statusText(persona)}): ${message}\nRetrying will not help until the operator tops the account up; tell the user.`,
        kind: "429 balance",
      };
    case "rate_limited": {
      const now = context.now ?? Date.now();
      const when =
        description.retryAfter === undefined
          ? "The service gave no time to retry: wait at least a minute before calling again."
          : `Retry after ${retryWords(description.retryAfter, now)}; calls before then are refused too.`;
      return {
        text: `The Persona Reply rate limit was reached (${statusText(persona)}): ${message}\n${when}`,
        kind: "429",
      };
    }
    case "server":
      return {
        text: `The Persona Reply service failed (${statusText(persona)}): ${message}\nTry again in a little while; if it keeps failing, tell the user and quote the request ID.`,
        kind: String(persona.status),
      };
    case "timeout":
      return {
        text: `The Persona Reply service did not answer in time: ${message}\nTry again; a long history takes longer, so shorten it if this repeats.`,
        kind: "timeout",
      };
    case "connection": {
      const where =
        settings === undefined ? "" : ` The base URL is from ${settings.origins.baseUrl}.`;
      return {
        text: `Could not reach the Persona Reply service: ${message}${where}\nCheck that the service is up and that SERVICE_BASE_URL is its origin (without /api/v1), then call again.`,
        kind: "connection",
      };
    }
    case "aborted":
      return { text: "The call was cancelled before the service answered.", kind: "cancelled" };
    default: {
      const status = persona.status === undefined ? "" : ` (${statusText(persona)})`;
      return {
        text: `The Persona Reply call failed${status}: ${message}`,
        kind: String(persona.status ?? "failure"),
      };
    }
  }
}

/**
 * Turns any failure of a tool call into a tool result with `isError: true`
 * and a message a person (or the model relaying it) can act on: the
 * service's own message and status, what to do (set up a key, fix the
 * persona ID, use `generate` instead of `personify`, when to retry after a
 * 429), and the request ID when there is one. Every text is passed through
 * the client's secret masking with the key in use, so a key never appears.
 *
 * @example
 * try {
 *   return await runTool();
 * } catch (error) {
 *   return describeToolError(error, { tool: "generate", envFile }).result;
 * }
 */
export function describeToolError(error: unknown, context: ToolErrorContext): DescribedToolError {
  const { text, kind } = explain(error, context);
  const requestId = describeError(error).personaError?.requestId;
  const full = requestId === undefined ? text : `${text}\nRequest ID: ${requestId}`;
  const secrets = context.settings?.secrets ?? [];
  const safe = redactSecrets(full, secrets);
  const firstLine = safe.split("\n", 1)[0] ?? "";
  return {
    result: { isError: true, content: [{ type: "text", text: safe }] },
    summary: `${context.tool} failed (${kind}): ${firstLine}${requestId === undefined ? "" : ` [request ${requestId}]`}`,
  };
}

import {
  ConfigurationError,
  ConnectionError,
  PersonaClient,
  PersonaError,
  RequestAbortedError,
} from "@persona-reply/client";
import { describe, expect, it } from "vitest";
import type { ActiveSettings } from "../settings/client-source.js";
import { SetupRequiredError } from "../settings/setup-instructions.js";
import { describeToolError, ToolInputError } from "./tool-error.js";

// The service's bodies are written here as the service writes them (plain
// text for 4xx, JSON for 429/5xx); the integration tests get them from the
// real service.

const KEY = `prk_${"Mn4".repeat(13)}`;
const PERSONA = "3bee94bc-c62f-4582-9fa6-2c47d62ac431";
const ENV_FILE = "/work/app/.env";
const NOW = Date.parse("2026-11-21T10:00:00Z");

const settings: ActiveSettings = {
  client: new PersonaClient({ apiKey: KEY, personaId: PERSONA, baseUrl: "http://127.0.0.1:9" }),
  personaId: PERSONA,
  maskedApiKey: `prk_…${KEY.slice(-4)}`,
  secrets: [KEY],
  origins: {
    apiKey: `SERVICE_API_KEY in ${ENV_FILE}`,
    personaId: "SERVICE_PERSONA_ID in the environment",
    baseUrl: "SERVICE_BASE_URL in the environment",
  },
  apiKeySource: "env file",
};

function textResponse(status: number, body: string, headers: Record<string, string> = {}) {
  return PersonaError.fromResponse({
    status,
    headers: { "content-type": "text/plain; charset=utf-8", "x-request-id": "req-1", ...headers },
    body,
  });
}

function jsonResponse(status: number, type: string, message: string, headers = {}) {
  return PersonaError.fromResponse({
    status,
    headers: { "content-type": "application/json", "x-request-id": "req-2", ...headers },
    body: JSON.stringify({ error: { type, message } }),
  });
}

function describe_(error: unknown, tool: "generate" | "personify" = "generate") {
  const described = describeToolError(error, { tool, settings, envFile: ENV_FILE, now: NOW });
  expect(described.result.isError).toBe(true);
  const first = described.result.content[0];
  const text = first?.type === "text" ? first.text : "";
  expect(text).not.toContain(KEY);
  expect(described.summary).not.toContain(KEY);
  return { text, summary: described.summary };
}

describe("describeToolError", () => {
  it("turns 401 into the server's message, the masked key's origin and the setup steps", () => {
    const { text, summary } = describe_(textResponse(401, `invalid API key: unknown key ${KEY}`));
    expect(text).toMatch(
      /^The Persona Reply service refused the API key \(HTTP 401\): invalid API key: unknown key prk_…/u,
    );
    expect(text).toContain(
      `The key in use is prk_…${KEY.slice(-4)}, from SERVICE_API_KEY in ${ENV_FILE}.`,
    );
    // From the env file: replace it there.
    expect(text).toContain(`The key comes from SERVICE_API_KEY in ${ENV_FILE}`);
    expect(text).toContain("plugin's setup command (`/persona:setup` in Claude Code)");
    expect(text).toContain("Never ask the user to paste the key into the chat.");
    expect(text).toMatch(/\nRequest ID: req-1$/u);
    expect(summary).toMatch(/^generate failed \(401\): /u);
  });

  it("after a 401, names where the key came from and what to change there", () => {
    const refused = textResponse(401, "invalid API key");
    const from = (apiKeySource: ActiveSettings["apiKeySource"], apiKey: string) =>
      describeToolError(refused, {
        tool: "generate",
        settings: { ...settings, apiKeySource, origins: { ...settings.origins, apiKey } },
        envFile: ENV_FILE,
      }).result.content[0];
    const environment = from("environment", "SERVICE_API_KEY in the environment");
    const text = environment?.type === "text" ? environment.text : "";
    expect(text).toContain("from SERVICE_API_KEY in the environment.");
    expect(text).toContain(
      `The key is set in this MCP server's own environment (SERVICE_API_KEY), which wins over ${ENV_FILE}`,
    );
    expect(text).toContain("would not be used");
    expect(text).toContain("change SERVICE_API_KEY where this server is registered");
    // It does not send the user to write a key the environment would hide.
    expect(text).not.toContain("persona configure --api-key-stdin");
    expect(text).not.toMatch(/^- In the coding agent: run/mu);

    const profile = from("profile", `the persona tool's profile "default" (/home/x/profiles.json)`);
    const profileText = profile?.type === "text" ? profile.text : "";
    expect(profileText).toContain("The key comes from the persona tool's profile.");
    expect(profileText).toContain("`persona login`");
  });

  it("says a persona without /personify access should use generate (403)", () => {
    const { text } = describe_(textResponse(403, "persona has no /personify access"), "personify");
    expect(text).toContain("(HTTP 403): persona has no /personify access.");
    expect(text).toContain(
      `This persona (${PERSONA}) has no /personify access. Use the generate tool instead`,
    );
  });

  it("points an inactive account at the operator (403)", () => {
    const { text } = describe_(
      textResponse(403, "API key not associated with an active billing account"),
    );
    expect(text).toContain("The key's account is not active");
  });

  it("names the persona ID in use and where it came from (404)", () => {
    const { text } = describe_(textResponse(404, `unknown personaId: ${PERSONA}`));
    expect(text).toContain(`(HTTP 404): unknown personaId: ${PERSONA}.`);
    expect(text).toContain(
      `The persona ID in use is ${PERSONA}, from SERVICE_PERSONA_ID in the environment.`,
    );
  });

  it("says when to retry after a rate limit (429 with Retry-After)", () => {
    const { text } = describe_(
      jsonResponse(
        429,
        "rate_limited",
        "rate limit reached (1 requests per minute); retry after 42 seconds",
        {
          "retry-after": "42",
        },
      ),
    );
    expect(text).toContain(
      "(HTTP 429, rate_limited): rate limit reached (1 requests per minute); retry after 42 seconds.",
    );
    expect(text).toContain("Retry after 42 seconds (at 2026-11-21T10:00:42Z)");
  });

  it("says to wait a minute when a 429 gives no time, and not to retry an empty balance", () => {
    expect(describe_(jsonResponse(429, "rate_limited", "slow down")).text).toContain(
      "wait at least a minute",
    );
    const { text } = describe_(
      jsonResponse(
        429,
        "insufficient_balance",
        "insufficient balance: ask the operator to top it up",
      ),
    );
    expect(text).toContain("balance is used up");
    expect(text).toContain("Retrying will not help");
  });

  it("passes 400/422 messages on saying only what is wrong", () => {
    const { text } = describe_(
      textResponse(422, "messages[0].role: the last message must have role user, not assistant"),
    );
    expect(text).toBe(
      "The Persona Reply service rejected the arguments (HTTP 422): messages[0].role: the last message must have role user, not assistant. Correct them and call again.\nRequest ID: req-1",
    );
    const raw = describe_(textResponse(400, "raw: must be non-empty text"), "personify").text;
    expect(raw.match(/must be non-empty text/gu)).toHaveLength(1);
  });

  it("says a malformed persona ID is a setting of this server, not an argument (422)", () => {
    const { text } = describe_(textResponse(422, "personaId: must be a persona ID (a UUID)"));
    expect(text).toMatch(
      /^The Persona Reply service refused the configured persona ID \(HTTP 422\): personaId: must be a persona ID \(a UUID\)\. The persona ID in use is \S+, from SERVICE_PERSONA_ID in the environment\./u,
    );
    expect(text).toContain("persona configure --persona-id <persona UUID>");
    expect(text).not.toContain("history");
    expect(text).not.toContain("Correct them");
  });

  it("reports a 5xx with its type and request ID", () => {
    const { text } = describe_(jsonResponse(502, "upstream_error", "the model provider failed"));
    expect(text).toMatch(
      /^The Persona Reply service failed \(HTTP 502, upstream_error\): the model provider failed\./u,
    );
    expect(text).toMatch(/Request ID: req-2$/u);
  });

  it("explains setup, configuration, connection, cancellation and argument problems", () => {
    const setup = new SetupRequiredError(
      "Persona Reply is not set up for this MCP server: no API key found.",
      ["apiKey"],
    );
    expect(describe_(setup).text).toBe(setup.message);
    expect(
      describe_(new ConfigurationError("SERVICE_BASE_URL must not end with /api/v1")).text,
    ).toMatch(/^Persona Reply is misconfigured: SERVICE_BASE_URL must not end with \/api\/v1\./u);
    expect(
      describe_(new ConnectionError("POST /api/v1/generate: could not reach x")).text,
    ).toContain("The base URL is from SERVICE_BASE_URL in the environment.");
    expect(describe_(new RequestAbortedError("aborted")).text).toBe(
      "The call was cancelled before the service answered.",
    );
    expect(describe_(new ToolInputError("give either")).text).toBe(
      "Invalid arguments: give either",
    );
    expect(describe_(new Error(`boom ${KEY}`)).text).toMatch(
      /^persona-mcp failed unexpectedly: boom prk_…/u,
    );
  });
});

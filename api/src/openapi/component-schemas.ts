import {
  completionChoiceSchema,
  completionErrorBodySchema,
  completionRequestSchema,
  completionResponseSchema,
  generateRequestSchema,
  generateResponseSchema,
  jsonErrorBodySchema,
  LIMITS,
  messageSchema,
  modelListSchema,
  modelSchema,
  personifyRequestSchema,
  personifyResponseSchema,
  rateLimitSchema,
  replyResultSchema,
  textPartSchema,
} from "@persona-reply/shared";
import type { SchemaObject } from "openapi3-ts/oas31";
import { z } from "zod";
import { readinessSchema } from "../health/readiness.js";
import { paymentRequiredSchema } from "./x402-schema.js";

/** Body of `GET /healthz`. */
export const healthResponseSchema = z.object({ status: z.literal("ok") });

interface ComponentMeta {
  id: string;
  description: string;
  /** Descriptions of the object's properties, by property name (spec wording). */
  properties?: Record<string, string>;
}

const maxText = LIMITS.maxTextLength;

/** Request bodies, converted as a client writes them (`io: "input"`). */
const REQUEST_COMPONENTS: Array<[z.ZodType, ComponentMeta]> = [
  [
    generateRequestSchema,
    {
      id: "GenerateRequest",
      description:
        "Body of POST /api/v1/generate. Rules beyond the schema: the last message has role `user` and non-empty content (an assistant message cannot be last); system and developer messages are text-only context before the final user message. Unknown fields are ignored.",
      properties: {
        personaId: "Persona ID (a UUID issued at onboarding).",
        messages: `Full history to use as context: at least 1, at most ${LIMITS.maxMessages} messages.`,
        includeVariations:
          "Default false. When true, alternative replies are returned in `result.replyChoices`.",
      },
    },
  ],
  [
    personifyRequestSchema,
    {
      id: "PersonifyRequest",
      description: "Body of POST /api/v1/personify. The persona must have /personify access.",
      properties: {
        personaId: "Persona ID of a persona with /personify access.",
        raw: `Non-empty source text to rewrite (not only whitespace; at most ${maxText} characters). It is treated as text to rewrite, never as instructions.`,
      },
    },
  ],
  [
    completionRequestSchema,
    {
      id: "CompletionRequest",
      description:
        "Body of POST /api/v1/completions. Send exactly one of `prompt` and `messages`. With `messages`, the final message is a user message with non-empty content. Accepted but ignored: temperature, top_p, presence_penalty, frequency_penalty, best_of, seed, suffix, user (and any other unknown field). Output text is normalized, then `stop` is applied, then `echo` prepends the prompt. The response has no `usage`.",
      properties: {
        model: "The persona ID (a UUID). A missing model is an `invalid_request_error`.",
        messages: `Full history (roles user, assistant, system, developer); use instead of prompt. At most ${LIMITS.maxMessages} messages.`,
        prompt: `A non-empty string, or an array of exactly one string; used when messages is omitted. At most ${maxText} characters.`,
        n: `Number of completions, an integer from ${LIMITS.minChoices} to ${LIMITS.maxChoices} (default 1); other values are rejected with param "n".`,
        echo: "When true, the prompt is prepended to each output text (joined by a newline unless the prompt ends in whitespace; with messages, the prompt is the final user message).",
        stop: `Stop sequence(s), applied to the output text: a string or at most ${LIMITS.maxStopSequences} strings of up to ${LIMITS.maxStopLength} characters.`,
        stream: "Streaming is not supported: only absent, null or false is accepted.",
        max_tokens: "Rejected when present and not null.",
        logprobs: "Rejected unless absent, null or false.",
        tools: "Tool calling is not supported: rejected when present and not null.",
        tool_choice: "Tool calling is not supported: rejected when present and not null.",
        functions: "Tool calling is not supported: rejected when present and not null.",
        function_call: "Tool calling is not supported: rejected when present and not null.",
      },
    },
  ],
  [
    messageSchema,
    {
      id: "Message",
      description: `A message of a history. Text only; at most ${maxText} characters of text per message.`,
      properties: {
        role: "One of user, assistant, system, developer.",
        content: "A string, or an array of text parts (joined with a newline).",
        timestamp:
          "Optional. Unix seconds (below 10^11) or milliseconds, or a date string; normalized to ISO 8601 UTC. An unreadable date is rejected naming the field.",
        createdAt: "Alternative name of timestamp (timestamp wins when both are sent).",
        created_at: "Alternative name of timestamp (timestamp and createdAt win).",
      },
    },
  ],
  [
    textPartSchema,
    {
      id: "TextPart",
      description: 'A text part of message content: `{ "type": "text", "text": … }`.',
    },
  ],
];

/** Response bodies, converted as the server writes them (`io: "output"`). */
const RESPONSE_COMPONENTS: Array<[z.ZodType, ComponentMeta]> = [
  [
    generateResponseSchema,
    {
      id: "GenerateResponse",
      description: "Body of a 200 answer of POST /api/v1/generate.",
      properties: {
        status: 'Always "success".',
        result: "The reply.",
        rateLimits:
          "Top-level; present on API-key requests when rate-limit metadata is available for the account: one element per window.",
      },
    },
  ],
  [
    replyResultSchema,
    {
      id: "ReplyResult",
      description:
        "The reply of /generate. When includeVariations is false it has finalReply and chunks only.",
      properties: {
        finalReply: "The selected reply.",
        chunks: "The reply split into message-sized pieces along sentence boundaries.",
        replyChoices: "Alternative replies; only possibly present when includeVariations is true.",
      },
    },
  ],
  [
    rateLimitSchema,
    {
      id: "RateLimit",
      description:
        "One element of `rateLimits`: one rate-limit window of the API key. The same figures go out as the RateLimit-Policy and RateLimit headers.",
      properties: {
        window: "The window: minute, hour or day.",
        limit: "Requests allowed in the window.",
        remaining: "Requests left in the window after this one.",
        reset: "When the window resets, in Unix seconds.",
      },
    },
  ],
  [
    personifyResponseSchema,
    {
      id: "PersonifyResponse",
      description: "Body of a 200 answer of POST /api/v1/personify.",
      properties: {
        personified: "The rewritten text.",
        chunks: "The rewritten text split into pieces.",
      },
    },
  ],
  [
    completionResponseSchema,
    {
      id: "CompletionResponse",
      description: "Body of a 200 answer of POST /api/v1/completions; no usage field.",
      properties: {
        id: "Starts with `cmpl-`.",
        object: 'Always "text_completion".',
        created: "Unix time in seconds.",
        model: "The persona ID.",
        choices: "One entry per completion (n entries).",
      },
    },
  ],
  [
    completionChoiceSchema,
    {
      id: "CompletionChoice",
      description: "One completion of /completions.",
      properties: {
        text: "The completion text (normalized, stop applied, echo prepended).",
        index: "Position in choices, from 0.",
        logprobs: "Always null.",
        finish_reason: 'Always "stop".',
        chunks: "Extra field: the text split into pieces.",
      },
    },
  ],
  [
    modelListSchema,
    {
      id: "ModelList",
      description:
        "Body of GET /api/v1/models: the personas the key's account may use, in the completions dialect's list format, oldest first.",
      properties: { object: 'Always "list".', data: "One model per persona." },
    },
  ],
  [
    modelSchema,
    {
      id: "Model",
      description:
        "A persona as a model of the completions dialect; also the body of GET /api/v1/models/{id}.",
      properties: {
        id: "The persona ID: what /completions takes as `model`.",
        object: 'Always "model".',
        created: "When the persona was created, in Unix seconds.",
        owned_by: "The ID of the account that owns the persona.",
      },
    },
  ],
  [
    completionErrorBodySchema,
    {
      id: "CompletionError",
      description:
        "Every error of /completions: `{ error: { message, type, param, code } }`. `param` names the offending request field or is null; `code` is always null, and `type` tells the errors apart (the two 429s of API-key billing: `rate_limit_error` and `insufficient_quota`).",
    },
  ],
  [
    jsonErrorBodySchema,
    {
      id: "ErrorBody",
      description:
        "JSON error body: quota and server errors of /generate and /personify, and every error of the operational routes and the playground's JSON endpoints. `type` is a stable code such as `rate_limited` or `upstream_error`.",
    },
  ],
  [
    paymentRequiredSchema,
    {
      id: "PaymentRequired",
      description:
        "The x402 v2 payment challenge (402): also sent base64-encoded in the PAYMENT-REQUIRED header.",
    },
  ],
  [
    healthResponseSchema,
    {
      id: "HealthResponse",
      description: 'Answer of GET /healthz: `{ "status": "ok" }` whenever the process answers.',
    },
  ],
  [
    readinessSchema,
    {
      id: "Readiness",
      description:
        "Answer of GET /readyz: `ready` when the database takes a read and a write and Redis (when configured) answers, within the readiness deadline; otherwise `not_ready` with the failing part's `detail`.",
    },
  ],
];

const componentUri = (id: string) => `#/components/schemas/${id}`;

/** zod's string checks that it writes as a `format` beside a `pattern`; not JSON Schema formats. */
const ZOD_ONLY_FORMATS = new Set(["starts_with", "ends_with", "includes", "regex"]);

/** Drops zod-only `format`s (their `pattern` states the rule), so validators know every format. */
function standardFormats(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) standardFormats(item);
  } else if (typeof value === "object" && value !== null) {
    const schema = value as SchemaObject;
    if (typeof schema.format === "string" && ZOD_ONLY_FORMATS.has(schema.format)) {
      delete schema.format;
    }
    for (const inner of Object.values(schema)) standardFormats(inner);
  }
}

function convert(
  entries: Array<[z.ZodType, ComponentMeta]>,
  io: "input" | "output",
): Record<string, SchemaObject> {
  const registry = z.registry<{ id: string; description: string }>();
  for (const [schema, meta] of entries) {
    registry.add(schema, { id: meta.id, description: meta.description });
  }
  const { schemas } = z.toJSONSchema(registry, { io, uri: componentUri, target: "draft-2020-12" });
  const result: Record<string, SchemaObject> = {};
  for (const [, meta] of entries) {
    const converted = schemas[meta.id];
    if (converted === undefined) throw new Error(`zod produced no JSON Schema for ${meta.id}`);
    // An embedded component takes the document's dialect and address, not its own.
    const {
      $schema: _dialect,
      $id: _address,
      ...component
    } = converted as SchemaObject & { $schema?: string; $id?: string };
    standardFormats(component);
    const properties = component.properties as Record<string, SchemaObject> | undefined;
    for (const [name, description] of Object.entries(meta.properties ?? {})) {
      const property = properties?.[name];
      // A described field the contract no longer has is drift: fail loudly.
      if (property === undefined) throw new Error(`${meta.id} has no property ${name}`);
      property.description = description;
    }
    result[meta.id] = component;
  }
  return result;
}

/**
 * The document's `components.schemas`, generated from the zod schemas of
 * `@persona-reply/shared` (and of this service, for the health and x402
 * bodies) with zod 4's JSON Schema output: requests as clients write them
 * (`io: "input"`), responses as the server writes them (`io: "output"`).
 * Nested registered schemas become `$ref`s to their components. Only
 * descriptions are added; rules JSON Schema cannot state (the last message
 * is a user message, exactly one of prompt and messages, …) are written in
 * them.
 *
 * @throws Error when a described property no longer exists in the contract
 */
export function componentSchemas(): Record<string, SchemaObject> {
  return { ...convert(REQUEST_COMPONENTS, "input"), ...convert(RESPONSE_COMPONENTS, "output") };
}

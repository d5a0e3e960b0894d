import { ENDPOINT_PATHS } from "@persona-reply/shared";
import type { OperationObject, ParameterObject, PathItemObject } from "openapi3-ts/oas31";
import type { ErrorCode } from "../http/service-error.js";
import { errorResponses, HEADER_REFERENCES } from "./error-responses.js";

/** An example persona ID for the document's examples (not a real persona). */
export const EXAMPLE_PERSONA_ID = "3f1c2b7e-8a9d-4c1e-9b2a-5d6e7f8a9b0c";

/** Who may call the three endpoints: an API key in either header, or an x402 payment (docs/API.md §5). */
export const API_SECURITY = [{ ApiKeyHeader: [] }, { BearerAuth: [] }, { X402Payment: [] }];

/** The optional `x-request-id` request header. */
export const REQUEST_ID_PARAMETER: ParameterObject = {
  name: "x-request-id",
  in: "header",
  required: false,
  description:
    "Your own ID for the request (1–128 of A–Z a–z 0–9 _ . : -). Echoed in the response and in every log line; a fresh UUID is used when absent or invalid.",
  schema: { type: "string", pattern: "^[\\w.:-]{1,128}$" },
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Codes every metered endpoint can answer with. */
const COMMON_CODES: ErrorCode[] = [
  "malformed_json",
  "missing_api_key",
  "invalid_api_key",
  "payment_required",
  "account_inactive",
  "unknown_persona",
  "method_not_allowed",
  "payload_too_large",
  "unsupported_media_type",
  "rate_limited",
  "insufficient_balance",
  "internal_error",
  "upstream_error",
  "payment_facilitator_error",
  "upstream_timeout",
  "storage_unavailable",
  "route_unservable",
];

/**
 * The error codes of each endpoint. /generate answers an invalid body with
 * 422 and /personify and /completions with 400 (docs/API.md §7); only /personify
 * checks /personify access.
 */
export const ENDPOINT_ERROR_CODES = {
  generate: [...COMMON_CODES, "invalid_request", "unprocessable_request"],
  personify: [...COMMON_CODES, "invalid_request", "personify_not_allowed"],
  completions: [...COMMON_CODES, "invalid_request"],
} as const satisfies Record<keyof typeof ENDPOINT_PATHS, readonly ErrorCode[]>;

const COMMON_RULES =
  "Content-Type must be application/json (415 otherwise); a body larger than the service's size limit answers 413. Checks run in this order: content type, JSON, body, key (401), account active (403), persona (404), rate limits (429), balance (429). A request is charged only when answered 200.";

function okResponse(schema: string, example: unknown, description: string) {
  return {
    description,
    headers: {
      "x-request-id": HEADER_REFERENCES.requestId,
      "RateLimit-Policy": HEADER_REFERENCES.rateLimitPolicy,
      RateLimit: HEADER_REFERENCES.rateLimit,
      "PAYMENT-RESPONSE": HEADER_REFERENCES.paymentResponse,
      "Persona-Version": HEADER_REFERENCES.personaVersion,
    },
    content: { "application/json": { schema: ref(schema), example } },
  };
}

const generate: OperationObject = {
  operationId: "generate",
  tags: ["API"],
  summary: "Reply to a message history",
  description: `Replies to the message history in the persona's voice, with alternative replies when includeVariations is true. The last message must be a non-empty user message; system and developer messages are context before it. Validation and authentication errors are plain text, quota and server errors JSON: check the Content-Type before parsing. ${COMMON_RULES}`,
  parameters: [REQUEST_ID_PARAMETER],
  security: API_SECURITY,
  requestBody: {
    required: true,
    content: {
      "application/json": {
        schema: ref("GenerateRequest"),
        example: {
          personaId: EXAMPLE_PERSONA_ID,
          includeVariations: true,
          messages: [
            { role: "system", content: "The user is planning a balcony garden." },
            { role: "user", content: "Hi! Which herbs grow well on a balcony?" },
          ],
        },
      },
    },
  },
  responses: {
    "200": okResponse(
      "GenerateResponse",
      {
        status: "success",
        result: {
          finalReply: "Basil, thyme and mint love a sunny balcony.",
          chunks: ["Basil, thyme and mint love a sunny balcony."],
          replyChoices: [
            "Basil, thyme and mint love a sunny balcony.",
            "Try basil and thyme first.",
          ],
        },
        rateLimits: [
          { window: "minute", limit: 25, remaining: 24, reset: 1_767_225_660 },
          { window: "hour", limit: 100, remaining: 99, reset: 1_767_229_200 },
          { window: "day", limit: 500, remaining: 499, reset: 1_767_312_000 },
        ],
      },
      "The reply. `rateLimits` is present on API-key requests.",
    ),
    ...errorResponses("native", ENDPOINT_ERROR_CODES.generate),
  },
};

const personify: OperationObject = {
  operationId: "personify",
  tags: ["API"],
  summary: "Rewrite text in the persona's voice",
  description: `Rewrites raw in the persona's voice. The persona must have /personify access (403 otherwise). raw is treated as text to rewrite, never as instructions. Validation and authentication errors are plain text, quota and server errors JSON. ${COMMON_RULES}`,
  parameters: [REQUEST_ID_PARAMETER],
  security: API_SECURITY,
  requestBody: {
    required: true,
    content: {
      "application/json": {
        schema: ref("PersonifyRequest"),
        example: {
          personaId: EXAMPLE_PERSONA_ID,
          raw: "The meeting moves to Thursday. Bring the seed catalogue.",
        },
      },
    },
  },
  responses: {
    "200": okResponse(
      "PersonifyResponse",
      {
        personified: "Heads up: the meeting's moved to Thursday. Don't forget the seed catalogue!",
        chunks: ["Heads up: the meeting's moved to Thursday.", "Don't forget the seed catalogue!"],
      },
      "The rewritten text.",
    ),
    ...errorResponses("native", ENDPOINT_ERROR_CODES.personify),
  },
};

const completions: OperationObject = {
  operationId: "createCompletion",
  tags: ["API"],
  summary: "Completions-style text endpoint",
  description: `For clients written against the widely used completions interface: set their base URL to {base_url}/api/v1 and send the persona ID as model. Send either prompt or messages. stream: true, max_tokens, logprobs and tool calling are rejected; temperature, top_p, presence_penalty, frequency_penalty, best_of, seed, suffix and user are accepted and ignored. Every error is the completions error object { error: { message, type, param, code } }. ${COMMON_RULES}`,
  parameters: [REQUEST_ID_PARAMETER],
  security: API_SECURITY,
  requestBody: {
    required: true,
    content: {
      "application/json": {
        schema: ref("CompletionRequest"),
        example: { model: EXAMPLE_PERSONA_ID, prompt: "Good morning!", n: 2, stop: ["?"] },
      },
    },
  },
  responses: {
    "200": okResponse(
      "CompletionResponse",
      {
        id: "cmpl-6f0a1c2b3d4e5f60718293a4",
        object: "text_completion",
        created: 1_767_225_600,
        model: EXAMPLE_PERSONA_ID,
        choices: [
          {
            text: "Good morning to you too!",
            index: 0,
            logprobs: null,
            finish_reason: "stop",
            chunks: ["Good morning to you too!"],
          },
        ],
      },
      "n completions.",
    ),
    ...errorResponses("completions", ENDPOINT_ERROR_CODES.completions),
  },
};

/** The three API endpoints of docs/API.md §4.1–4.3, by path. */
export function apiPaths(): Record<string, PathItemObject> {
  return {
    [ENDPOINT_PATHS.generate]: { post: generate },
    [ENDPOINT_PATHS.personify]: { post: personify },
    [ENDPOINT_PATHS.completions]: { post: completions },
  };
}

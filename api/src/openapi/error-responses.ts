import { ERROR_TABLE, type ErrorCode } from "../http/service-error.js";
import type { HeaderOrReference, JsonSchema, ResponseObject } from "./openapi-types.js";

/** What each error code means, as the document and the reference page say it. */
export const ERROR_MEANINGS = {
  malformed_json: "malformed JSON in the request body",
  invalid_request: "invalid request body (or a body not received whole)",
  unprocessable_request: "invalid request body or parameters",
  missing_api_key: "no API key header was sent",
  invalid_api_key: "the API key is malformed, mistyped (checksum), unknown or revoked",
  account_inactive: "the API key is not associated with an active billing account",
  personify_not_allowed: "the persona does not have /personify access",
  unknown_persona: "unknown persona ID (or a persona of another account)",
  route_not_found: "no such route",
  method_not_allowed: "a method other than POST (the `Allow` header says POST)",
  payload_too_large: "the body is larger than the server's limit (PERSONA_BODY_LIMIT_BYTES)",
  unsupported_media_type: "Content-Type is not application/json",
  internal_error: "unexpected server error",
  upstream_error: "the model provider failed or returned an empty completion",
  upstream_timeout: "the model provider did not answer within the configured timeout",
  storage_unavailable:
    "the database or Redis did not answer within its deadline (or cannot write): retry after `Retry-After` seconds; nothing was charged",
  metrics_token_required: "the metrics token was not sent as a bearer token",
  metrics_loopback_only: "no metrics token is configured and the client is not on loopback",
  host_not_allowed:
    "a loopback client sent a Host that is not a loopback name, an IP address or in PERSONA_ALLOWED_HOSTS (DNS-rebinding guard)",
  payment_required: "a payment challenge (x402) for a self-serve persona when no API key is sent",
  payment_facilitator_error: "the x402 facilitator could not verify or settle the payment",
  insufficient_balance: "the account's balance does not cover the request",
  rate_limited: "a rate-limit window of the API key is full (see `Retry-After`)",
} as const satisfies Record<ErrorCode, string>;

/** How an endpoint writes its errors (api/src/http/error-style.ts). */
export type DocumentedErrorStyle = "native" | "completions" | "json";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Reusable response headers, under `#/components/headers`. */
export const HEADER_REFERENCES = {
  requestId: { $ref: "#/components/headers/RequestId" },
  rateLimitPolicy: { $ref: "#/components/headers/RateLimitPolicy" },
  rateLimit: { $ref: "#/components/headers/RateLimit" },
  retryAfter: { $ref: "#/components/headers/RetryAfter" },
  allow: { $ref: "#/components/headers/Allow" },
  paymentRequired: { $ref: "#/components/headers/PaymentRequired" },
  paymentResponse: { $ref: "#/components/headers/PaymentResponse" },
  personaVersion: { $ref: "#/components/headers/PersonaVersion" },
  wwwAuthenticate: { $ref: "#/components/headers/WwwAuthenticate" },
} as const satisfies Record<string, HeaderOrReference>;

function uniqueSorted<T extends string | null>(values: readonly T[]): T[] {
  return [...new Set(values)].sort((left, right) => String(left).localeCompare(String(right)));
}

function headersFor(codes: readonly ErrorCode[]): Record<string, HeaderOrReference> {
  const headers: Record<string, HeaderOrReference> = {
    "x-request-id": HEADER_REFERENCES.requestId,
  };
  if (codes.includes("storage_unavailable")) headers["Retry-After"] = HEADER_REFERENCES.retryAfter;
  if (codes.includes("rate_limited")) {
    headers["Retry-After"] = HEADER_REFERENCES.retryAfter;
    headers["RateLimit-Policy"] = HEADER_REFERENCES.rateLimitPolicy;
    headers.RateLimit = HEADER_REFERENCES.rateLimit;
  }
  if (codes.includes("method_not_allowed")) headers.Allow = HEADER_REFERENCES.allow;
  if (codes.includes("payment_required"))
    headers["PAYMENT-REQUIRED"] = HEADER_REFERENCES.paymentRequired;
  if (codes.includes("metrics_token_required")) {
    headers["WWW-Authenticate"] = HEADER_REFERENCES.wwwAuthenticate;
  }
  return headers;
}

function jsonErrorSchema(codes: readonly ErrorCode[]): JsonSchema {
  return {
    ...ref("ErrorBody"),
    type: "object",
    properties: {
      error: { type: "object", properties: { type: { enum: uniqueSorted(codes) } } },
    },
  };
}

function completionErrorSchema(codes: readonly ErrorCode[]): JsonSchema {
  const types = codes.map((code) => ERROR_TABLE[code].completionType);
  return {
    ...ref("CompletionError"),
    type: "object",
    properties: {
      error: {
        type: "object",
        properties: {
          type: { enum: uniqueSorted(types) },
        },
      },
    },
  };
}

function describeCodes(codes: readonly ErrorCode[]): string {
  return codes.map((code) => `\`${code}\`: ${ERROR_MEANINGS[code]}`).join("; ");
}

/**
 * The error responses of an operation, derived from the service's error
 * table (`ERROR_TABLE`): the codes the operation can answer are grouped by
 * status, and each status gets the body format the endpoint writes it in
 * (spec §7): plain text for the validation and authentication errors of
 * /generate and /personify, `ErrorBody` JSON for their quota and server
 * errors, the `CompletionError` object for every error of /completions, the
 * x402 `PaymentRequired` object for 402, and `ErrorBody` for the other
 * routes. The `type` (and completions `code`) values are listed per status.
 */
export function errorResponses(
  style: DocumentedErrorStyle,
  codes: readonly ErrorCode[],
): Record<string, ResponseObject> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_TABLE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, ResponseObject> = {};
  for (const [status, group] of [...byStatus].sort(([left], [right]) => left - right)) {
    const description = describeCodes(group);
    const headers = headersFor(group);
    const content: ResponseObject["content"] = {};
    if (group.includes("payment_required")) {
      content["application/json"] = { schema: ref("PaymentRequired") };
    } else if (style === "completions") {
      content["application/json"] = { schema: completionErrorSchema(group) };
    } else {
      const text =
        style === "native" ? group.filter((c) => ERROR_TABLE[c].nativeFormat === "text") : [];
      const json = group.filter((code) => !text.includes(code));
      if (text.length > 0) {
        content["text/plain"] = {
          schema: { type: "string", description: "A sentence saying what is wrong." },
        };
      }
      if (json.length > 0) content["application/json"] = { schema: jsonErrorSchema(json) };
    }
    responses[String(status)] = { description, headers, content };
  }
  return responses;
}

import type {
  ExampleObject,
  HeaderObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
} from "openapi3-ts/oas31";
import { ERROR_TABLE, type ErrorCode } from "../http/service-error.js";

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
  payload_too_large: "the body is larger than the service's size limit",
  unsupported_media_type: "Content-Type is not application/json",
  internal_error: "unexpected server error",
  upstream_error: "the model provider failed or returned an empty completion",
  upstream_timeout: "the model provider did not answer within the configured timeout",
  storage_unavailable:
    "the database or Redis did not answer within its deadline (or cannot write): retry after `Retry-After` seconds; nothing was charged",
  route_unservable:
    "the persona cannot be served by the instance that answered (a configuration problem on the service's side); nothing was charged, and a retry may reach an instance that serves it",
  metrics_token_required: "the metrics token was not sent as a bearer token",
  metrics_loopback_only: "no metrics token is configured and the client is not on loopback",
  host_not_allowed:
    "a loopback client sent a Host that is not a loopback name, an IP address or a host name the operator allowed (DNS-rebinding guard)",
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
} as const satisfies Record<string, HeaderObject | ReferenceObject>;

function uniqueSorted<T extends string | null>(values: readonly T[]): T[] {
  return [...new Set(values)].sort((left, right) => String(left).localeCompare(String(right)));
}

function headersFor(codes: readonly ErrorCode[]): Record<string, HeaderObject | ReferenceObject> {
  const headers: Record<string, HeaderObject | ReferenceObject> = {
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

function jsonErrorSchema(codes: readonly ErrorCode[]): SchemaObject {
  return {
    ...ref("ErrorBody"),
    type: "object",
    properties: {
      error: { type: "object", properties: { type: { enum: uniqueSorted(codes) } } },
    },
  };
}

function completionErrorSchema(codes: readonly ErrorCode[]): SchemaObject {
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

/** A sentence for an example message: the code's meaning, capitalised. */
function exampleMessage(code: ErrorCode): string {
  const meaning = ERROR_MEANINGS[code].replaceAll("`", "");
  return `${meaning.charAt(0).toUpperCase()}${meaning.slice(1)}.`;
}

/** An example x402 challenge (Base Sepolia USDC), for the 402 responses. */
const PAYMENT_REQUIRED_EXAMPLE = {
  x402Version: 2,
  error: "PAYMENT-SIGNATURE header is required",
  resource: { url: "https://persona.example.com/api/v1/generate", mimeType: "application/json" },
  accepts: [
    {
      scheme: "exact",
      network: "eip155:84532",
      amount: "1000",
      asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
      payTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
      maxTimeoutSeconds: 300,
      extra: { name: "USDC", version: "2" },
    },
  ],
};

/** One named example per error code, in the body format the endpoint writes it in. */
function examplesOf(
  codes: readonly ErrorCode[],
  body: (code: ErrorCode) => unknown,
): Record<string, ExampleObject> {
  return Object.fromEntries(
    codes.map((code) => [code, { summary: ERROR_MEANINGS[code], value: body(code) }]),
  );
}

const completionBody = (code: ErrorCode) => ({
  error: {
    message: exampleMessage(code),
    type: ERROR_TABLE[code].completionType,
    param: null,
    code: null,
  },
});

const jsonBody = (code: ErrorCode) => ({ error: { type: code, message: exampleMessage(code) } });

/**
 * The error responses of an operation, derived from the service's error
 * table (`ERROR_TABLE`): the codes the operation can answer are grouped by
 * status, and each status gets the body format the endpoint writes it in
 * (docs/API.md §7): plain text for the validation and authentication errors of
 * /generate and /personify, `ErrorBody` JSON for their quota and server
 * errors, the `CompletionError` object for every error of /completions, the
 * x402 `PaymentRequired` object for 402, and `ErrorBody` for the other
 * routes. The `type` (and completions `code`) values are listed per status,
 * and every code has a named example body (`examples`, keyed by the code).
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
    const content: NonNullable<ResponseObject["content"]> = {};
    if (group.includes("payment_required")) {
      content["application/json"] = {
        schema: ref("PaymentRequired"),
        example: PAYMENT_REQUIRED_EXAMPLE,
      };
    } else if (style === "completions") {
      content["application/json"] = {
        schema: completionErrorSchema(group),
        examples: examplesOf(group, completionBody),
      };
    } else {
      const text =
        style === "native" ? group.filter((c) => ERROR_TABLE[c].nativeFormat === "text") : [];
      const json = group.filter((code) => !text.includes(code));
      if (text.length > 0) {
        content["text/plain"] = {
          schema: { type: "string", description: "A sentence saying what is wrong." },
          examples: examplesOf(text, exampleMessage),
        };
      }
      if (json.length > 0) {
        content["application/json"] = {
          schema: jsonErrorSchema(json),
          examples: examplesOf(json, jsonBody),
        };
      }
    }
    responses[String(status)] = { description, headers, content };
  }
  return responses;
}

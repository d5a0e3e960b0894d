/**
 * Every error the service answers with, by code. One table maps each code to
 * its HTTP status, the `type` of the /completions error object (docs/API.md §7
 * format 3, whose `code` is always null), and whether /generate and /personify write it as plain text
 * (validation and authentication, docs/API.md §7 format 1) or JSON (quota and
 * server errors, docs/API.md §7 format 2).
 */
export const ERROR_TABLE = {
  malformed_json: { status: 400, completionType: "invalid_request_error", nativeFormat: "text" },
  invalid_request: { status: 400, completionType: "invalid_request_error", nativeFormat: "text" },
  unprocessable_request: {
    status: 422,
    completionType: "invalid_request_error",
    nativeFormat: "text",
  },
  missing_api_key: { status: 401, completionType: "authentication_error", nativeFormat: "text" },
  invalid_api_key: { status: 401, completionType: "authentication_error", nativeFormat: "text" },
  account_inactive: { status: 403, completionType: "permission_error", nativeFormat: "text" },
  personify_not_allowed: { status: 403, completionType: "permission_error", nativeFormat: "text" },
  unknown_persona: { status: 404, completionType: "invalid_request_error", nativeFormat: "text" },
  route_not_found: { status: 404, completionType: "invalid_request_error", nativeFormat: "text" },
  method_not_allowed: {
    status: 405,
    completionType: "invalid_request_error",
    nativeFormat: "text",
  },
  payload_too_large: { status: 413, completionType: "invalid_request_error", nativeFormat: "text" },
  unsupported_media_type: {
    status: 415,
    completionType: "invalid_request_error",
    nativeFormat: "text",
  },
  internal_error: { status: 500, completionType: "server_error", nativeFormat: "json" },
  upstream_error: { status: 502, completionType: "server_error", nativeFormat: "json" },
  upstream_timeout: { status: 504, completionType: "server_error", nativeFormat: "json" },
  // The database or Redis cannot answer in time: plain text
  // on /generate and /personify like their other errors, with Retry-After.
  storage_unavailable: { status: 503, completionType: "server_error", nativeFormat: "text" },
  // No target of the persona's route can be served by this instance (its
  // upstreams are configured elsewhere): JSON like the other server errors.
  route_unservable: { status: 503, completionType: "server_error", nativeFormat: "json" },
  // Billing (docs/API.md §5.6, §7 rows 402 and 429). On /completions the two 429s
  // differ in `type` and message; `code` is null like every other error (§7.3).
  // GET /metrics (docs/OPERATIONS.md): a token is configured and was not sent,
  // or none is configured and the client is not on the loopback interface.
  metrics_token_required: {
    status: 401,
    completionType: "authentication_error",
    nativeFormat: "json",
  },
  metrics_loopback_only: { status: 403, completionType: "permission_error", nativeFormat: "json" },
  // A loopback client whose Host is not a loopback or allowed name (DNS rebinding; createHostCheck of @persona-reply/shared/node).
  host_not_allowed: { status: 403, completionType: "permission_error", nativeFormat: "json" },
  payment_required: { status: 402, completionType: "invalid_request_error", nativeFormat: "json" },
  payment_facilitator_error: { status: 502, completionType: "server_error", nativeFormat: "json" },
  insufficient_balance: {
    status: 429,
    completionType: "insufficient_quota",
    nativeFormat: "json",
  },
  rate_limited: {
    status: 429,
    completionType: "rate_limit_error",
    nativeFormat: "json",
  },
} as const satisfies Record<
  string,
  { status: number; completionType: string; nativeFormat: "text" | "json" }
>;

/** A code of {@link ERROR_TABLE}. */
export type ErrorCode = keyof typeof ERROR_TABLE;

/**
 * Server errors the error handlers do not log per request, because they
 * are logged where they happen, once per incident: a storage failure by
 * the store's health, an unservable route by the engine (once a minute per
 * persona).
 */
export const LOGGED_WHERE_THEY_HAPPEN: ReadonlySet<string> = new Set<ErrorCode>([
  "storage_unavailable",
  "route_unservable",
]);

/**
 * An error the service answers with. Route code throws it; the error
 * middleware writes it in the endpoint's format. `param` names the offending
 * request field for the /completions error object.
 *
 * @example
 * throw new ServiceError("unknown_persona", "unknown personaId", { param: "model" });
 */
export class ServiceError extends Error {
  override readonly name = "ServiceError";
  readonly code: ErrorCode;
  readonly param: string | null;
  /** Extra response headers, e.g. `Retry-After`. */
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    options: {
      param?: string | null;
      headers?: Record<string, string>;
      cause?: unknown;
      body?: unknown;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.param = options.param ?? null;
    this.headers = options.headers ?? {};
    this.body = options.body;
  }

  /**
   * A body written as JSON in place of the endpoint's error format, for
   * answers whose body a protocol fixes (the x402 payment challenge).
   */
  readonly body: unknown;

  /** The HTTP status of this error's code. */
  get status(): number {
    return ERROR_TABLE[this.code].status;
  }
}

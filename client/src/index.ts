/**
 * @persona-reply/client — the Persona Reply client library (version 0.1.6).
 * Every export of this file is public; nothing else in the package is,
 * except the Node-only profile store at `@persona-reply/client/node`.
 * Browser-safe: nothing reachable from here imports a Node module.
 */

export type { MessageInput, RateLimit } from "@persona-reply/shared";
export { CLIENT_VERSION } from "@persona-reply/shared";
export {
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  PersonaClient,
} from "./client/persona-client.js";
export type {
  BaseUrlSource,
  GenerateInput,
  GenerateResult,
  PersonaClientOptions,
  PersonifyInput,
  PersonifyResult,
  RequestOptions,
} from "./client/types.js";
export {
  ConfigurationError,
  ConnectionError,
  RequestAbortedError,
  TimeoutError,
} from "./errors/client-errors.js";
export {
  describeError,
  type ErrorDescription,
  type ErrorKind,
  retryAfterAction,
} from "./errors/describe-error.js";
export {
  AuthenticationError,
  BadRequestError,
  type ErrorResponse,
  type FromResponseOptions,
  InternalServerError,
  NotFoundError,
  PaymentRequiredError,
  PermissionDeniedError,
  PersonaError,
  type PersonaErrorDetails,
  parseRetryAfter,
  RateLimitError,
  UnprocessableEntityError,
} from "./errors/persona-error.js";
export {
  DEFAULT_RETRY_POLICY,
  type RetryOptions,
  type RetryPolicy,
  type RetryStatus,
} from "./internal/retry.js";
export { DEFAULT_BASE_URL, normalizeBaseUrl } from "./settings/base-url.js";
export { maskApiKey, redactSecrets } from "./settings/mask-api-key.js";

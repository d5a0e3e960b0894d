/**
 * @persona-reply/shared — the wire contract of the Persona Reply API.
 * Every export of this file is public; nothing else in the package is.
 */

export {
  type CompletionChoice,
  type CompletionRequest,
  type CompletionRequestInput,
  type CompletionResponse,
  completionChoiceSchema,
  completionRequestSchema,
  completionResponseSchema,
} from "./completions.js";
export {
  API_PREFIX,
  API_VERSION,
  CLIENT_VERSION,
  ENDPOINT_PATHS,
  LIMITS,
  LOGIN_PATH,
  MODELS_PATH,
  SERVICE_SLUG,
} from "./constants.js";
export {
  type CompletionErrorBody,
  completionErrorBodySchema,
  describeValidationError,
  formatPath,
  type JsonErrorBody,
  jsonErrorBodySchema,
  type ParseOutcome,
  parseWith,
  type ValidationProblem,
} from "./errors.js";
export {
  type GenerateRequest,
  type GenerateRequestInput,
  type GenerateResponse,
  generateRequestSchema,
  generateResponseSchema,
  type ReplyResult,
  replyResultSchema,
} from "./generate.js";
export {
  CONTENT_ENCRYPTION_ALGORITHM,
  checkRedirectUri,
  KEY_MANAGEMENT_ALGORITHM,
  LOGIN_DENIED_ERROR,
  LOGIN_QUERY_PARAMETERS,
  LOGIN_SOURCES,
  LOOPBACK_HOSTS,
  type LoginCallback,
  type LoginQuery,
  type LoginSource,
  type LoopbackCallback,
  loginCallbackSchema,
  loginSourceSchema,
  loginStateSchema,
  MAX_REDIRECT_URI_LENGTH,
  MAX_STATE_LENGTH,
  MIN_STATE_LENGTH,
  RECIPIENT_KEY_RULES,
  redirectUriSchema,
} from "./login.js";
export {
  checkFinalUserMessage,
  contentText,
  type Message,
  type MessageContent,
  type MessageInput,
  type MessageRole,
  messageContentSchema,
  messageListSchema,
  messageRoleSchema,
  messageSchema,
  normalizeTimestamp,
  type TextPart,
  textPartSchema,
} from "./message.js";
export {
  type Model,
  type ModelList,
  modelListSchema,
  modelSchema,
} from "./models.js";
export { personaIdSchema } from "./persona-id.js";
export {
  type PersonifyRequest,
  type PersonifyResponse,
  personifyRequestSchema,
  personifyResponseSchema,
} from "./personify.js";
export { type RateLimit, rateLimitSchema } from "./rate-limits.js";

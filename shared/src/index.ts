/**
 * @persona-reply/shared — the wire contract of the Persona Reply API.
 * Every export of this file is public; nothing else in the package is.
 * It exports what a caller of the API needs: the schemas and types of the
 * bodies it sends and receives (and the types of their parts), the paths
 * and limits, and the browser login's contract; the helpers the schemas are
 * built from stay inside.
 */

export {
  type CompletionChoice,
  type CompletionRequest,
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
} from "./constants.js";
export {
  type CompletionErrorBody,
  completionErrorBodySchema,
  formatPath,
  type JsonErrorBody,
  jsonErrorBodySchema,
  type ParseOutcome,
  parseWith,
  type ValidationProblem,
} from "./errors.js";
export {
  type GenerateRequest,
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
  type LoginCallback,
  type LoginQuery,
  type LoginSource,
  type LoopbackCallback,
  loginSourceSchema,
  loginStateSchema,
  MAX_REDIRECT_URI_LENGTH,
  MAX_STATE_LENGTH,
  MIN_STATE_LENGTH,
  RECIPIENT_KEY_RULES,
  redirectUriSchema,
} from "./login.js";
export {
  contentText,
  type Message,
  type MessageContent,
  type MessageInput,
  type MessageRole,
  messageSchema,
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

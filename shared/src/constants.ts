/** Path prefix of every API endpoint (docs/API.md §9.1). */
export const API_PREFIX = "/api/v1";

/** Version of the interface description this contract implements (docs/API.md §9.2). */
export const API_VERSION = "0.1.3";

/** Version of the client library (docs/API.md §4.4, §9.2). */
export const CLIENT_VERSION = "0.1.6";

/** Service slug used in the browser login route (docs/API.md §4.5). */
export const SERVICE_SLUG = "persona";

/** Path of the browser login route: `GET /api/persona/cli/login` (docs/API.md §4.5). */
export const LOGIN_PATH = `/api/${SERVICE_SLUG}/cli/login`;

/** Paths of the three API operations (docs/API.md §1.2). */
export const ENDPOINT_PATHS = {
  generate: `${API_PREFIX}/generate`,
  personify: `${API_PREFIX}/personify`,
  completions: `${API_PREFIX}/completions`,
} as const;

/**
 * Path of the models list, `GET /api/v1/models`, and with `/{id}` appended
 * of one model. Not in the spec (§4 "other detail of the endpoints: not
 * shown"): completions-style clients list models before anything else, so
 * the service answers in their list format with the personas a key may use.
 */
export const MODELS_PATH = `${API_PREFIX}/models`;

/**
 * Size limits the spec leaves open (docs/API.md §8.6 "not shown"); chosen by us and
 * documented in shared/README.md.
 */
export const LIMITS = {
  /** Most messages accepted in one history. */
  maxMessages: 500,
  /** Most characters of text in one message or in `raw`. */
  maxTextLength: 32_000,
  /** Most stop sequences on /completions. */
  maxStopSequences: 4,
  /** Most characters in one stop sequence. */
  maxStopLength: 200,
  /** Range of `n` on /completions (docs/API.md §4.3, §8.3). */
  minChoices: 1,
  maxChoices: 5,
} as const;

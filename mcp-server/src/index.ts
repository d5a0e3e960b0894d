/**
 * @persona-reply/mcp-server — the Persona Reply MCP server (`persona-mcp`).
 * Every export of this file is public; nothing else in the package is. The
 * command itself is `dist/main.js`; these exports let a program embed the
 * same server on a transport of its own (README "Embedding"): the server,
 * where its settings come from, a logger, and the two transports, with the
 * types of their options.
 */

export {
  createLogger,
  type Logger,
  type LoggerOptions,
  type LogLevel,
  silentLogger,
} from "./logging/logger.js";
export { createPersonaServer, type PersonaServerOptions } from "./server/create-persona-server.js";
export {
  type ActiveSettings,
  type ClientSource,
  type ClientSourceOptions,
  createClientSource,
  type ServerFlags,
} from "./settings/client-source.js";
// A ClientSource of one's own throws it to have the tools answer with setup steps.
export { SetupRequiredError } from "./settings/setup-instructions.js";
// How a tool call's client retries (never a 429), for a ClientSource of one's own.
export { TOOL_RETRY_POLICY } from "./settings/tool-retry-policy.js";
export {
  type BearerCredential,
  createBearerToken,
  readBearerToken,
} from "./transports/bearer-token.js";
export {
  type HttpEndpoint,
  type HttpServeOptions,
  serveHttp,
} from "./transports/http-transport.js";
export {
  handleStatelessRequest,
  type StatelessRequestOptions,
  writeJsonRpcError,
} from "./transports/stateless-request.js";
export { type StdioOutcome, serveStdio } from "./transports/stdio-transport.js";

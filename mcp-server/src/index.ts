/**
 * @persona-reply/mcp-server — the Persona Reply MCP server (`persona-mcp`).
 * Every export of this file is public; nothing else in the package is. The
 * command itself is `dist/main.js`; these exports let a program embed the
 * same server (for example on a transport of its own).
 */

export {
  DEFAULT_HTTP_PORT,
  type ParsedCommand,
  parseArguments,
  type ServerArguments,
  USAGE,
  UsageError,
} from "./cli/parse-arguments.js";
export {
  createLogger,
  LOG_LEVELS,
  type Logger,
  type LoggerOptions,
  type LogLevel,
  silentLogger,
} from "./logging/logger.js";
export { createPersonaServer, type PersonaServerOptions } from "./server/create-persona-server.js";
export { SERVER_NAME, SERVER_VERSION } from "./server/server-info.js";
export {
  type ActiveSettings,
  type ClientSource,
  type ClientSourceOptions,
  createClientSource,
  type ServerFlags,
} from "./settings/client-source.js";
export { readEnvFile, SERVICE_VARIABLES } from "./settings/read-env-file.js";
export { SetupRequiredError } from "./settings/setup-instructions.js";
export {
  GENERATE_TOOL_DESCRIPTION,
  GENERATE_TOOL_NAME,
  type GenerateToolInput,
  generateInputShape,
  generateOutputShape,
  historyOf,
} from "./tools/generate-tool.js";
export {
  PERSONIFY_TOOL_DESCRIPTION,
  PERSONIFY_TOOL_NAME,
  personifyInputShape,
  personifyOutputShape,
} from "./tools/personify-tool.js";
export {
  type DescribedToolError,
  describeToolError,
  type ToolErrorContext,
  ToolInputError,
} from "./tools/tool-error.js";
export {
  type HttpEndpoint,
  type HttpServeOptions,
  MCP_PATH,
  serveHttp,
} from "./transports/http-transport.js";
export { serveStdio } from "./transports/stdio-transport.js";

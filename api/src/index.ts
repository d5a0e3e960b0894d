/**
 * @persona-reply/api — the service, for its own tests and tools.
 * Every export of this file is public; nothing else in the package is.
 */
export { createApp } from "./app.js";
export { type Config, ConfigError, loadConfig } from "./config/config.js";
export { createServices } from "./create-services.js";
export { createLogger, type Logger } from "./logging/logger.js";
export { createMetrics, type Metrics } from "./metrics/metrics.js";
export type { OpenApiDocument } from "./openapi/openapi-document.js";
export { buildOpenApiDocument, type OpenApiOptions } from "./openapi/openapi-document.js";
export { type RunningServer, startServer } from "./server.js";
export type { Services } from "./services.js";

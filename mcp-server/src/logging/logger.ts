import { redactSecrets } from "@persona-reply/client";

/** Levels of {@link Logger}, most severe first. */
export const LOG_LEVELS = ["error", "warn", "info", "debug"] as const;

/** A level of {@link Logger}: `error`, `warn`, `info` or `debug`. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Writes one line per message; never to standard output, which carries the MCP protocol on stdio. */
export interface Logger {
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
}

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** Lowest level written; default `info`. */
  level?: LogLevel;
  /** Where lines go; default `process.stderr`. */
  stream?: { write(text: string): unknown };
  /**
   * Secrets to mask in every line (the API key in use), asked for at each
   * line because the key may change between tool calls.
   */
  secrets?: () => readonly string[];
}

/**
 * A logger that writes `persona-mcp <ISO time> <level>: <message>` lines to
 * standard error. Every line passes through the client's `redactSecrets`:
 * the known secrets and anything shaped like an API key are masked
 * (`prk_…abcd`), so a key never reaches a log.
 *
 * @example
 * const logger = createLogger({ level: "warn" });
 * logger.warn("generate failed: HTTP 429");
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const threshold = LOG_LEVELS.indexOf(options.level ?? "info");
  const stream = options.stream ?? process.stderr;
  const secrets = options.secrets ?? (() => []);
  const write = (level: LogLevel, message: string) => {
    if (LOG_LEVELS.indexOf(level) > threshold) return;
    const text = redactSecrets(message, secrets()).replace(/\r?\n/gu, "\n  ");
    stream.write(`persona-mcp ${new Date().toISOString()} ${level}: ${text}\n`);
  };
  return {
    error: (message) => write("error", message),
    warn: (message) => write("warn", message),
    info: (message) => write("info", message),
    debug: (message) => write("debug", message),
  };
}

/** A logger that writes nothing (for embedding the server where logs are not wanted). */
export const silentLogger: Logger = {
  error: () => {},
  warn: () => {},
  info: () => {},
  debug: () => {},
};

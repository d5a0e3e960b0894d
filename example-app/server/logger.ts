/** Severity of a log line. */
export type LogLevel = "info" | "warn" | "error";

/**
 * Writes one log line. Fields never hold a key: the server logs names of
 * variables, statuses and error types only.
 */
export type Logger = (level: LogLevel, message: string, fields?: Record<string, unknown>) => void;

/** A logger that drops everything (the default of `createApp`, so tests stay quiet). */
export const silentLogger: Logger = () => {};

/**
 * A logger writing JSON lines (`{"level","time","msg",...fields}`) to a
 * stream, like the service's logs.
 *
 * @example
 * const log = jsonLogger();
 * log("info", "example app is listening", { url: "http://127.0.0.1:5173" });
 */
export function jsonLogger(stream: NodeJS.WritableStream = process.stdout): Logger {
  return (level, message, fields = {}) => {
    stream.write(`${JSON.stringify({ level, time: Date.now(), msg: message, ...fields })}\n`);
  };
}

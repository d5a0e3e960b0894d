import { type DestinationStream, type Logger, pino } from "pino";
import { currentRequestId } from "./request-context.js";

export type { Logger };

/**
 * Paths redacted from every log line: API keys travel in these headers, and
 * the upstream key in the provider options.
 */
export const REDACTED_PATHS = [
  "req.headers.authorization",
  'req.headers["x-api-key"]',
  "request.headers.authorization",
  'request.headers["x-api-key"]',
  "apiKey",
  "*.apiKey",
];

/** Bytes of log lines gathered before one write to standard output. */
const LOG_BUFFER_BYTES = 8 * 1024;
/** Longest a log line waits in that buffer, in milliseconds. */
const LOG_FLUSH_INTERVAL_MS = 200;

/** A log destination that can be emptied synchronously before the process exits. */
export type FlushableDestination = DestinationStream & { flushSync(): void };

/**
 * Standard output written asynchronously in the background (sonic-boom), so
 * logging never blocks a request. Lines are gathered up to 8 KiB and
 * written together — a write per request line cost more than the rest of
 * logging — and never wait more than 200 ms; call `flushSync()` before
 * exiting.
 */
export function asyncStandardOutput(): FlushableDestination {
  const destination = pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES });
  const timer = setInterval(() => {
    // A write still under way is flushed by the next round.
    try {
      destination.flush();
    } catch {
      // sonic-boom refuses to flush while it is writing.
    }
  }, LOG_FLUSH_INTERVAL_MS);
  timer.unref();
  return destination;
}

/**
 * Creates the structured JSON logger (pino) with secrets redacted. A line
 * written while a request is served carries that request's `requestId`
 * (the `x-request-id` of its response), whichever module wrote it.
 *
 * @param level - pino level, e.g. `info` or `silent`
 * @param destination - where lines go; standard output by default
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    mixin: () => {
      const requestId = currentRequestId();
      return requestId === undefined ? {} : { requestId };
    },
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}

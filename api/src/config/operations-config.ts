import { z } from "zod";

const milliseconds = z.coerce.number().int().positive().max(3_600_000);
/** A host name, optionally with a leading `.` (the name and all its subdomains). */
const HOST_NAME = /^\.?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/iu;

/**
 * Configuration of metrics and of the HTTP server's timeouts (docs/OPERATIONS.md),
 * spread into the server configuration schema.
 */
export const operationsConfigShape = {
  /**
   * Bearer token that `GET /metrics` requires (`Authorization: Bearer …`).
   * Unset: `/metrics` answers loopback clients only (127.0.0.0/8, ::1).
   */
  PERSONA_METRICS_TOKEN: z
    .string()
    .min(16, { error: "must be at least 16 characters" })
    .regex(/^[\x21-\x7e]+$/u, { error: "must be printable ASCII without spaces" })
    .optional(),
  /**
   * Host names, comma-separated, that loopback clients may use besides
   * `localhost` and IP addresses (the DNS-rebinding guard, createHostCheck of @persona-reply/shared/node):
   * for `/metrics` without a token, and for the pages when a request arrives
   * on a loopback address (where the host of PERSONA_PUBLIC_URL is allowed too).
   * A leading `.` allows the name and all its subdomains. No port.
   */
  PERSONA_ALLOWED_HOSTS: z
    .string()
    .default("")
    .transform((value) =>
      value
        .split(",")
        .map((host) => host.trim())
        .filter((host) => host !== ""),
    )
    .refine((hosts) => hosts.every((host) => HOST_NAME.test(host)), {
      error: "must be host names separated by commas, without port or scheme (e.g. persona.test)",
    }),
  /** Longest time a client may take to send the request headers (slow-header clients). */
  PERSONA_HEADERS_TIMEOUT_MS: milliseconds.default(15_000),
  /** Longest time a client may take to send the whole request, body included. */
  PERSONA_REQUEST_TIMEOUT_MS: milliseconds.default(60_000),
  /** How long an idle keep-alive connection is kept open after a response. */
  PERSONA_KEEP_ALIVE_TIMEOUT_MS: milliseconds.default(5_000),
  /**
   * A connection on which nothing moves (no byte read or written, e.g. a
   * client that never reads its response) for this long is closed. Unset:
   * the provider timeout × (retries + 1) + 30 s, at least 120 s, so a slow
   * model call is never cut.
   */
  PERSONA_SOCKET_TIMEOUT_MS: milliseconds.optional(),
  /**
   * How long SIGTERM waits for the requests in flight: new
   * connections are refused at once, idle ones closed, and whatever is still
   * open at this deadline is closed before the process exits. Unset: the
   * provider timeout × (retries + 1) + 5 s, so a slow model call can finish.
   */
  PERSONA_DRAIN_TIMEOUT_MS: milliseconds.optional(),
  /**
   * How often each instance checks the running persona canaries' error
   * rates and stops those that exceed their margin (`persona-admin persona
   * canary`).
   */
  PERSONA_CANARY_CHECK_MS: milliseconds.default(10_000),
  /**
   * Online evaluation (`persona-admin persona sample`): answers waiting to
   * be scored at most, per instance; a fuller queue drops and counts them.
   */
  PERSONA_SAMPLE_QUEUE_SIZE: z.coerce.number().int().min(1).max(1_000_000).default(1_000),
  /** Sampled answers scored at once per instance (judge calls in flight). */
  PERSONA_SAMPLE_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(4),
  /** Deadline from picking a sampled answer to its score, judge call included. */
  PERSONA_SAMPLE_DEADLINE_MS: milliseconds.default(30_000),
};

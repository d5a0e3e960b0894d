import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import dotenv from "dotenv";
import { z } from "zod";

/** The service's default origin when `SERVICE_BASE_URL` is not set (the service's embedded default). */
export const DEFAULT_SERVICE_ORIGIN = "http://127.0.0.1:8787";

/** Path prefix of the service's API (docs/API.md §9.1). */
export const API_PREFIX = "/api/v1";

/**
 * The example app's folder (the one holding its package.json), found by
 * walking up from this file so it is the same from `server/` and from the
 * compiled `dist/server/`.
 */
export function appDirectory(): string {
  let directory = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(directory, "package.json"))) {
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error("example-app/package.json not found");
    directory = parent;
  }
  return directory;
}

/**
 * The env files read by default, first one wins per variable: the app's own
 * `example-app/.env`, then the repository root `.env` that the service's
 * first run writes.
 */
export function defaultEnvFiles(): string[] {
  const directory = appDirectory();
  return [path.join(directory, ".env"), path.resolve(directory, "..", ".env")];
}

/** A start-up setting of the example server is invalid (e.g. `EXAMPLE_PORT=abc`). */
export class StartupConfigError extends Error {
  override name = "StartupConfigError";
}

/**
 * Where the service is, read from `SERVICE_BASE_URL`, which may be the site
 * origin or include `/api/v1` (docs/API.md §5.4).
 */
export type ServiceLocation =
  | {
      ok: true;
      /** Site origin without `/api/v1`, e.g. `http://127.0.0.1:8787`: the client library's `baseUrl`. */
      origin: string;
      /** `origin` + `/api/v1`: the completions-style client's `baseURL` (docs/API.md §4.3). */
      completionsBaseUrl: string;
    }
  | { ok: false; problem: string };

/** Configuration of the example server, read once at start-up. */
export interface ExampleConfig {
  /** `SERVICE_API_KEY`, or undefined when unset (requests then answer a `config` error). */
  apiKey: string | undefined;
  /** `SERVICE_PERSONA_ID`, or undefined when unset; a request's `personaId` overrides it. */
  personaId: string | undefined;
  /** Where the service is, or why `SERVICE_BASE_URL` cannot be used. */
  service: ServiceLocation;
  /** Interface to bind (`EXAMPLE_HOST`, default `127.0.0.1`). */
  host: string;
  /** TCP port (`EXAMPLE_PORT`, default 5173; 0 picks a free one). */
  port: number;
  /** Time allowed for one service call in milliseconds (`EXAMPLE_TIMEOUT_MS`, default 30000). */
  timeoutMs: number;
  /** Retries of a failed service call: connection errors, 408/409/429/5xx (`EXAMPLE_MAX_RETRIES`, default 1). */
  maxRetries: number;
  /**
   * Host names a loopback request may carry in `Host` besides `localhost`
   * and IP addresses (`EXAMPLE_ALLOWED_HOSTS`, comma-separated; a leading
   * `.` allows subdomains too): the DNS-rebinding guard (server/host-check.ts).
   */
  allowedHosts: string[];
  /** Folder of the built front end (`dist/web`). */
  webDirectory: string;
}

/**
 * Reads `SERVICE_BASE_URL` (docs/API.md §5.4). Accepts the site origin
 * (`http://host:port`) or the completions-style base URL that includes
 * `/api/v1`, with or without a trailing slash. A path before `/api/v1` (a
 * service behind a path prefix) is kept.
 *
 * @param value - the variable's value; undefined or blank means the default origin
 * @example
 * parseServiceBaseUrl("http://127.0.0.1:8787/api/v1/")
 * // { ok: true, origin: "http://127.0.0.1:8787", completionsBaseUrl: "http://127.0.0.1:8787/api/v1" }
 */
export function parseServiceBaseUrl(value: string | undefined): ServiceLocation {
  const text = value?.trim() || DEFAULT_SERVICE_ORIGIN;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return {
      ok: false,
      problem: "SERVICE_BASE_URL is not a URL (expected e.g. http://127.0.0.1:8787)",
    };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, problem: "SERVICE_BASE_URL must start with http:// or https://" };
  }
  if (url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
    return {
      ok: false,
      problem: "SERVICE_BASE_URL must be a plain origin, without query, fragment or credentials",
    };
  }
  const pathname = url.pathname.replace(/\/+$/u, "");
  const basePath = pathname.endsWith(API_PREFIX) ? pathname.slice(0, -API_PREFIX.length) : pathname;
  const origin = `${url.origin}${basePath}`;
  return { ok: true, origin, completionsBaseUrl: `${origin}${API_PREFIX}` };
}

const integerSetting = (name: string, fallback: number, minimum: number, maximum: number) =>
  z
    .string()
    .optional()
    .transform((value, context) => {
      if (value === undefined || value.trim() === "") return fallback;
      const number = Number(value);
      if (!Number.isInteger(number) || number < minimum || number > maximum) {
        context.addIssue({
          code: "custom",
          message: `${name} must be an integer from ${minimum} to ${maximum}`,
        });
        return z.NEVER;
      }
      return number;
    });

/** A host name, optionally with a leading `.` (the name and all its subdomains). */
const HOST_NAME = /^\.?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/u;

const settingsSchema = z.object({
  EXAMPLE_PORT: integerSetting("EXAMPLE_PORT", 5173, 0, 65_535),
  EXAMPLE_HOST: z
    .string()
    .optional()
    .transform((value) => value?.trim() || "127.0.0.1"),
  EXAMPLE_TIMEOUT_MS: integerSetting("EXAMPLE_TIMEOUT_MS", 30_000, 1, 600_000),
  EXAMPLE_MAX_RETRIES: integerSetting("EXAMPLE_MAX_RETRIES", 1, 0, 5),
  EXAMPLE_ALLOWED_HOSTS: z
    .string()
    .optional()
    .transform((value) =>
      (value ?? "")
        .split(",")
        .map((host) => host.trim().toLowerCase())
        .filter((host) => host !== ""),
    )
    .refine((hosts) => hosts.every((host) => HOST_NAME.test(host)), {
      error:
        "EXAMPLE_ALLOWED_HOSTS must be host names separated by commas, without port or scheme (e.g. myapp.test)",
    }),
});

/** Reads env files, first file wins per variable; missing files are skipped. */
function readEnvFiles(files: readonly string[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const file of files) {
    if (!fs.existsSync(file)) continue;
    const parsed = dotenv.parse(fs.readFileSync(file));
    for (const [name, value] of Object.entries(parsed)) {
      // A blank line such as `SERVICE_API_KEY=` in .env.example copied as is
      // should not hide the value of a later file.
      if (values[name] === undefined && value.trim() !== "") values[name] = value;
    }
  }
  return values;
}

/** Where {@link loadConfig} reads from. */
export interface LoadConfigOptions {
  /** Variables that win over every file (default `process.env`). */
  environment?: Record<string, string | undefined>;
  /** Env files, first one wins per variable (default {@link defaultEnvFiles}). */
  envFiles?: readonly string[];
  /** Folder of the built front end (default `dist/web` of the app). */
  webDirectory?: string;
}

/**
 * Reads the example server's configuration: the process environment first,
 * then `example-app/.env`, then the repository root `.env` written by the
 * service's first run (dotenv format; files never change `process.env`).
 * Missing `SERVICE_*` values do not stop start-up: the routes answer a
 * `config` error naming the variable, so the page can say what to set.
 *
 * @throws {StartupConfigError} when an `EXAMPLE_*` setting is invalid (message names it)
 * @example
 * const config = loadConfig();
 * const server = await startServer(config);
 */
export function loadConfig(options: LoadConfigOptions = {}): ExampleConfig {
  const fromFiles = readEnvFiles(options.envFiles ?? defaultEnvFiles());
  const environment = options.environment ?? process.env;
  const read = (name: string): string | undefined => {
    const value = environment[name];
    return value !== undefined && value.trim() !== "" ? value.trim() : fromFiles[name]?.trim();
  };
  const settings = settingsSchema.safeParse({
    EXAMPLE_PORT: read("EXAMPLE_PORT"),
    EXAMPLE_HOST: read("EXAMPLE_HOST"),
    EXAMPLE_TIMEOUT_MS: read("EXAMPLE_TIMEOUT_MS"),
    EXAMPLE_MAX_RETRIES: read("EXAMPLE_MAX_RETRIES"),
    EXAMPLE_ALLOWED_HOSTS: read("EXAMPLE_ALLOWED_HOSTS"),
  });
  if (!settings.success) {
    throw new StartupConfigError(settings.error.issues[0]?.message ?? "invalid settings");
  }
  return {
    apiKey: read("SERVICE_API_KEY"),
    personaId: read("SERVICE_PERSONA_ID"),
    service: parseServiceBaseUrl(read("SERVICE_BASE_URL")),
    host: settings.data.EXAMPLE_HOST,
    port: settings.data.EXAMPLE_PORT,
    timeoutMs: settings.data.EXAMPLE_TIMEOUT_MS,
    maxRetries: settings.data.EXAMPLE_MAX_RETRIES,
    allowedHosts: settings.data.EXAMPLE_ALLOWED_HOSTS,
    webDirectory: options.webDirectory ?? path.join(appDirectory(), "dist", "web"),
  };
}

/**
 * Names of the `SERVICE_*` variables that are missing or unusable, for the
 * start-up log (names only, never values).
 */
export function missingVariables(config: ExampleConfig): string[] {
  const missing: string[] = [];
  if (config.apiKey === undefined) missing.push("SERVICE_API_KEY");
  if (config.personaId === undefined) missing.push("SERVICE_PERSONA_ID");
  if (!config.service.ok) missing.push("SERVICE_BASE_URL");
  return missing;
}

import { API_PREFIX } from "@persona-reply/shared";
import { ConfigurationError } from "../errors/client-errors.js";
import { redactSecrets } from "./mask-api-key.js";

/**
 * The base URL used when neither the `baseUrl` option nor `SERVICE_BASE_URL`
 * gives one: the origin `npm start` serves the service on. The spec makes
 * `SERVICE_BASE_URL` optional (§5.4) but shows no hosted origin, so the
 * default is the local service; a client using it says so
 * (`baseUrlSource: "default"`), and its connection errors name the default
 * and how to change it.
 */
export const DEFAULT_BASE_URL = "http://127.0.0.1:8787";

/**
 * Checks and normalizes a base URL (docs/API.md §4.4): an `http:` or `https:` site
 * origin, optionally with a path prefix for a reverse proxy, with no
 * credentials, query or fragment. Trailing slashes are dropped. A URL that
 * already ends in `/api/v1` is refused, since the library appends it itself.
 *
 * @param value - the base URL as configured, e.g. `https://persona.example.com/`
 * @param origin - where the value came from, for the message (e.g. `SERVICE_BASE_URL`)
 * @returns the normalized base URL, e.g. `https://persona.example.com`
 * @throws {ConfigurationError} when the value is not a usable base URL
 *
 * @example
 * normalizeBaseUrl("https://persona.example.com/"); // "https://persona.example.com"
 * normalizeBaseUrl("https://persona.example.com/api/v1"); // throws ConfigurationError
 */
export function normalizeBaseUrl(value: string, origin = "baseUrl"): string {
  const shown = redactSecrets(value.trim());
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ConfigurationError(
      `${origin} is not a URL: "${shown}"; give the site origin, e.g. https://persona.example.com`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigurationError(
      `${origin} must be an http or https URL, not ${url.protocol.replace(/:$/u, "")}`,
    );
  }
  if (url.username !== "" || url.password !== "") {
    throw new ConfigurationError(`${origin} must not contain a user name or password`);
  }
  if (url.search !== "" || url.hash !== "") {
    throw new ConfigurationError(`${origin} must not contain a query or fragment`);
  }
  const path = url.pathname.replace(/\/+$/u, "");
  if (path.toLowerCase().endsWith(API_PREFIX)) {
    throw new ConfigurationError(
      `${origin} must be the site origin without ${API_PREFIX}; the client appends ${API_PREFIX} itself: use ${url.origin}${path.slice(0, -API_PREFIX.length)}`,
    );
  }
  return `${url.origin}${path}`;
}

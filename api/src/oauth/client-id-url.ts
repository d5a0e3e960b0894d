import { InvalidClientError } from "@modelcontextprotocol/sdk/server/auth/errors.js";

/** Whether a `client_id` names a client metadata document (an `https:` URL) rather than a registered client. */
export function isUrlClientId(clientId: string): boolean {
  return clientId.startsWith("https://");
}

const DOT_SEGMENTS = new Set([".", "..", "%2e", "%2e%2e", ".%2e", "%2e."]);

/**
 * Checks a URL client ID as OAuth Client ID Metadata Documents require: an
 * `https:` URL with a path other than `/`, without fragment, user name,
 * password or `.`/`..` path segments (the draft's §3). Its host is what
 * the consent page shows.
 *
 * @returns the parsed URL
 * @throws {InvalidClientError} naming what is wrong
 */
export function parseClientIdUrl(clientId: string): URL {
  const refuse = (why: string) => new InvalidClientError(`the client_id URL ${why}`);
  if (!URL.canParse(clientId)) throw refuse("is not a valid URL");
  const url = new URL(clientId);
  if (url.protocol !== "https:") throw refuse("must be https");
  if (clientId.includes("#")) throw refuse("must not have a fragment");
  if (url.username !== "" || url.password !== "") {
    throw refuse("must not carry a user name or password");
  }
  const rawPath = clientId.slice(`https://${clientId.slice(8).split(/[/?]/u)[0]}`.length);
  const segments = (rawPath.split("?")[0] ?? "").split("/").slice(1);
  if (segments.some((segment) => DOT_SEGMENTS.has(segment.toLowerCase()))) {
    throw refuse("must not have . or .. path segments");
  }
  if (url.pathname === "/" || url.pathname === "") throw refuse("must have a path");
  return url;
}

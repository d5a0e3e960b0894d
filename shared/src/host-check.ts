import { isHostAllowed } from "host-validation-middleware";

/**
 * Says whether a socket address is on the loopback interface (127.0.0.0/8
 * or ::1, also IPv4-mapped as `::ffff:127.0.0.1`). For addresses as Node
 * reports them (`socket.remoteAddress`) or as given to `listen()`; not for
 * `Host` headers (see {@link isLoopbackHost}).
 *
 * @example
 * isLoopbackAddress("127.0.0.2"); // true
 * isLoopbackAddress("10.0.0.1"); // false
 */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const plain = address.startsWith("::ffff:") ? address.slice("::ffff:".length) : address;
  return plain === "::1" || /^127(?:\.\d{1,3}){3}$/u.test(plain);
}

/** What a `Host` value may hold: a name or IPv4 address, or a bracketed IPv6 address, then a port. */
const HOST_VALUE = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/iu;

/**
 * Says whether a `Host` header value (`host` or `host:port`) names this
 * computer by a name no DNS server can change: exactly `localhost`, a
 * literal IPv4 address in 127.0.0.0/8, or `[::1]`, with or without a port.
 * Never a prefix match: `127.0.0.1.rebind.evil.example` is a DNS name an
 * attacker's server can resolve to 127.0.0.1 (DNS rebinding), and is
 * refused. Numbers are read as the WHATWG URL parser (and so browsers)
 * reads them, so `127.1` counts as `127.0.0.1`; anything beyond a host and
 * a port (user info, a path, spaces) is refused.
 *
 * @param value - a `Host` header value; undefined (no header) is refused
 * @example
 * isLoopbackHost("localhost:8788"); // true
 * isLoopbackHost("127.0.0.1.rebind.evil.example:8788"); // false
 */
export function isLoopbackHost(value: string | undefined): boolean {
  if (value === undefined || !HOST_VALUE.test(value)) return false;
  let hostname: string;
  try {
    hostname = new URL(`http://${value}`).hostname;
  } catch {
    return false;
  }
  // The parser writes a numeric host as a dotted quad, so a match is a literal address, not a name.
  return (
    hostname === "localhost" || hostname === "[::1]" || /^127(?:\.\d{1,3}){3}$/u.test(hostname)
  );
}

/**
 * Says whether an `Origin` header value is a page served from this computer
 * under a loopback name ({@link isLoopbackHost}'s rules on its host), over
 * `http:` or `https:`. `null` (a sandboxed or `file:` page) and every other
 * origin are refused.
 *
 * @example
 * isLoopbackOrigin("http://localhost:5173"); // true
 * isLoopbackOrigin("http://127.0.0.1.rebind.evil.example:8788"); // false
 */
export function isLoopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  // An origin is scheme://host[:port] and nothing else.
  if (url.origin !== origin.toLowerCase().replace(/\/$/u, "")) return false;
  return isLoopbackHost(url.host);
}

/** Tells whether a `Host` header names a host the service answers to (see {@link createHostCheck}). */
export type HostCheck = (hostHeader: string | undefined) => boolean;

/**
 * The service's DNS-rebinding guard of what it serves to loopback clients,
 * as Vite's dev server has it (host-validation-middleware, the package Vite
 * uses): a page on `evil.example` whose name is made to resolve to
 * 127.0.0.1 reaches a loopback server from the browser, but its requests
 * carry `Host: evil.example`. Allowed are `localhost` and its subdomains,
 * any IP address (no DNS name, so nothing to rebind: `127.0.0.1`, `[::1]`),
 * with or without a port, and the configured names (`PERSONA_ALLOWED_HOSTS`;
 * a leading `.` allows the name and all its subdomains). A request without a
 * `Host` header (HTTP/1.0) did not come from a browser and passes. A server
 * answering only to loopback names (persona-mcp) uses {@link isLoopbackHost}.
 *
 * @param allowedHosts - host names without port, e.g. `["persona.test", ".internal.example"]`
 * @example
 * const allowed = createHostCheck(["persona.test"]);
 * allowed("localhost:8787"); // true
 * allowed("evil.example:8787"); // false
 */
export function createHostCheck(allowedHosts: readonly string[]): HostCheck {
  // Frozen, so the package caches its answers per Host value.
  const frozen = Object.freeze([...new Set(allowedHosts.map((host) => host.toLowerCase()))]);
  return (hostHeader) => isHostAllowed(hostHeader?.toLowerCase(), frozen);
}

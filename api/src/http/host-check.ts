import { isHostAllowed } from "host-validation-middleware";

/** Says whether a socket address is on the loopback interface (127.0.0.0/8 or ::1). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const plain = address.startsWith("::ffff:") ? address.slice("::ffff:".length) : address;
  return plain === "::1" || /^127(?:\.\d{1,3}){3}$/u.test(plain);
}

/** Tells whether a `Host` header names a host the service answers to (see {@link createHostCheck}). */
export type HostCheck = (hostHeader: string | undefined) => boolean;

/**
 * The DNS-rebinding guard of what is served to loopback clients, as Vite's
 * dev server has it (host-validation-middleware, the package Vite uses): a
 * page on `evil.example` whose name is made to resolve to 127.0.0.1 reaches
 * a loopback server from the browser, but its requests carry
 * `Host: evil.example`. Allowed are `localhost` and its subdomains, any IP
 * address (no DNS name, so nothing to rebind: `127.0.0.1`, `[::1]`), with
 * or without a port, and the configured names (`PERSONA_ALLOWED_HOSTS`; a
 * leading `.` allows the name and all its subdomains). A request without a
 * `Host` header (HTTP/1.0) did not come from a browser and passes.
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

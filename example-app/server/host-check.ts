import net from "node:net";
import type { RequestHandler } from "express";
import { isHostAllowed } from "host-validation-middleware";
import type { ErrorBody } from "./errors.js";

const LOOPBACK = new net.BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/** Says whether a socket's local address is on the loopback interface (IPv4-mapped too). */
function onLoopback(address: string | undefined): boolean {
  if (address === undefined || net.isIP(address) === 0) return false;
  return LOOPBACK.check(address, net.isIPv6(address) ? "ipv6" : "ipv4");
}

/**
 * The DNS-rebinding guard of the example server, as Vite's dev server has
 * it (host-validation-middleware, the package Vite uses). This server holds
 * the API key: a page on `evil.example` whose name was made to resolve to
 * 127.0.0.1 could otherwise spend it through `/api/chat` from the
 * developer's browser. A request that arrives on a loopback address is
 * answered only when its `Host` is `localhost` (or a subdomain of it), an
 * IP address (`127.0.0.1`, `[::1]`), with or without a port, or a name in
 * `allowedHosts` (`EXAMPLE_ALLOWED_HOSTS`; a leading `.` allows subdomains
 * too). Otherwise 403: `{ error: { type: "validation", message } }` under
 * `/api`, plain text elsewhere (as Vite answers). Requests that arrive on
 * another interface (bound to `0.0.0.0` and reached over the network) are
 * not checked.
 *
 * @param allowedHosts - host names without port
 */
export function checkHost(allowedHosts: readonly string[]): RequestHandler {
  const frozen = Object.freeze([...allowedHosts]);
  return (request, response, next) => {
    const host = request.headers.host;
    if (!onLoopback(request.socket.localAddress) || isHostAllowed(host?.toLowerCase(), frozen)) {
      next();
      return;
    }
    const name = (host ?? "").replace(/:\d+$/u, "");
    const message = `this server answers on localhost, 127.0.0.1 or [::1], not on ${JSON.stringify(name)}; to allow that name, add it to EXAMPLE_ALLOWED_HOSTS`;
    if (request.path === "/api" || request.path.startsWith("/api/")) {
      const body: ErrorBody = { error: { type: "validation", message } };
      response.status(403).json(body);
      return;
    }
    response.status(403).type("text/plain").send(message);
  };
}

import { createHash, timingSafeEqual } from "node:crypto";
import { Router } from "express";
import { ServiceError } from "../http/service-error.js";
import type { Metrics } from "./metrics.js";

/** Path of the Prometheus scrape endpoint. */
export const METRICS_PATH = "/metrics";

/** Says whether a socket's remote address is on the loopback interface (127.0.0.0/8 or ::1). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const plain = address.startsWith("::ffff:") ? address.slice("::ffff:".length) : address;
  return plain === "::1" || /^127(?:\.\d{1,3}){3}$/u.test(plain);
}

function sameSecret(sent: string, expected: string): boolean {
  // Hashing first gives equal lengths, so the comparison takes the same time whatever was sent.
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(sent), digest(expected));
}

/**
 * `GET /metrics`: the registry in the Prometheus text format. With a token
 * configured (`PERSONA_METRICS_TOKEN`) the scraper must send
 * `Authorization: Bearer <token>` (401 otherwise, from any address);
 * without one, only loopback clients are served (403 otherwise). Behind a
 * reverse proxy on the same host every client looks local: set the token,
 * or keep `/metrics` off the proxy.
 *
 * @param token - the configured token, or undefined for loopback-only
 */
export function createMetricsRouter(metrics: Metrics, token: string | undefined): Router {
  const router = Router();
  router.get(METRICS_PATH, async (request, response) => {
    if (token !== undefined) {
      const header = request.headers.authorization ?? "";
      const match = /^Bearer\s+(\S+)\s*$/iu.exec(header);
      if (match?.[1] === undefined || !sameSecret(match[1], token)) {
        throw new ServiceError(
          "metrics_token_required",
          "send the metrics token as a bearer token",
          {
            headers: { "WWW-Authenticate": 'Bearer realm="metrics"' },
          },
        );
      }
    } else if (!isLoopbackAddress(request.socket.remoteAddress)) {
      throw new ServiceError(
        "metrics_loopback_only",
        "metrics are served to loopback clients only; the operator can set PERSONA_METRICS_TOKEN to scrape from elsewhere",
      );
    }
    const text = await metrics.registry.metrics();
    response.setHeader("Cache-Control", "no-store");
    response.type(metrics.registry.contentType).send(text);
  });
  return router;
}

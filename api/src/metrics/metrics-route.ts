import { createHash, timingSafeEqual } from "node:crypto";
import { createHostCheck, isLoopbackAddress } from "@persona-reply/shared/node";
import { Router } from "express";
import { ServiceError } from "../http/service-error.js";
import type { Metrics } from "./metrics.js";

/** Path of the Prometheus scrape endpoint. */
export const METRICS_PATH = "/metrics";

function sameSecret(sent: string, expected: string): boolean {
  // Hashing first gives equal lengths, so the comparison takes the same time whatever was sent.
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(sent), digest(expected));
}

/**
 * `GET /metrics`: the registry in the Prometheus text format. With a token
 * configured (`PERSONA_METRICS_TOKEN`) the scraper must send
 * `Authorization: Bearer <token>` (401 otherwise, from any address);
 * without one, only loopback clients are served (403 otherwise), and only
 * under a `Host` that is a loopback name, an IP address or one of
 * `allowedHosts` (403 otherwise), so that a DNS-rebinding page in a browser
 * on the same machine cannot read them. Behind a reverse proxy on the same
 * host every client looks local: set the token, or keep `/metrics` off the
 * proxy (a proxy that forwards the public `Host` is refused).
 *
 * @param token - the configured token, or undefined for loopback-only
 * @param allowedHosts - host names loopback scrapers may use (`PERSONA_ALLOWED_HOSTS`)
 */
export function createMetricsRouter(
  metrics: Metrics,
  token: string | undefined,
  allowedHosts: readonly string[] = [],
): Router {
  const hostAllowed = createHostCheck(allowedHosts);
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
    } else if (!hostAllowed(request.headers.host)) {
      throw new ServiceError(
        "host_not_allowed",
        "metrics are served to loopback clients under a loopback host name (localhost, 127.0.0.1, [::1]) only; the operator can add names to PERSONA_ALLOWED_HOSTS",
      );
    }
    const text = await metrics.registry.metrics();
    response.setHeader("Cache-Control", "no-store");
    response.type(metrics.registry.contentType).send(text);
  });
  return router;
}

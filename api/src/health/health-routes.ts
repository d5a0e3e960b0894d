import { Router } from "express";
import type { ReadinessProbe } from "./readiness.js";

/** Paths of the health endpoints (never logged per request, never metered). */
export const HEALTH_PATHS = ["/healthz", "/readyz"] as const;

/**
 * `GET /healthz` — liveness: the process answers (200 `{ status: "ok" }`),
 * touching nothing else, so a failing database never gets the process
 * restarted. `GET /readyz` — readiness: 200 `{ status: "ready", checks }`,
 * or 503 with `Retry-After` and the failing part named in `checks`, within
 * the readiness deadline (docs/OPERATIONS.md "Health").
 */
export function createHealthRouter(readiness: ReadinessProbe): Router {
  const router = Router();
  router.get("/healthz", (_request, response) => {
    response.setHeader("Cache-Control", "no-store");
    response.json({ status: "ok" });
  });
  router.get("/readyz", async (_request, response) => {
    const result = await readiness.check();
    response.setHeader("Cache-Control", "no-store");
    if (result.status !== "ready") response.setHeader("Retry-After", "5");
    response.status(result.status === "ready" ? 200 : 503).json(result);
  });
  return router;
}

import { Router } from "express";
import { sendPage } from "../pages/layout.js";
import { PageError } from "../pages/page-errors.js";
import { requireSession } from "../pages/require-session.js";
import type { WebSupport } from "../pages/web-support.js";
import { usageCsv } from "./usage-csv.js";
import { readKeyWindows } from "./usage-limits.js";
import type { VersionUsage } from "./usage-page.js";
import { periodDays, readUsageSummary, utcDay } from "./usage-summary.js";

/**
 * The signed-in customer's usage (not in the spec, documented in
 * api/README.md): `GET /usage`, charts and a table of the last 30 days,
 * the balance and the rate-limit windows of each key; `GET /usage.csv`,
 * the table's figures as CSV. Both need a session (a browser without one
 * is sent to sign in) and show only the session's own account.
 */
/**
 * The page renderer, loaded on the first `/usage` request: Observable Plot
 * and linkedom take most of a second to import, which the service's start
 * (and every process that never serves the page) should not pay.
 */
let pageModule: Promise<typeof import("./usage-page.js")> | undefined;
function loadPageModule(): Promise<typeof import("./usage-page.js")> {
  pageModule ??= import("./usage-page.js");
  return pageModule;
}

/**
 * Requests and spend per persona version over the page's days, summed from
 * the usage rows (the daily totals carry no version): read only when the
 * customer asks for the split (`/usage?by=version`).
 */
async function readVersionUsage(
  services: WebSupport["services"],
  accountId: string,
  now: number,
): Promise<VersionUsage[]> {
  const lines = await services.usage.report({
    accountId,
    from: periodDays(now)[0] ?? utcDay(now),
    byVersion: true,
  });
  const sums = new Map<string, VersionUsage>();
  for (const line of lines) {
    const key = `${line.personaId ?? ""}#${line.personaVersion ?? ""}`;
    const sum = sums.get(key) ?? {
      personaId: line.personaId,
      version: line.personaVersion ?? null,
      requests: 0,
      served: 0,
      costMicros: 0,
    };
    sum.requests += line.requests;
    sum.served += line.served;
    sum.costMicros += line.costMicros;
    sums.set(key, sum);
  }
  return [...sums.values()].sort(
    (a, b) =>
      (a.personaId ?? "").localeCompare(b.personaId ?? "") || (a.version ?? 0) - (b.version ?? 0),
  );
}

export function createUsageRouter(web: WebSupport): Router {
  const { services } = web;
  const router = Router();

  router.get("/usage", ...web.page, async (request, response) => {
    const session = requireSession(request, response);
    if (session === undefined) return;
    const now = Date.now();
    const byVersion = request.query.by === "version";
    const [{ usagePageBody }, summary, keys, personas, versions] = await Promise.all([
      loadPageModule(),
      readUsageSummary(services.database, session.accountId, now),
      readKeyWindows(services.database, services.billing.rateLimiter, session.accountId, now),
      services.personas.listWithLiveVersion(session.accountId),
      byVersion ? readVersionUsage(services, session.accountId, now) : undefined,
    ]);
    if (summary === undefined) throw new PageError(404, "Your account no longer exists.");
    sendPage(request, response, {
      title: "Usage",
      csrfToken: web.csrfToken(request, response),
      body: usagePageBody(
        summary,
        keys,
        now,
        personas.map(({ persona, live }) => ({
          id: persona.id,
          name: persona.name,
          version: live.version,
          since: live.promotedAt ?? live.createdAt,
          releaseNote: live.releaseNote,
        })),
        versions,
      ),
    });
  });

  router.get("/usage.csv", ...web.page, async (request, response) => {
    const session = requireSession(request, response);
    if (session === undefined) return;
    const now = Date.now();
    const summary = await readUsageSummary(services.database, session.accountId, now);
    if (summary === undefined) throw new PageError(404, "Your account no longer exists.");
    const day = summary.days.at(-1) ?? "";
    response
      .type("text/csv; charset=utf-8")
      .setHeader("Content-Disposition", `attachment; filename="usage-${day}.csv"`)
      .send(usageCsv(summary));
  });

  return router;
}

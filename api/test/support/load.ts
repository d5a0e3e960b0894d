import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ApiFixture } from "../../../test-support/spawn-service.js";
import type { Services } from "../../src/services.js";

/** One request of a load run and how it was answered. */
export interface LoadResult {
  requestId: string;
  status: number;
  /** `Retry-After` of the answer, when it had one. */
  retryAfter: string | null;
  contentType: string;
  body: string;
  /** Milliseconds from sending to the whole answer. */
  elapsedMs: number;
  /** When it was sent, in Unix milliseconds. */
  startedAt: number;
}

/** What a load run sends. */
export interface LoadOptions {
  baseUrl: string;
  apiKey: string;
  personaId: string;
  /** Clients sending at once (each sends again as soon as it is answered). */
  concurrency: number;
  /** How long the clients keep sending. */
  durationMs: number;
  /** Prefix of the requests' `x-request-id`, unique per run. */
  prefix: string;
}

/**
 * Lifts the demo key's rate limits far above any load run, before its first
 * request: a quiet machine serves more than the demo's 1 000 a minute within
 * a run, and a 429 is not what a load run looks at.
 */
export function liftRateLimits(fixture: ApiFixture): void {
  const [key] = JSON.parse(fixture.admin("key", "list", "--account", fixture.accountId)) as Array<{
    id: string;
  }>;
  if (key === undefined) throw new Error("the demo account has no key");
  const limit = "100000000";
  fixture.admin(
    "limits",
    "set",
    "--key",
    key.id,
    "--minute",
    limit,
    "--hour",
    limit,
    "--day",
    limit,
  );
}

/**
 * Sends `/api/v1/generate` from `concurrency` clients for `durationMs`, each
 * with its own `x-request-id`, and keeps every answer (a request that got no
 * answer is recorded with status 0).
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult[]> {
  const results: LoadResult[] = [];
  const until = Date.now() + options.durationMs;
  let next = 0;
  const client = async () => {
    while (Date.now() < until) {
      const requestId = `${options.prefix}-${next}`;
      next += 1;
      const startedAt = Date.now();
      try {
        const response = await fetch(`${options.baseUrl}/api/v1/generate`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-api-key": options.apiKey,
            "x-request-id": requestId,
          },
          body: JSON.stringify({
            personaId: options.personaId,
            messages: [{ role: "user", content: `Load request ${requestId}` }],
          }),
          signal: AbortSignal.timeout(15_000),
        });
        const body = await response.text();
        results.push({
          requestId,
          status: response.status,
          retryAfter: response.headers.get("retry-after"),
          contentType: response.headers.get("content-type") ?? "",
          body,
          elapsedMs: Date.now() - startedAt,
          startedAt,
        });
      } catch (error) {
        // No answer: the body says why (timeout, reset), for a failing test to show.
        const reason =
          error instanceof Error ? `${error.message} ${String(error.cause ?? "")}` : "";
        results.push({
          requestId,
          status: 0,
          retryAfter: null,
          contentType: "",
          body: reason,
          elapsedMs: Date.now() - startedAt,
          startedAt,
        });
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, client));
  return results;
}

/**
 * Checks the ledger after a load run: every request answered
 * 200 has its usage row with status 200 and its `charge` entry; the
 * balance moved by exactly the sum of those charges; the ledger sums to
 * the balance; nothing is left reserved.
 *
 * @returns a list of problems (empty when the ledger matches)
 */
export async function ledgerProblems(
  services: Services,
  accountId: string,
  results: readonly LoadResult[],
  balanceBefore: number,
): Promise<string[]> {
  const problems: string[] = [];
  const served = results.filter((result) => result.status === 200).map((r) => r.requestId);
  const rows = await services.usage.findByRequestIds(served);
  const servedRows = rows.filter((row) => row.status === 200);
  const found = new Set(servedRows.map((row) => row.requestId));
  const missing = served.filter((id) => !found.has(id));
  if (missing.length > 0)
    problems.push(`${missing.length} 200s have no usage row: ${missing.slice(0, 5).join(", ")}`);
  const entries = await services.billing.balances.entries(accountId);
  const charges = new Map(
    entries.filter((entry) => entry.kind === "charge").map((entry) => [entry.usageId, entry]),
  );
  const uncharged = servedRows.filter((row) => row.costMicros > 0 && !charges.has(row.id));
  if (uncharged.length > 0) problems.push(`${uncharged.length} usage rows have no charge entry`);
  // Rows of requests answered anything but 200 must not be charged.
  const failedIds = results.filter((result) => result.status !== 200).map((r) => r.requestId);
  const failedRows = await services.usage.findByRequestIds(failedIds);
  const charged = failedRows.filter((row) => row.costMicros > 0);
  if (charged.length > 0) problems.push(`${charged.length} requests not answered 200 were charged`);
  const balance = await services.billing.balances.balanceOf(accountId);
  const chargedTotal = servedRows.reduce((sum, row) => sum + row.costMicros, 0);
  if (balance === undefined) return [...problems, "the account is gone"];
  if (balanceBefore - balance.balanceMicros !== chargedTotal) {
    problems.push(
      `the balance moved by ${balanceBefore - balance.balanceMicros} micro-units, the 200s cost ${chargedTotal}`,
    );
  }
  const ledgerSum = await services.billing.balances.ledgerSum(accountId);
  if (ledgerSum !== balance.balanceMicros) {
    problems.push(`the ledger sums to ${ledgerSum}, the balance is ${balance.balanceMicros}`);
  }
  if (balance.reservedMicros !== 0)
    problems.push(`${balance.reservedMicros} micro-units still reserved`);
  return problems;
}

const API_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * Runs SQL on a SQLite file from another process (as an operator's
 * `sqlite3` shell or a backup would): opens it, runs `statements` in a
 * transaction begun with `begin` (`immediate` takes the write lock, `deferred`
 * plus a read holds a read snapshot), holds it for `holdMs`, then commits.
 *
 * @returns `started` resolves once the lock is held, `done` when the process
 *   has exited; `release()` ends the process early (its lock goes with it)
 */
export function holdSqlite(
  file: string,
  begin: "immediate" | "deferred",
  holdMs: number,
): { started: Promise<void>; done: Promise<void>; release(): void } {
  const script = `
    const Database = require("better-sqlite3");
    const db = new Database(process.argv[1]);
    db.pragma("busy_timeout = 10000");
    db.exec(${JSON.stringify(begin === "immediate" ? "BEGIN IMMEDIATE" : "BEGIN")});
    db.prepare("select count(*) from usage_records").get();
    process.stdout.write("held\\n");
    setTimeout(() => { db.exec("COMMIT"); db.close(); }, Number(process.argv[2]));
  `;
  const child = spawn(process.execPath, ["-e", script, file, String(holdMs)], {
    cwd: API_ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const started = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`the lock holder exited with ${code}`)));
  });
  const done = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return { started, done, release: () => child.kill("SIGKILL") };
}

/** Reads one sample of a metric from the Prometheus text of `/metrics`. */
export async function metricValue(baseUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const line = text.split("\n").find((entry) => entry.startsWith(`${name} `));
  if (line === undefined) throw new Error(`no metric ${name}`);
  return Number(line.split(" ")[1]);
}

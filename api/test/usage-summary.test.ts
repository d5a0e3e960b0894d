import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyBucket } from "../src/rate-limits/rate-limiter.js";
import type { Services } from "../src/services.js";
import { usageCsv } from "../src/usage/usage-csv.js";
import { readKeyWindows } from "../src/usage/usage-limits.js";
import { usagePageBody } from "../src/usage/usage-page.js";
import { readUsageSummary } from "../src/usage/usage-summary.js";
import {
  createTestDatabase,
  dialectsUnderTest,
  suiteTitle,
  type TestDatabase,
} from "./support/test-databases.js";
import { closeStore, createCustomer, openStore, type StoreCustomer } from "./support/test-store.js";
import { writeChargedUsage } from "./support/usage-ledger.js";

// The figures of the customer's /usage page, read from real usage rows and
// ledger entries, once per dialect: sums per day, persona and endpoint over
// the last 30 days only, the balance walked back from the ledger, the
// rate-limit windows as the limiter counted them, and the CSV.

const NOW = Date.parse("2026-11-23T15:00:00.000Z");
const DAY = 86_400_000;

function at(daysAgo: number, hour = 12): string {
  return new Date(Date.parse("2026-11-23T00:00:00.000Z") - daysAgo * DAY + hour * 3_600_000)
    .toISOString()
    .replace("Z", "Z");
}

for (const { dialect, skipReason } of await dialectsUnderTest()) {
  describe.skipIf(skipReason !== undefined)(
    suiteTitle("usage page figures", dialect, skipReason),
    () => {
      let database: TestDatabase;
      let services: Services;
      let customer: StoreCustomer;
      let otherPersonaId: string;

      function usage(
        createdAt: string,
        personaId: string | null,
        endpoint: "generate" | "personify" | "completions",
        costMicros: number,
        status = 200,
        accountId = customer.accountId,
      ) {
        const input = {
          accountId,
          apiKeyId: customer.keyId,
          personaId,
          endpoint,
          status,
          costMicros,
        };
        return writeChargedUsage(services.database, input, createdAt);
      }

      beforeAll(async () => {
        database = await createTestDatabase(dialect);
        services = await openStore(database.url, { PERSONA_INSTANCE_ID: "usage-suite" });
        customer = await createCustomer(services, {
          balanceMicros: 0,
          persona: { name: '=Ada, "the" <b>cook' },
        });
        const other = await services.personas.create(customer.accountId, {
          ...customer.persona,
          name: "Bo",
        });
        otherPersonaId = other.id;
        // 40 days ago: a top-up, outside the period.
        await services.database
          .insertInto("balance_entries")
          .values({
            id: randomUUID(),
            account_id: customer.accountId,
            kind: "topup",
            amount_micros: 10_000_000,
            usage_id: null,
            note: null,
            created_at: at(40),
          })
          .execute();
        await services.database
          .updateTable("accounts")
          .set({ balance_micros: 10_000_000 })
          .where("id", "=", customer.accountId)
          .execute();
        await usage(at(40), customer.persona.id, "generate", 1_000_000); // outside the period
        await usage(at(29, 0), customer.persona.id, "generate", 250_000); // first day, midnight
        await usage(at(29, 23), customer.persona.id, "generate", 250_000);
        await usage(at(3), customer.persona.id, "personify", 100_000);
        await usage(at(3), otherPersonaId, "completions", 50_000);
        await usage(at(3), otherPersonaId, "completions", 0, 429);
        await usage(at(0, 14), otherPersonaId, "generate", 1_500);
        // A top-up 2 days ago, inside the period.
        await services.database
          .insertInto("balance_entries")
          .values({
            id: randomUUID(),
            account_id: customer.accountId,
            kind: "topup",
            amount_micros: 5_000_000,
            usage_id: null,
            note: null,
            created_at: at(2),
          })
          .execute();
        await services.database
          .updateTable("accounts")
          .set((eb) => ({ balance_micros: eb("balance_micros", "+", 5_000_000) }))
          .where("id", "=", customer.accountId)
          .execute();
        // Another account's usage never shows.
        const stranger = await createCustomer(services, { balanceMicros: 1_000_000 });
        await usage(at(1), stranger.persona.id, "generate", 7, 200, stranger.accountId);
      }, 60_000);

      afterAll(async () => {
        await closeStore(services);
        await database?.drop();
      });

      it("sums the last 30 days per day, persona and endpoint, and nothing older", async () => {
        const summary = await readUsageSummary(services.database, customer.accountId, NOW);
        expect(summary).toBeDefined();
        if (summary === undefined) return;
        expect(summary.days).toHaveLength(30);
        expect(summary.days[0]).toBe("2026-10-25");
        expect(summary.days.at(-1)).toBe("2026-11-23");
        const pick = (line: (typeof summary.lines)[number]) => [
          line.day,
          line.personaId,
          line.endpoint,
          line.requests,
          line.served,
          line.costMicros,
        ];
        const first = customer.persona.id;
        const expected = [
          ["2026-10-25", first, "generate", 2, 2, 500_000],
          ["2026-11-20", first, "personify", 1, 1, 100_000],
          ["2026-11-20", otherPersonaId, "completions", 2, 1, 50_000],
          ["2026-11-23", otherPersonaId, "generate", 1, 1, 1_500],
        ].sort((a, b) => `${a[0]}${a[1]}`.localeCompare(`${b[0]}${b[1]}`));
        expect(summary.lines.map(pick)).toEqual(expected);
        expect(summary.personaNames.get(otherPersonaId)).toBe("Bo");
        expect(summary.lines.every((line) => line.inputTokens === 10 * line.requests)).toBe(true);
      });

      it("walks the balance back from now through the ledger entries of each day", async () => {
        const summary = await readUsageSummary(services.database, customer.accountId, NOW);
        if (summary === undefined) throw new Error("no summary");
        // 10 − 1 (40 days ago) = 9 before the period; − 0.5 on day one; − 0.15 three days ago; + 5 two days ago; − 0.0015 today.
        expect(summary.balanceMicros).toBe(13_348_500);
        const course = new Map(
          summary.balanceCourse.map((point) => [point.day, point.balanceMicros]),
        );
        expect(course.get("2026-10-25")).toBe(8_500_000);
        expect(course.get("2026-11-19")).toBe(8_500_000);
        expect(course.get("2026-11-20")).toBe(8_350_000);
        expect(course.get("2026-11-21")).toBe(13_350_000);
        expect(course.get("2026-11-22")).toBe(13_350_000);
        expect(course.get("2026-11-23")).toBe(13_348_500);
      });

      it("shows each active key's windows as the limiter counted them, counting nothing itself", async () => {
        const limits = { minute: 5, hour: 50, day: 500 };
        await services.billing.limits.setForKey(customer.keyId, limits);
        const now = Date.now();
        for (let count = 0; count < 3; count += 1) {
          await services.billing.rateLimiter.consume(keyBucket(customer.keyId), limits, now);
        }
        const { record } = await services.keys.create(customer.accountId, "unused key");
        const revoked = await services.keys.create(customer.accountId, "revoked key");
        await services.keys.revoke(revoked.record.id);
        const first = await readKeyWindows(
          services.database,
          services.billing.rateLimiter,
          customer.accountId,
          now,
        );
        const again = await readKeyWindows(
          services.database,
          services.billing.rateLimiter,
          customer.accountId,
          now,
        );
        expect(again).toEqual(first);
        expect(first.map((key) => key.keyId)).toEqual([customer.keyId, record.id]);
        const used = first[0]?.windows.map((window) => [window.window, window.used, window.limit]);
        expect(used).toEqual([
          ["minute", 3, 5],
          ["hour", 3, 50],
          ["day", 3, 500],
        ]);
        expect(first[0]?.windows[0]?.reset).toBe(Math.ceil((now + 60_000) / 1000));
        expect(first[1]?.windows.map((window) => window.used)).toEqual([0, 0, 0]);
        // A minute later the minute window is fresh again.
        const later = await readKeyWindows(
          services.database,
          services.billing.rateLimiter,
          customer.accountId,
          now + 61_000,
        );
        expect(later[0]?.windows.map((window) => window.used)).toEqual([0, 3, 3]);
      });

      it("writes the CSV and the page from the same lines, escaping names", async () => {
        const summary = await readUsageSummary(services.database, customer.accountId, NOW);
        if (summary === undefined) throw new Error("no summary");
        const csv = usageCsv(summary).split("\r\n");
        expect(csv[0]).toBe(
          "day,persona_id,persona_name,endpoint,requests,served,input_tokens,output_tokens,spend,currency",
        );
        expect(csv).toHaveLength(summary.lines.length + 2);
        expect(csv[1]).toBe(
          `2026-10-25,${customer.persona.id},"'=Ada, ""the"" <b>cook",generate,2,2,20,40,0.50,USD`,
        );
        expect(csv.at(-1)).toBe("");
        const page = usagePageBody(summary, [], NOW).value;
        expect(page).toContain("=Ada, &quot;the&quot; &lt;b&gt;cook");
        expect(page).not.toContain("<b>");
        expect(page).toContain('data-chart="requests-by-persona"');
        expect(page).toContain("13.3485 USD");
      });

      it("follows a usage row that is changed afterwards (a settlement reversed)", async () => {
        const row = await services.database
          .selectFrom("usage_records")
          .select(["id"])
          .where("account_id", "=", customer.accountId)
          .where("endpoint", "=", "personify")
          .executeTakeFirstOrThrow();
        await services.billing.balances.reverseSettlement(row.id, 503);
        // The refund entry is dated by the clock; move it to the suite's "today" (an update the totals follow too).
        await services.database
          .updateTable("balance_entries")
          .set({ created_at: at(0, 14) })
          .where("usage_id", "=", row.id)
          .where("kind", "=", "adjustment")
          .execute();
        const summary = await readUsageSummary(services.database, customer.accountId, NOW);
        const line = summary?.lines.find((entry) => entry.endpoint === "personify");
        expect([line?.requests, line?.served, line?.costMicros]).toEqual([1, 0, 0]);
        // The refund is an adjustment entry of today: the balance now and today's end move together.
        expect(summary?.balanceMicros).toBe(13_448_500);
        expect(summary?.balanceCourse.at(-1)?.balanceMicros).toBe(13_448_500);
        expect(summary?.balanceCourse.at(-2)?.balanceMicros).toBe(13_350_000);
      });

      it("answers undefined for an account that does not exist", async () => {
        expect(await readUsageSummary(services.database, randomUUID(), NOW)).toBeUndefined();
      });
    },
  );
}

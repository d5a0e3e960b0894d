import { describe, expect, it } from "vitest";
import { type Ledger, type LedgerOperation, observeLedger } from "./ledger.js";
import { StorageUnavailableError } from "./storage-error.js";

describe("observeLedger", () => {
  it("times each call and passes its result or its error through unchanged", async () => {
    const failure = new StorageUnavailableError("timeout", "no answer in time");
    const inner: Ledger = {
      admit: async () => ({ admitted: true }),
      settle: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return { chargedMicros: 7 };
      },
      release: async () => {
        throw failure;
      },
      record: async () => undefined,
    };
    const seen: Array<{ operation: LedgerOperation; seconds: number; outcome: string }> = [];
    const ledger = observeLedger(inner, (operation, seconds, outcome) =>
      seen.push({ operation, seconds, outcome }),
    );
    const deadline = Date.now() + 1_000;
    expect(await ledger.admit({}, deadline)).toEqual({ admitted: true });
    const settled = await ledger.settle(
      {
        reservationId: null,
        accountId: "a",
        heldMicros: 0,
        costMicros: 7,
        usage: {} as never,
      },
      deadline,
    );
    expect(settled).toEqual({ chargedMicros: 7 });
    await expect(
      ledger.release({ reservationId: "r", accountId: "a", amountMicros: 1 }, deadline),
    ).rejects.toBe(failure);
    expect(seen.map(({ operation, outcome }) => [operation, outcome])).toEqual([
      ["admit", "ok"],
      ["settle", "ok"],
      ["release", "error"],
    ]);
    // Seconds, not milliseconds: the 20 ms settlement is about 0.02.
    expect(seen[1]?.seconds).toBeGreaterThanOrEqual(0.015);
    expect(seen[1]?.seconds).toBeLessThan(5);
  });
});

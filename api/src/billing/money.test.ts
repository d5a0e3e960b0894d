import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatMoney, MAX_MICROS, parseMoney, tokenCost } from "./money.js";

describe("money in micro-units", () => {
  it("parses decimals exactly", () => {
    expect(parseMoney("12.5")).toBe(12_500_000);
    expect(parseMoney("0.000001")).toBe(1);
    expect(parseMoney("10")).toBe(10_000_000);
    expect(parseMoney(" 0.25 ")).toBe(250_000);
  });

  it("refuses what is not a plain amount", () => {
    for (const text of ["", "-1", "1.2345678", "1e3", "abc", "1,5", "0x10", "1.", ".5"]) {
      expect(() => parseMoney(text)).toThrow(RangeError);
    }
    expect(() => parseMoney("999999999999")).toThrow(/too large/u);
  });

  it("formats with at least two decimals and round-trips", () => {
    expect(formatMoney(12_500_000)).toBe("12.50");
    expect(formatMoney(100)).toBe("0.0001");
    expect(formatMoney(-2_500)).toBe("-0.0025");
    expect(formatMoney(0)).toBe("0.00");
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_MICROS }), (micros) => {
        expect(parseMoney(formatMoney(micros))).toBe(micros);
      }),
    );
  });

  it("prices tokens per million, rounding up to a whole micro-unit", () => {
    expect(tokenCost(12, 2_000_000)).toBe(24);
    expect(tokenCost(1, 150_000)).toBe(1);
    expect(tokenCost(0, 150_000)).toBe(0);
    expect(tokenCost(1_000_000, 150_000)).toBe(150_000);
    expect(tokenCost(3, 333_333)).toBe(1);
  });
});

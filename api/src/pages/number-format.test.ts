import { describe, expect, it } from "vitest";
import { formatAmount, formatCount, formatQuantity } from "./number-format.js";

describe("number formats of the pages", () => {
  it("groups thousands in counts", () => {
    expect(formatCount(19_629_976)).toBe("19,629,976");
    expect(formatCount(71_698)).toBe("71,698");
    expect(formatCount(999)).toBe("999");
    expect(formatCount(0)).toBe("0");
    expect(formatCount(2.6)).toBe("3");
  });

  it("groups thousands in amounts and keeps the decimals of formatMoney", () => {
    expect(formatAmount(1_234_500_000)).toBe("1,234.50");
    expect(formatAmount(1_234_567_890_123)).toBe("1,234,567.890123");
    expect(formatAmount(100)).toBe("0.0001");
    expect(formatAmount(999_990_000)).toBe("999.99");
    expect(formatAmount(-12_345_000_000)).toBe("-12,345.00");
  });

  it("writes a count with its noun", () => {
    expect(formatQuantity(1, "request", "requests")).toBe("1 request");
    expect(formatQuantity(0, "request", "requests")).toBe("0 requests");
    expect(formatQuantity(1_200, "request", "requests")).toBe("1,200 requests");
  });
});

import { describe, expect, it } from "vitest";
import { describeReset } from "./reset-time.js";

const at = (iso: string) => Date.parse(iso);
const seconds = (iso: string) => Date.parse(iso) / 1000;

describe("describeReset", () => {
  const now = at("2026-03-06T13:35:20Z");

  it("says a wait within the hour in minutes, rounded up", () => {
    expect(describeReset(seconds("2026-03-06T14:00:00Z"), now)).toBe("in 25 minutes");
    expect(describeReset(seconds("2026-03-06T13:36:00Z"), now)).toBe("in 1 minute");
    expect(describeReset(seconds("2026-03-06T13:35:21Z"), now)).toBe("in 1 minute");
    expect(describeReset(seconds("2026-03-06T14:34:00Z"), now)).toBe("in 59 minutes");
  });

  it("says a time later the same UTC day as a time of day", () => {
    expect(describeReset(seconds("2026-03-06T14:35:20Z"), now)).toBe("at 14:35 UTC");
    expect(describeReset(seconds("2026-03-06T23:59:00Z"), now)).toBe("at 23:59 UTC");
  });

  it("says the next UTC day as tomorrow, never as a count of hours", () => {
    expect(describeReset(seconds("2026-03-07T00:00:00Z"), now)).toBe("tomorrow at 00:00 UTC");
    // A day window that started an hour ago resets 23 hours on: tomorrow, not "in 24 hours".
    expect(describeReset(seconds("2026-03-07T12:35:00Z"), now)).toBe("tomorrow at 12:35 UTC");
    // Just before midnight, a reset 25 minutes later is still a wait.
    expect(describeReset(seconds("2026-03-07T00:00:00Z"), at("2026-03-06T23:35:00Z"))).toBe(
      "in 25 minutes",
    );
  });

  it("gives the date further off, and 'now' for a reset already past", () => {
    expect(describeReset(seconds("2026-03-08T09:30:00Z"), now)).toBe("on 2026-03-08 at 09:30 UTC");
    expect(describeReset(seconds("2026-03-06T13:00:00Z"), now)).toBe("now");
  });
});

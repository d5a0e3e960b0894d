import { describe, expect, it } from "vitest";
import { isLoopbackAddress } from "./metrics-route.js";

describe("isLoopbackAddress (who may scrape /metrics without a token)", () => {
  it("accepts 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6", () => {
    for (const address of ["127.0.0.1", "127.3.2.1", "::1", "::ffff:127.0.0.1"]) {
      expect(isLoopbackAddress(address), address).toBe(true);
    }
  });

  it("refuses every other address, and an unknown one", () => {
    for (const address of [
      "10.0.0.1",
      "192.168.1.20",
      "::ffff:10.0.0.1",
      "fe80::1",
      "1127.0.0.1",
      "",
      undefined,
    ]) {
      expect(isLoopbackAddress(address), String(address)).toBe(false);
    }
  });
});

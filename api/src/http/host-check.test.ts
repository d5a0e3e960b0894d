import { describe, expect, it } from "vitest";
import { createHostCheck, isLoopbackAddress } from "./host-check.js";

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

describe("createHostCheck (DNS-rebinding guard)", () => {
  const allowed = createHostCheck(["persona.test", ".corp.example"]);

  it("answers loopback names and IP addresses, with or without a port", () => {
    for (const host of [
      "localhost",
      "localhost:8787",
      "LOCALHOST:8787",
      "app.localhost:5173",
      "127.0.0.1",
      "127.0.0.1:8787",
      "[::1]",
      "[::1]:8787",
      undefined,
    ]) {
      expect(allowed(host), String(host)).toBe(true);
    }
  });

  it("answers the configured names, a leading dot for subdomains too", () => {
    for (const host of [
      "persona.test",
      "persona.test:8787",
      "corp.example",
      "a.b.corp.example:1",
    ]) {
      expect(allowed(host), host).toBe(true);
    }
  });

  it("refuses any other name", () => {
    for (const host of [
      "evil.example",
      "evil.example:8787",
      "localhost.evil.example",
      "127.0.0.1.evil.example",
      "persona.test.evil.example",
      "notcorp.example",
      "[::1",
      "",
    ]) {
      expect(allowed(host), host).toBe(false);
    }
  });
});

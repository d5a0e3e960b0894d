import { describe, expect, it } from "vitest";
import {
  createHostCheck,
  isLoopbackAddress,
  isLoopbackHost,
  isLoopbackOrigin,
} from "./host-check.js";

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

describe("isLoopbackHost (persona-mcp's Host check: exact loopback names only)", () => {
  it("accepts localhost, 127.0.0.0/8 literals and [::1], with or without a port", () => {
    for (const host of [
      "localhost",
      "LOCALHOST:8788",
      "127.0.0.1",
      "127.0.0.1:8788",
      "127.255.0.9:1",
      "127.1:8788",
      "[::1]",
      "[::1]:8788",
    ]) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
  });

  it("refuses rebinding names that merely start or end like a loopback name", () => {
    for (const host of [
      "127.0.0.1.rebind-x.evil.example",
      "127.0.0.1.rebind-x.evil.example:8788",
      "127.evil.example",
      "localhost.evil.example:8788",
      "evil-localhost:8788",
      "app.localhost:8788",
      "localhost.:8788",
      "10.0.0.1:8788",
      "[::2]:8788",
      "evil@127.0.0.1",
      "127.0.0.1/x",
      "127.0.0.300",
      "",
      undefined,
    ]) {
      expect(isLoopbackHost(host), String(host)).toBe(false);
    }
  });
});

describe("isLoopbackOrigin (a web page's Origin must be served from this computer)", () => {
  it("accepts http(s) origins on loopback names", () => {
    for (const origin of [
      "http://localhost:5173",
      "http://127.0.0.1:8788",
      "https://[::1]:8443",
      "http://LOCALHOST",
    ]) {
      expect(isLoopbackOrigin(origin), origin).toBe(true);
    }
  });

  it("refuses rebinding names, other hosts, null and non-web schemes", () => {
    for (const origin of [
      "http://127.0.0.1.rebind-x.evil.example:8788",
      "https://attacker.example",
      "http://localhost.evil.example",
      "http://192.168.1.5:8788",
      "null",
      "file://",
      "chrome-extension://abc",
      "http://127.0.0.1:8788/path",
      "http://user@127.0.0.1:8788",
    ]) {
      expect(isLoopbackOrigin(origin), origin).toBe(false);
    }
  });
});

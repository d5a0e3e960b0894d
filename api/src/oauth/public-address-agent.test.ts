import { describe, expect, it } from "vitest";
import { parseClientIdUrl } from "./client-id-url.js";
import { freshSecondsOf } from "./client-metadata-document.js";
import { isPublicAddress, publicLookup } from "./public-address-agent.js";

describe("isPublicAddress", () => {
  it.each([
    "127.0.0.1",
    "127.255.0.9",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "100.127.255.254",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "198.18.0.1",
    "::",
    "::1",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "::ffff:8.8.8.8",
    "64:ff9b::a00:1",
    "fc00::1",
    "fd12:3456::1",
    "fe80::1",
    "ff02::1",
    "2001:db8::1",
    "2002:7f00:1::1",
    "not-an-address",
  ])("refuses %s", (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "172.32.0.1",
    "100.128.0.1",
    "93.184.215.14",
    "2606:4700:4700::1111",
    "2a00:1450:4001::200e",
  ])("accepts %s", (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe("publicLookup", () => {
  it("refuses a name that resolves to loopback, whichever form the socket asks for", async () => {
    for (const all of [false, true]) {
      const error = await new Promise<Error | null>((resolve) =>
        publicLookup("localhost", { all }, (failure) => resolve(failure)),
      );
      expect(error?.message).toMatch(
        /^localhost resolves to (127\.0\.0\.1|::1), which is not a public address$/u,
      );
    }
  });
});

describe("parseClientIdUrl", () => {
  it("accepts an https URL with a path", () => {
    expect(parseClientIdUrl("https://app.example/oauth/client.json").host).toBe("app.example");
  });

  it.each([
    ["http://app.example/client.json", /must be https/u],
    ["https://app.example", /must have a path/u],
    ["https://app.example/", /must have a path/u],
    ["https://app.example/client.json#x", /fragment/u],
    ["https://me:pw@app.example/client.json", /user name or password/u],
    ["https://app.example/a/./client.json", /\. or \.\. path segments/u],
    ["https://app.example/a/%2E%2E/client.json", /\. or \.\. path segments/u],
    ["https://", /not a valid URL/u],
  ])("refuses %s", (clientId, why) => {
    expect(() => parseClientIdUrl(clientId)).toThrow(why);
  });
});

describe("freshSecondsOf", () => {
  it("reads max-age, clamped to one minute … one day, ten minutes without", () => {
    expect(freshSecondsOf("public, max-age=300")).toBe(300);
    expect(freshSecondsOf("max-age=5")).toBe(60);
    expect(freshSecondsOf("no-store")).toBe(600);
    expect(freshSecondsOf(null)).toBe(600);
    expect(freshSecondsOf("max-age=9999999")).toBe(86_400);
  });
});

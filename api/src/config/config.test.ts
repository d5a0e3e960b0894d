import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";

const databaseOf = (url: string) => loadConfig({ PERSONA_DATABASE_URL: url }).databasePath;

function refusal(url: string): string {
  try {
    loadConfig({ PERSONA_DATABASE_URL: url });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error(`${url} was accepted`);
}

describe("PERSONA_DATABASE_URL", () => {
  it("takes a path, a file: URL, :memory:, postgres:// and postgresql://", () => {
    expect(databaseOf("./data/store.sqlite")).toBe(path.resolve("data/store.sqlite"));
    expect(databaseOf("/var/lib/persona/store.sqlite")).toBe("/var/lib/persona/store.sqlite");
    expect(databaseOf("store.sqlite")).toBe(path.resolve("store.sqlite"));
    expect(databaseOf("file:./data/store.sqlite")).toBe(path.resolve("data/store.sqlite"));
    expect(databaseOf("file:///var/lib/persona/store.sqlite")).toBe(
      "/var/lib/persona/store.sqlite",
    );
    expect(databaseOf(":memory:")).toBe(":memory:");
    expect(databaseOf("postgres://persona:pw@db:5432/persona")).toBe(
      "postgres://persona:pw@db:5432/persona",
    );
    expect(databaseOf("POSTGRESQL://db/persona")).toBe("POSTGRESQL://db/persona");
  });

  it.each([
    ["a misspelt scheme", "postgress://persona:Hunter2Secret@db/persona", "postgress:"],
    ["another database", "mysql://u:S3cretPw42@h/db", "mysql:"],
    ["a password holding @ and /", "mysql://u:S3c@ret/Pw42@h/db", "mysql:"],
    ["postgres without //", "postgres:S3cretPw42", "postgres:"],
    ["an http URL", "https://user:S3cretPw42@example.com/db", "https:"],
    ["an empty file: URL", "file:", "file:"],
    ["a file URL on another host", "file://other.example/db.sqlite", "file:"],
  ])("refuses %s, naming the variable and the scheme, never the password", (_name, url, scheme) => {
    const message = refusal(url);
    expect(message).toMatch(/^PERSONA_DATABASE_URL: /u);
    expect(message).toContain(scheme);
    expect(message).not.toMatch(/S3c|Hunter2/u);
    expect(message).not.toMatch(/ret\/Pw42/u);
  });
});

describe("PERSONA_DEMO_EMAIL (the address the demo seed allows to sign in)", () => {
  it("defaults to a local address the sign-in form accepts; empty means none", () => {
    expect(loadConfig({}).PERSONA_DEMO_EMAIL).toBe("you@persona.localhost");
    expect(loadConfig({ PERSONA_DEMO_EMAIL: "" }).PERSONA_DEMO_EMAIL).toBeNull();
    expect(loadConfig({ PERSONA_DEMO_EMAIL: " Ops@Example.TEST " }).PERSONA_DEMO_EMAIL).toBe(
      "ops@example.test",
    );
  });

  it("names the variable when the value is no address", () => {
    expect(() => loadConfig({ PERSONA_DEMO_EMAIL: "nope" })).toThrow(
      "PERSONA_DEMO_EMAIL: must be an e-mail address, or empty for none",
    );
  });
});

describe("PERSONA_USAGE_RETENTION_DAYS", () => {
  const days = (value?: string) =>
    loadConfig(value === undefined ? {} : { PERSONA_USAGE_RETENTION_DAYS: value })
      .PERSONA_USAGE_RETENTION_DAYS;

  it("keeps 90 days by default; a number of days; 0 or off keeps everything", () => {
    expect(days()).toBe(90);
    expect(days("30")).toBe(30);
    expect(days("0")).toBeNull();
    expect(days("off")).toBeNull();
    expect(days(" OFF ")).toBeNull();
  });

  it("refuses anything else, naming the variable", () => {
    for (const value of ["-1", "1.5", "never", ""]) {
      expect(() => days(value)).toThrow(/PERSONA_USAGE_RETENTION_DAYS/u);
    }
  });
});

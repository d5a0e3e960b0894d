import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ADMIN_SCRIPT, MAIN_SCRIPT } from "../../test-support/spawn-service.js";

// A bad configuration stops start-up (exit 78) before anything is
// created on disk, and the operator CLI's --help, --version and argument
// errors open no store.

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) {
    fs.rmSync(directory, { recursive: true, force: true });
  }
});

/** Runs a built script in a fresh empty folder, with no PERSONA_* variable but `environment`. */
function runIn(script: string, args: string[], environment: Record<string, string> = {}) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-config-"));
  directories.push(directory);
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("PERSONA_") && name !== "PORT"),
  );
  const result = spawnSync(process.execPath, [script, ...args], {
    cwd: directory,
    env: { ...inherited, PERSONA_PORT: "0", PERSONA_LOG_LEVEL: "silent", ...environment },
    encoding: "utf8",
    timeout: 20_000,
  });
  return {
    code: result.status,
    output: `${result.stdout}${result.stderr}`,
    created: fs.readdirSync(directory, { recursive: true }).map(String),
  };
}

const BAD_URLS = [
  ["a misspelt postgres scheme", "postgress://persona:Hunter2Secret@127.0.0.1/persona"],
  ["a MySQL URL", "mysql://u:S3cretPw42@h/db"],
];

describe("a database URL of another scheme stops start-up", () => {
  for (const [name, url] of BAD_URLS) {
    for (const [program, script, args] of [
      ["the service", MAIN_SCRIPT, []],
      ["persona-admin", ADMIN_SCRIPT, ["account", "list"]],
    ] as const) {
      it(`${program}: ${name} → exit 78, the password masked, nothing created`, () => {
        const result = runIn(script, [...args], { PERSONA_DATABASE_URL: url ?? "" });
        expect(result.code, result.output).toBe(78);
        expect(result.output).toMatch(/PERSONA_DATABASE_URL: unsupported scheme/u);
        expect(result.output).not.toMatch(/Hunter2Secret|S3cretPw42/u);
        expect(result.created).toEqual([]);
      });
    }
  }

  it("the service: any bad variable → exit 78 and nothing created", () => {
    const result = runIn(MAIN_SCRIPT, [], { PERSONA_BODY_LIMIT_BYTES: "lots" });
    expect(result.code, result.output).toBe(78);
    expect(result.output).toMatch(/PERSONA_BODY_LIMIT_BYTES/u);
    expect(result.created).toEqual([]);
  });
});

describe("persona-admin has no side effects before a command runs", () => {
  it.each([
    ["--help", ["--help"], 0, /Usage: persona-admin/u],
    ["help of a subcommand", ["key", "--help"], 0, /Usage: persona-admin key/u],
    ["--version", ["--version"], 0, /\d+\.\d+\.\d+/u],
    ["an unknown command", ["frobnicate"], 1, /unknown command/u],
    ["a missing option", ["key", "create"], 1, /required option/u],
    ["no command", [], 1, /Usage: persona-admin/u],
  ])("%s creates no file", (_name, args, code, output) => {
    const result = runIn(ADMIN_SCRIPT, args);
    expect(result.code, result.output).toBe(code);
    expect(result.output).toMatch(output);
    expect(result.created).toEqual([]);
  });

  it("help even with a bad configuration, which only a command needs", () => {
    const result = runIn(ADMIN_SCRIPT, ["--help"], { PERSONA_DATABASE_URL: "mysql://u:pw@h/db" });
    expect(result.code, result.output).toBe(0);
    expect(result.created).toEqual([]);
  });

  it("a command still opens the store", () => {
    const result = runIn(ADMIN_SCRIPT, ["account", "list"]);
    expect(result.code, result.output).toBe(0);
    expect(result.output.trim()).toBe("[]");
    expect(result.created).toContain(path.join("data", "persona-reply.sqlite"));
  });
});

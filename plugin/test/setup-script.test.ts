import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SETUP_SCRIPT } from "./support/plugin-files.js";
import { snapshot, startSetup } from "./support/setup-process.js";

// The built setup script as its own process, for every way it stops
// without a browser: refusals, usage errors, a timeout and Ctrl-C. None of
// them may change a file. (The approvals and the denial are in
// setup-browser.test.ts.)

let home: string;
let project: string;
let env: Record<string, string>;

beforeEach(() => {
  home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "persona-plugin-setup-")));
  project = path.join(home, "project");
  fs.mkdirSync(path.join(project, ".git"), { recursive: true });
  env = { HOME: home, XDG_CONFIG_HOME: path.join(home, "config") };
});

afterEach(() => {
  fs.rmSync(home, { recursive: true, force: true });
});

/** A key-shaped value made at run time; the script never sees it except in the file. */
function fakeKey(): string {
  return `prk_${randomBytes(32).toString("base64url").replace(/[-_]/gu, "x").slice(0, 38)}`;
}

describe("the setup script, stopping before a key is written", () => {
  it("refuses a file that already holds a key without --force, before any login", async () => {
    const key = fakeKey();
    fs.writeFileSync(path.join(project, ".env"), `PORT=3000\nSERVICE_API_KEY=${key}\n`);
    const before = snapshot(project);
    const run = startSetup(
      ["--env-file", ".env", "--source", "claude_code", "--yes"],
      env,
      project,
    );
    expect(await run.exit).toBe(3);
    expect(run.stderr()).toContain(
      `Persona Reply setup: the new API key will be written to ${path.join(project, ".env")}`,
    );
    expect(run.stderr()).toContain(
      `already holds a SERVICE_API_KEY (prk_…${key.slice(-4)}); nothing was changed`,
    );
    expect(run.stderr()).toContain("--force");
    expect(run.stderr()).not.toContain("/api/persona/cli/login");
    expect(run.stdout() + run.stderr()).not.toContain(key);
    expect(snapshot(project)).toEqual(before);
  });

  it("states the absolute destination first and, without --yes and a terminal, writes nothing", async () => {
    const run = startSetup(["--env-file", "config/../.env", "--source", "codex"], env, project);
    expect(await run.exit).toBe(3);
    const lines = run.stderr().split("\n");
    expect(lines[0]).toBe(
      `Persona Reply setup: the new API key will be written to ${path.join(project, ".env")} as SERVICE_API_KEY (a new file, mode 0600).`,
    );
    expect(run.stderr()).toMatch(/Not confirmed: .*run again with --yes/u);
    expect(fs.readdirSync(project)).toEqual([".git"]);
  });

  it("stops after the timeout with a clear message and no file", { timeout: 30_000 }, async () => {
    const run = startSetup(
      [
        "--env-file",
        path.join(project, ".env"),
        "--source",
        "claude_code",
        "--yes",
        "--timeout",
        "1",
      ],
      env,
      project,
    );
    expect(await run.exit).toBe(6);
    expect(run.stderr()).toContain("Waiting for approval in the browser");
    expect(run.stderr()).toMatch(
      /No approval arrived from the browser within 1 s; nothing was written/u,
    );
    expect(fs.readdirSync(project)).toEqual([".git"]);
  });

  it("stops on Ctrl-C while waiting for the browser and leaves the file as it was", {
    timeout: 30_000,
  }, async () => {
    fs.writeFileSync(path.join(project, ".env"), "PORT=3000\n", { mode: 0o644 });
    const before = snapshot(project);
    const run = startSetup(
      [
        "--env-file",
        ".env",
        "--source",
        "claude_code",
        "--yes",
        "--persona-id",
        "3bee94bc-c62f-4582-9fa6-2c47d62ac431",
      ],
      env,
      project,
    );
    await run.url;
    await expect.poll(() => run.stderr()).toContain("Waiting for approval in the browser");
    run.child.kill("SIGINT");
    expect(await run.exit).toBe(130);
    expect(run.stderr()).toContain("Cancelled: nothing was written.");
    expect(snapshot(project)).toEqual(before);
  });

  it("exits 143 on SIGTERM, with nothing written", { timeout: 30_000 }, async () => {
    const run = startSetup(["--env-file", ".env", "--source", "codex", "--yes"], env, project);
    await run.url;
    run.child.kill("SIGTERM");
    expect(await run.exit).toBe(143);
    expect(fs.readdirSync(project)).toEqual([".git"]);
  });

  it.each([
    [["--source", "claude_code"], /--env-file is required/u],
    [["--env-file", ".env", "--source", "cli"], /--source must be one of claude_code, codex/u],
    [
      ["--env-file", ".env", "--source", "codex", "--api-key", "x"],
      /never goes on the command line/u,
    ],
  ])("refuses the command line %j with exit code 2", async (args, message) => {
    const run = startSetup(args, env, project);
    expect(await run.exit).toBe(2);
    expect(run.stderr()).toMatch(message);
    expect(fs.readdirSync(project)).toEqual([".git"]);
  });

  it("refuses a folder as the destination", async () => {
    const run = startSetup(["--env-file", ".git", "--source", "codex", "--yes"], env, project);
    expect(await run.exit).toBe(2);
    expect(run.stderr()).toMatch(/is not a regular file \(it is a folder\)/u);
  });

  it("runs as an executable whose --env-file names a missing file (Node does not take the flag)", () => {
    // Without the `--` in the shebang, Node would exit 9 with "node: .env: not found".
    const result = spawnSync(SETUP_SCRIPT, ["--env-file", ".env", "--source", "codex"], {
      cwd: project,
      env: { PATH: process.env.PATH ?? "", ...env },
      encoding: "utf8",
    });
    expect(result.stderr).not.toContain("not found");
    expect(result.stderr).toMatch(/Not confirmed/u);
    expect(result.status).toBe(3);
  });

  it("prints its usage with --help", async () => {
    const run = startSetup(["--help"], env, project);
    expect(await run.exit).toBe(0);
    expect(run.stdout()).toContain(
      "Usage: persona-plugin-setup --env-file <path> --source <claude_code|codex>",
    );
  });
});

import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveRepositoryOverHttp } from "./support/git-http-server.js";
import {
  CLAUDE_CLI,
  copyCommittedPlugin,
  PLUGIN_ROOT,
  type PluginCopy,
  REPOSITORY_ROOT,
} from "./support/plugin-files.js";

// The real Claude Code CLI, pinned as a devDependency (2.1.112: the newest
// release that is plain JavaScript, runs on Node 20 and installs without
// fetching a native binary). It runs offline: its own config folder and
// HOME, no auto-update, no telemetry or other non-essential traffic.
//
// 2.1.112 has no `--strict` flag (later releases add it and need Node 22 or
// a native binary), so these tests apply what --strict means themselves:
// validation must pass with no warnings at all.

let home: string;
let copy: PluginCopy;

beforeAll(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "persona-plugin-claude-"));
  fs.mkdirSync(path.join(home, "project"));
  copy = copyCommittedPlugin();
});

afterAll(() => {
  fs.rmSync(home, { recursive: true, force: true });
  copy?.remove();
});

function offlineEnvironment(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, "config"),
    CLAUDE_CONFIG_DIR: path.join(home, "claude"),
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  };
}

function claude(args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLAUDE_CLI, ...args], {
      cwd,
      env: offlineEnvironment(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (data: Buffer) => {
      output += data.toString("utf8");
    });
    child.stderr.on("data", (data: Buffer) => {
      output += data.toString("utf8");
    });
    child.once("close", (code) => resolve({ code, output }));
  });
}

describe("Claude Code 2.1.112 (pinned)", () => {
  it("is the pinned version", async () => {
    const { code, output } = await claude(["--version"], home);
    expect(code).toBe(0);
    expect(output).toMatch(/^2\.1\.112 \(Claude Code\)/u);
  });

  it("validates the plugin (manifest, skill, command) with no error and no warning", {
    timeout: 60_000,
  }, async () => {
    const { code, output } = await claude(["plugin", "validate", PLUGIN_ROOT], home);
    expect(output).toContain("Validating plugin manifest");
    expect(output).toContain("✔ Validation passed");
    expect(output).not.toMatch(/⚠|✘|Found \d+ (warning|error)/u);
    expect(code).toBe(0);
  });

  it("validates the repository's marketplace with no error and no warning", {
    timeout: 60_000,
  }, async () => {
    const { code, output } = await claude(["plugin", "validate", REPOSITORY_ROOT], home);
    expect(output).toContain("Validating marketplace manifest");
    expect(output).toContain("✔ Validation passed");
    expect(output).not.toMatch(/⚠|✘|Found \d+ (warning|error)/u);
    expect(code).toBe(0);
  });

  it("loads the plugin's committed files alone with --plugin-dir and connects to its bundled MCP server", {
    timeout: 60_000,
  }, async () => {
    const { code, output } = await claude(
      ["--plugin-dir", copy.root, "mcp", "list"],
      path.join(home, "project"),
    );
    expect(code).toBe(0);
    expect(output).toContain(
      `plugin:persona:persona: node ${path.join(copy.root, "bundle", "persona-mcp.mjs")} - ✓ Connected`,
    );
  });

  it("adds this repository by its Git URL as a marketplace, installs the plugin, and runs its MCP server from the plugin cache", {
    timeout: 120_000,
  }, async () => {
    // As the README says: /plugin marketplace add <git URL>, /plugin install persona@persona-reply.
    const gitFolder = fs.mkdtempSync(path.join(os.tmpdir(), "persona-plugin-git-"));
    const repository = await serveRepositoryOverHttp(REPOSITORY_ROOT, gitFolder);
    try {
      const added = await claude(["plugin", "marketplace", "add", repository.url], home);
      expect(added.output).toContain("Successfully added marketplace: persona-reply");
      const installed = await claude(["plugin", "install", "persona@persona-reply"], home);
      expect(installed.output).toContain("Successfully installed plugin: persona@persona-reply");
      expect(installed.code).toBe(0);
    } finally {
      await repository.close();
      fs.rmSync(gitFolder, { recursive: true, force: true });
    }
    // The marketplace's clone is Claude Code's own; the plugin runs from its cache.
    const cache = path.join(home, "claude", "plugins", "cache", "persona-reply", "persona");
    const [version] = fs.readdirSync(cache);
    const listed = await claude(["mcp", "list"], path.join(home, "project"));
    expect(listed.output).toContain(
      `plugin:persona:persona: node ${path.join(cache, String(version), "bundle", "persona-mcp.mjs")} - ✓ Connected`,
    );
  });
});

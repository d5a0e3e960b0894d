import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connectStdio, isolatedEnvironment, MCP_MAIN } from "./support/mcp-connection.js";
import { defineToolSuite } from "./support/tool-suite.js";

// The SDK's StdioClientTransport spawns the built persona-mcp, as Claude
// Code, Codex and other agents do.
defineToolSuite("stdio", connectStdio);

describe("persona-mcp on stdio, given a message over the 10 MiB limit", () => {
  let home: string;

  beforeEach(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), "persona-mcp-stdio-"));
  });

  afterEach(() => {
    fs.rmSync(home, { recursive: true, force: true });
  });

  it("answers a JSON-RPC error with id null, logs why, and exits non-zero", {
    timeout: 60_000,
  }, async () => {
    const child = spawn(process.execPath, [MCP_MAIN], {
      env: isolatedEnvironment(home),
      cwd: home,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (data: Buffer) => {
      stdout += data.toString("utf8");
    });
    child.stderr.on("data", (data: Buffer) => {
      stderr += data.toString("utf8");
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    // The server stops reading once the limit is passed, so the pipe may break before all is written.
    child.stdin.on("error", () => {});
    const huge = JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "personify", arguments: { raw: "x".repeat(11 * 1024 * 1024) } },
    });
    child.stdin.write(`${huge}\n`);
    const code = await exited;
    child.stdin.destroy();

    expect(code).toBe(1);
    const answers = stdout
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as unknown);
    expect(answers).toContainEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32600,
        message: expect.stringContaining("longer than 10 MiB"),
      },
    });
    expect(stderr).toMatch(/error: a message on standard input was longer than 10 MiB/u);
  });
});

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type ApiFixture, startApi } from "../../test-support/spawn-service.js";
import { connectAsMcpJsonSays, connectStdio } from "./support/mcp-json.js";
import {
  copyCommittedPlugin,
  type PluginCopy,
  readPluginJson,
  SETUP_PROGRAM,
} from "./support/plugin-files.js";

// The plugin as a marketplace install leaves it: the committed files of
// plugin/ alone, copied to an empty folder outside the repository (no
// node_modules anywhere above it, no mcp-server/ beside it, no build). The
// MCP server is started exactly as .mcp.json (Claude Code) and
// codex-mcp.json (Codex) say, with nothing but PATH and HOME from the
// agent, and answers tools/list and a generate call against the real
// service. The setup program's browser approval from such a copy is in
// setup-browser.test.ts.

let copy: PluginCopy;
let api: ApiFixture;
let home: string;
let project: string;

beforeAll(async () => {
  copy = copyCommittedPlugin();
  api = await startApi();
  home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "persona-plugin-alone-")));
  project = path.join(home, "project");
  fs.mkdirSync(project);
});

afterAll(async () => {
  await api?.stop();
  copy?.remove();
  if (home !== undefined) fs.rmSync(home, { recursive: true, force: true });
});

function agentEnvironment(): Record<string, string> {
  return { PATH: process.env.PATH ?? "", HOME: home, XDG_CONFIG_HOME: path.join(home, "config") };
}

const toolResult = z.object({
  isError: z.boolean().optional(),
  structuredContent: z.object({ finalReply: z.string().min(1), chunks: z.array(z.string()) }),
});

describe("the plugin folder alone", () => {
  it("holds the bundled programs and no dependencies", () => {
    expect(copy.files).toContain(path.join("bundle", "persona-mcp.mjs"));
    expect(copy.files).toContain(SETUP_PROGRAM);
    expect(copy.files.some((file) => file.split(path.sep).includes("node_modules"))).toBe(false);
    expect(fs.existsSync(path.join(copy.root, "dist"))).toBe(false);
  });

  it("serves tools/list and generate as .mcp.json starts it, with the key from the project's .env", {
    timeout: 60_000,
  }, async () => {
    fs.writeFileSync(
      path.join(project, ".env"),
      `SERVICE_API_KEY=${api.apiKey}\nSERVICE_PERSONA_ID=${api.personaId}\nSERVICE_BASE_URL=${api.baseUrl}\n`,
      { mode: 0o600 },
    );
    const connection = await connectAsMcpJsonSays(agentEnvironment(), project, copy.root);
    try {
      expect(connection.launch.args).toEqual([path.join(copy.root, "bundle", "persona-mcp.mjs")]);
      const { tools } = await connection.client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(["generate", "personify"]);
      const result = toolResult.parse(
        await connection.client.callTool({
          name: "generate",
          arguments: { message: "Which herbs grow well on a balcony?" },
        }),
      );
      expect(result.isError).not.toBe(true);
      expect(result.structuredContent.chunks.length).toBeGreaterThan(0);
      expect(connection.stderr().includes(api.apiKey)).toBe(false);
    } finally {
      await connection.close();
      fs.rmSync(path.join(project, ".env"));
    }
  });

  it("serves generate as codex-mcp.json starts it (cwd relative to the plugin), with the forwarded variables", {
    timeout: 60_000,
  }, async () => {
    const manifest = readPluginJson(".codex-plugin/plugin.json", copy.root) as {
      mcpServers: string;
    };
    const codex = readPluginJson(manifest.mcpServers, copy.root) as {
      mcpServers: {
        persona: { command: string; args: string[]; cwd: string; env_vars: string[] };
      };
    };
    const server = codex.mcpServers.persona;
    const forwarded: Record<string, string> = {
      SERVICE_API_KEY: api.apiKey,
      SERVICE_PERSONA_ID: api.personaId,
      SERVICE_BASE_URL: api.baseUrl,
    };
    const environment = agentEnvironment();
    for (const name of server.env_vars) environment[name] = forwarded[name] ?? "";
    const connection = await connectStdio(
      { command: server.command, args: server.args, env: {} },
      environment,
      path.resolve(copy.root, server.cwd),
    );
    try {
      const result = toolResult.parse(
        await connection.client.callTool({ name: "generate", arguments: { message: "Hello!" } }),
      );
      expect(result.isError).not.toBe(true);
    } finally {
      await connection.close();
    }
  });

  it("runs the setup program with Node alone", () => {
    const result = spawnSync(
      process.execPath,
      ["--", path.join(copy.root, SETUP_PROGRAM), "--help"],
      {
        cwd: project,
        env: agentEnvironment(),
        encoding: "utf8",
      },
    );
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain("Usage: persona-plugin-setup");
    expect(result.status).toBe(0);
  });
});

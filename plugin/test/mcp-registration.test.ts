import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectAsMcpJsonSays } from "./support/mcp-json.js";
import { copyCommittedPlugin, type PluginCopy, readPluginJson } from "./support/plugin-files.js";

// persona-mcp started exactly as the plugin's .mcp.json says (command,
// arguments, ${CLAUDE_PLUGIN_ROOT} and ${VAR:-} substitution, in the project
// folder), as Claude Code does, with nothing configured yet — from a copy of
// the plugin's committed files alone, as a marketplace install leaves them.

let home: string;
let project: string;
let copy: PluginCopy;

beforeAll(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "persona-plugin-mcp-"));
  project = path.join(home, "project");
  fs.mkdirSync(project);
  copy = copyCommittedPlugin();
});

afterAll(() => {
  fs.rmSync(home, { recursive: true, force: true });
  copy?.remove();
});

function agentEnvironment(): Record<string, string> {
  return { PATH: process.env.PATH ?? "", HOME: home, XDG_CONFIG_HOME: path.join(home, "config") };
}

describe("the MCP server as .mcp.json starts it", () => {
  it("lists generate and personify, with tool names Claude Code can use", {
    timeout: 30_000,
  }, async () => {
    const connection = await connectAsMcpJsonSays(agentEnvironment(), project, copy.root);
    try {
      const { tools } = await connection.client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(["generate", "personify"]);
      const plugin = (readPluginJson(".claude-plugin/plugin.json") as { name: string }).name;
      for (const tool of tools) {
        // Claude Code names plugin tools mcp__plugin_<plugin>_<server>__<tool>; the limit is 64.
        const name = `mcp__plugin_${plugin}_persona__${tool.name}`;
        expect(name.length).toBeLessThan(64);
        expect(name).toMatch(/^[a-zA-Z0-9_-]+$/u);
        expect(tool.description?.length ?? 0).toBeGreaterThan(0);
      }
    } finally {
      await connection.close();
    }
  });

  it("answers a call before the setup with instructions that point to the setup command", {
    timeout: 30_000,
  }, async () => {
    const connection = await connectAsMcpJsonSays(agentEnvironment(), project, copy.root);
    try {
      const result = await connection.client.callTool({
        name: "generate",
        arguments: { message: "Hello!" },
      });
      expect(result.isError).toBe(true);
      const text = (result.content as Array<{ type: string; text?: string }>)
        .map((part) => part.text ?? "")
        .join("\n");
      expect(text).toContain("not set up");
      expect(text).toContain(path.join(project, ".env"));
      expect(text).toMatch(/setup command/u);
    } finally {
      await connection.close();
    }
  });
});

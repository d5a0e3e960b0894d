import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";

/** The plugin folder (what `claude --plugin-dir plugin` loads). */
export const PLUGIN_ROOT = path.resolve(fileURLToPath(new URL("../..", import.meta.url)));
/** The repository root (what `claude plugin marketplace add` is given). */
export const REPOSITORY_ROOT = path.dirname(PLUGIN_ROOT);
/** The built setup script, as the setup command runs it. */
export const SETUP_SCRIPT = path.join(PLUGIN_ROOT, "dist", "setup", "main.js");
/** The pinned Claude Code CLI (devDependency `@anthropic-ai/claude-code`). */
export const CLAUDE_CLI = path.join(
  REPOSITORY_ROOT,
  "node_modules",
  "@anthropic-ai",
  "claude-code",
  "cli.js",
);

/** Reads a JSON file of the plugin (path relative to the plugin folder). */
export function readPluginJson(relativePath: string): unknown {
  return JSON.parse(fs.readFileSync(path.join(PLUGIN_ROOT, relativePath), "utf8"));
}

/** A Markdown file split into its YAML frontmatter (parsed) and its body. */
export function readFrontmatter(relativePath: string): { data: unknown; body: string } {
  const text = fs.readFileSync(path.join(PLUGIN_ROOT, relativePath), "utf8");
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n([\s\S]*)$/u.exec(text);
  if (match === null) throw new Error(`${relativePath} has no YAML frontmatter`);
  return { data: parseYaml(match[1] ?? ""), body: match[2] ?? "" };
}

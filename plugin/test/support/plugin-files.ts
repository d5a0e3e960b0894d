import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";

/** The plugin folder (what `claude --plugin-dir plugin` loads). */
export const PLUGIN_ROOT = path.resolve(fileURLToPath(new URL("../..", import.meta.url)));
/** The repository root (what `claude plugin marketplace add` is given). */
export const REPOSITORY_ROOT = path.dirname(PLUGIN_ROOT);
/** The committed, bundled setup program (relative to a plugin folder), as the setup command runs it. */
export const SETUP_PROGRAM = path.join("bundle", "setup.mjs");
/** The setup program of this checkout's plugin folder. */
export const SETUP_SCRIPT = path.join(PLUGIN_ROOT, SETUP_PROGRAM);
/** The pinned Claude Code CLI (devDependency `@anthropic-ai/claude-code`). */
export const CLAUDE_CLI = path.join(
  REPOSITORY_ROOT,
  "node_modules",
  "@anthropic-ai",
  "claude-code",
  "cli.js",
);

/** Reads a JSON file of the plugin (path relative to the plugin folder; this checkout's by default). */
export function readPluginJson(relativePath: string, pluginRoot = PLUGIN_ROOT): unknown {
  return JSON.parse(fs.readFileSync(path.join(pluginRoot, relativePath), "utf8"));
}

/** A copy of the plugin folder's committed files, alone, outside the repository. */
export interface PluginCopy {
  /** The copied plugin folder (what `${CLAUDE_PLUGIN_ROOT}` names for an installed plugin). */
  root: string;
  /** The copied files, relative to {@link root}. */
  files: string[];
  remove(): void;
}

/**
 * Copies the files git tracks under `plugin/` — what a fresh clone has, and
 * what a marketplace install copies into the agent's plugin cache — into an
 * empty folder under the system's temporary folder: no `node_modules`, no
 * `dist/`, no sibling packages. Contents are the working tree's, so a
 * bundle rebuilt but not yet committed is what gets tested.
 *
 * @throws {Error} when a folder above the copy holds a `node_modules`
 *   (the copy would not be alone)
 */
export function copyCommittedPlugin(): PluginCopy {
  const listed = execFileSync("git", ["ls-files", "-z", "--", "plugin"], {
    cwd: REPOSITORY_ROOT,
    encoding: "utf8",
  });
  const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "persona-plugin-copy-")));
  const root = path.join(home, "persona");
  const files: string[] = [];
  for (const tracked of listed.split("\0").filter((entry) => entry !== "")) {
    const source = path.join(REPOSITORY_ROOT, tracked);
    if (!fs.existsSync(source)) continue;
    const relative = path.relative(PLUGIN_ROOT, source);
    const target = path.join(root, relative);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(source, target);
    fs.chmodSync(target, fs.statSync(source).mode & 0o777);
    files.push(relative);
  }
  for (let folder = root; ; folder = path.dirname(folder)) {
    if (fs.existsSync(path.join(folder, "node_modules"))) {
      throw new Error(`${folder} holds a node_modules folder: the plugin copy would not be alone`);
    }
    if (path.dirname(folder) === folder) break;
  }
  return { root, files, remove: () => fs.rmSync(home, { recursive: true, force: true }) };
}

/** A Markdown file of the plugin split into its YAML frontmatter (parsed) and its body. */
export function readFrontmatter(
  relativePath: string,
  pluginRoot = PLUGIN_ROOT,
): { data: unknown; body: string } {
  const text = fs.readFileSync(path.join(pluginRoot, relativePath), "utf8");
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n([\s\S]*)$/u.exec(text);
  if (match === null) throw new Error(`${relativePath} has no YAML frontmatter`);
  return { data: parseYaml(match[1] ?? ""), body: match[2] ?? "" };
}

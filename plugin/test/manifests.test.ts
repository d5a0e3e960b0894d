import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { expandedServer, mcpJsonSchema } from "./support/mcp-json.js";
import {
  PLUGIN_ROOT,
  REPOSITORY_ROOT,
  readFrontmatter,
  readPluginJson,
  SETUP_PROGRAM,
} from "./support/plugin-files.js";

// Schema checks of every manifest against the fields their hosts document:
// Claude Code's plugins reference (plugin.json, marketplace.json, commands),
// OpenAI's Codex plugin manifest spec (.codex-plugin/plugin.json, plugin MCP
// files) and the Agent Skills specification (SKILL.md frontmatter). Every
// object is strict, so a misspelt or undocumented field fails here.

const kebabName = z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/u, "kebab-case");
const semver = z.string().regex(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/u, "semantic version");
const author = z.strictObject({
  name: z.string().min(1),
  email: z.string().email().optional(),
  url: z.string().url().optional(),
});
const componentPaths = z.union([
  z.string(),
  z.array(z.string()),
  z.record(z.string(), z.unknown()),
]);

/** `.claude-plugin/plugin.json` (Claude Code plugins reference, "Plugin manifest schema"). */
const claudePluginSchema = z.strictObject({
  name: kebabName,
  version: semver.optional(),
  description: z.string().min(1).optional(),
  author: author.optional(),
  homepage: z.string().url().optional(),
  repository: z.string().optional(),
  license: z.string().optional(),
  keywords: z.array(z.string()).optional(),
  commands: componentPaths.optional(),
  agents: componentPaths.optional(),
  skills: componentPaths.optional(),
  hooks: componentPaths.optional(),
  mcpServers: componentPaths.optional(),
  outputStyles: componentPaths.optional(),
  lspServers: componentPaths.optional(),
});

/** `.claude-plugin/marketplace.json` (Claude Code docs, "Plugin marketplaces"). */
const marketplaceSchema = z.strictObject({
  name: kebabName,
  owner: z.strictObject({ name: z.string().min(1), email: z.string().email().optional() }),
  metadata: z
    .strictObject({
      description: z.string().optional(),
      version: semver.optional(),
      pluginRoot: z.string().optional(),
    })
    .optional(),
  plugins: z
    .array(
      z.strictObject({
        name: kebabName,
        source: z.union([z.string().startsWith("./"), z.record(z.string(), z.unknown())]),
        description: z.string().optional(),
        version: semver.optional(),
        author: author.optional(),
        homepage: z.string().url().optional(),
        repository: z.string().optional(),
        license: z.string().optional(),
        keywords: z.array(z.string()).optional(),
        category: z.string().optional(),
        tags: z.array(z.string()).optional(),
        strict: z.boolean().optional(),
      }),
    )
    .min(1),
});

/** A path inside a Codex plugin: `./`-prefixed, relative, never leaving the plugin folder. */
const codexPath = z
  .string()
  .startsWith("./")
  .refine((value) => !value.split("/").includes(".."), "must not leave the plugin folder");

/** `.codex-plugin/plugin.json` (OpenAI Codex docs, "Build plugins"; the plugin-json spec). */
const codexPluginSchema = z.strictObject({
  name: kebabName,
  version: semver.optional(),
  description: z.string().min(1).optional(),
  author: author.optional(),
  homepage: z.string().url().optional(),
  repository: z.string().optional(),
  license: z.string().optional(),
  keywords: z.array(z.string()).optional(),
  skills: z.union([codexPath, z.array(codexPath)]).optional(),
  hooks: codexPath.optional(),
  mcpServers: z.union([codexPath, z.record(z.string(), z.unknown())]).optional(),
  apps: codexPath.optional(),
  interface: z
    .strictObject({
      displayName: z.string().min(1),
      shortDescription: z.string().min(1).optional(),
      longDescription: z.string().min(1).optional(),
      developerName: z.string().min(1).optional(),
      category: z.string().min(1).optional(),
      capabilities: z.array(z.string().min(1)).optional(),
      websiteURL: z.string().url().optional(),
      privacyPolicyURL: z.string().url().optional(),
      termsOfServiceURL: z.string().url().optional(),
      // At most three starter prompts of at most 128 characters each.
      defaultPrompt: z
        .union([z.string().max(128), z.array(z.string().min(1).max(128)).max(3)])
        .optional(),
      brandColor: z
        .string()
        .regex(/^#[0-9A-Fa-f]{6}$/u)
        .optional(),
      composerIcon: codexPath.optional(),
      logo: codexPath.optional(),
      screenshots: z.array(codexPath).optional(),
    })
    .optional(),
});

/** A stdio server of a Codex plugin's MCP file: no `${VAR}` (Codex does not expand), variables forwarded by name. */
const codexMcpSchema = z.strictObject({
  mcpServers: z.record(
    z.string(),
    z.strictObject({
      command: z
        .string()
        .refine(
          (command) => command.startsWith("./") || !command.includes("/"),
          "a command on PATH or a ./ path inside the plugin",
        ),
      args: z.array(z.string()).optional(),
      env: z.record(z.string(), z.string()).optional(),
      env_vars: z.array(z.string().regex(/^[A-Z_][A-Z0-9_]*$/u)).optional(),
      // Relative: Codex resolves it against the plugin's folder and refuses `..`.
      cwd: z
        .string()
        .refine(
          (cwd) => !path.isAbsolute(cwd) && !cwd.split("/").includes(".."),
          "a folder inside the plugin",
        )
        .optional(),
    }),
  ),
});

/** SKILL.md frontmatter (Agent Skills specification). */
const skillFrontmatterSchema = z.strictObject({
  name: z
    .string()
    .max(64)
    .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/u),
  description: z
    .string()
    .min(1)
    .max(1024)
    .refine((text) => !/[<>]/u.test(text), "no XML tags"),
  license: z.string().optional(),
  compatibility: z.string().max(500).optional(),
  metadata: z.record(z.string(), z.string()).optional(),
  "allowed-tools": z.string().optional(),
});

/** commands/*.md frontmatter (Claude Code docs, "Slash commands", frontmatter). */
const commandFrontmatterSchema = z.strictObject({
  description: z.string().min(1),
  "argument-hint": z.string().optional(),
  "allowed-tools": z.union([z.string(), z.array(z.string())]).optional(),
  model: z.string().optional(),
  "disable-model-invocation": z.boolean().optional(),
});

const KEY_SHAPED = /\bprk_[0-9A-Za-z]{16,}/u;

describe("Claude Code manifests", () => {
  it("plugin.json has only documented fields and a short kebab-case name", () => {
    const manifest = claudePluginSchema.parse(readPluginJson(".claude-plugin/plugin.json"));
    expect(manifest.name).toBe("persona");
    const packageVersion = (readPluginJson("package.json") as { version: string }).version;
    expect(manifest.version).toBe(packageVersion);
  });

  it("marketplace.json at the repository root lists the plugin folder by its manifest's name", () => {
    const marketplace = marketplaceSchema.parse(
      JSON.parse(
        fs.readFileSync(path.join(REPOSITORY_ROOT, ".claude-plugin/marketplace.json"), "utf8"),
      ),
    );
    const entry = marketplace.plugins[0];
    expect(entry?.source).toBe("./plugin");
    const manifest = claudePluginSchema.parse(readPluginJson(".claude-plugin/plugin.json"));
    expect(path.resolve(REPOSITORY_ROOT, String(entry?.source))).toBe(PLUGIN_ROOT);
    expect(entry?.name).toBe(manifest.name);
    expect(entry?.version).toBe(manifest.version);
  });

  it(".mcp.json starts the bundled persona-mcp inside the plugin with the SERVICE_* variables substituted", () => {
    const config = mcpJsonSchema.parse(readPluginJson(".mcp.json"));
    expect(Object.keys(config.mcpServers)).toEqual(["persona"]);
    const launch = expandedServer("persona", {});
    expect(launch.command).toBe("node");
    expect(launch.args).toEqual([path.join(PLUGIN_ROOT, "bundle", "persona-mcp.mjs")]);
    expect(fs.existsSync(launch.args[0] ?? "missing")).toBe(true);
    // Unset variables become empty (persona-mcp then reads the project's .env); set ones pass through.
    expect(launch.env).toMatchObject({
      SERVICE_API_KEY: "",
      SERVICE_PERSONA_ID: "",
      SERVICE_BASE_URL: "",
    });
    expect(
      expandedServer("persona", { SERVICE_BASE_URL: "https://persona.example.com" }).env,
    ).toMatchObject({ SERVICE_BASE_URL: "https://persona.example.com" });
  });

  it("the setup command has documented frontmatter and runs the bundled setup with --source claude_code", () => {
    const { data, body } = readFrontmatter("commands/setup.md");
    commandFrontmatterSchema.parse(data);
    expect(body).toContain("$ARGUMENTS");
    const command =
      /node -- "\$\{CLAUDE_PLUGIN_ROOT\}\/([^"]+)" --source claude_code --env-file "<absolute path>" --yes/u.exec(
        body,
      );
    expect(command?.[1]).toBe(SETUP_PROGRAM);
    expect(fs.existsSync(path.join(PLUGIN_ROOT, command?.[1] ?? "missing"))).toBe(true);
    expect(body).toMatch(/Never ask the user to paste/u);
    expect(body).not.toMatch(KEY_SHAPED);
  });
});

describe("the agent skill", () => {
  it("has Agent Skills frontmatter whose name is its folder's", () => {
    const folders = fs.readdirSync(path.join(PLUGIN_ROOT, "skills"));
    expect(folders).toEqual(["persona-reply"]);
    const { data, body } = readFrontmatter("skills/persona-reply/SKILL.md");
    const frontmatter = skillFrontmatterSchema.parse(data);
    expect(frontmatter.name).toBe("persona-reply");
    expect(frontmatter.description).toMatch(/generate/u);
    expect(frontmatter.description).toMatch(/personify/u);
    expect(body.split("\n").length).toBeLessThan(500);
    expect(body).not.toMatch(KEY_SHAPED);
  });

  it("covers when to use each tool, history, every error class and never asking for a key", () => {
    const { body } = readFrontmatter("skills/persona-reply/SKILL.md");
    for (const topic of [
      "mcp__plugin_persona_persona__generate",
      "mcp__plugin_persona_persona__personify",
      "history",
      "includeVariations",
      "/persona:setup",
      "401",
      "402",
      "403",
      "404",
      "400/422",
      "429",
      "500/502/504",
      "Never ask the user to paste",
    ]) {
      expect(body).toContain(topic);
    }
  });
});

describe("Codex manifests", () => {
  it(".codex-plugin/plugin.json has only documented fields, and its paths exist inside the plugin", () => {
    const manifest = codexPluginSchema.parse(readPluginJson(".codex-plugin/plugin.json"));
    const claude = claudePluginSchema.parse(readPluginJson(".claude-plugin/plugin.json"));
    expect(manifest.name).toBe(claude.name);
    expect(manifest.version).toBe(claude.version);
    expect(fs.readdirSync(path.join(PLUGIN_ROOT, ".codex-plugin"))).toEqual(["plugin.json"]);
    for (const relative of [manifest.skills, manifest.mcpServers]) {
      expect(typeof relative).toBe("string");
      const resolved = path.resolve(PLUGIN_ROOT, String(relative));
      expect(resolved.startsWith(`${PLUGIN_ROOT}${path.sep}`)).toBe(true);
      expect(fs.existsSync(resolved)).toBe(true);
    }
  });

  it("its MCP file runs the bundled persona-mcp from the plugin folder and forwards the SERVICE_* variables by name", () => {
    const manifest = codexPluginSchema.parse(readPluginJson(".codex-plugin/plugin.json"));
    const text = fs.readFileSync(path.resolve(PLUGIN_ROOT, String(manifest.mcpServers)), "utf8");
    expect(text).not.toContain("${");
    const config = codexMcpSchema.parse(JSON.parse(text));
    // Codex resolves a relative cwd against the installed plugin's folder
    // (codex-rs/codex-mcp/src/plugin_config.rs), so the argument is relative to it.
    expect(config.mcpServers.persona).toEqual({
      command: "node",
      args: ["./bundle/persona-mcp.mjs"],
      cwd: ".",
      env_vars: ["SERVICE_API_KEY", "SERVICE_PERSONA_ID", "SERVICE_BASE_URL"],
    });
    expect(fs.existsSync(path.join(PLUGIN_ROOT, "bundle", "persona-mcp.mjs"))).toBe(true);
  });
});

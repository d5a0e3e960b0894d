import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { z } from "zod";
import { PLUGIN_ROOT, readPluginJson } from "./plugin-files.js";

/** Written literally in `.mcp.json`; Claude Code puts the plugin's folder in its place. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the literal placeholder of .mcp.json
const PLUGIN_ROOT_PLACEHOLDER = "${CLAUDE_PLUGIN_ROOT}";

/** A stdio server entry of `.mcp.json` (the documented fields this plugin uses). */
export const stdioServerSchema = z.strictObject({
  type: z.literal("stdio").optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
});

/** The plugin's `.mcp.json`. */
export const mcpJsonSchema = z.strictObject({
  mcpServers: z.record(z.string().regex(/^[a-z][a-z0-9-]*$/u), stdioServerSchema),
});

/**
 * Claude Code's expansion of `.mcp.json` values (Claude Code docs, "Environment
 * variable expansion in .mcp.json"; plugins reference, `${CLAUDE_PLUGIN_ROOT}`):
 * `${CLAUDE_PLUGIN_ROOT}` becomes the plugin's folder, then `${VAR}` the
 * variable's value and `${VAR:-default}` the value or, when the variable is
 * unset, the default. An unset variable without a default stays as written.
 */
export function expandValue(
  value: string,
  environment: Record<string, string | undefined>,
  pluginRoot = PLUGIN_ROOT,
): string {
  return value
    .replaceAll(PLUGIN_ROOT_PLACEHOLDER, pluginRoot)
    .replace(/\$\{([^}]+)\}/gu, (whole, expression: string) => {
      const split = expression.indexOf(":-");
      const name = split === -1 ? expression : expression.slice(0, split);
      const fallback = split === -1 ? undefined : expression.slice(split + 2);
      return environment[name] ?? fallback ?? whole;
    });
}

/** The command, arguments and environment Claude Code starts the plugin's server with. */
export interface ExpandedLaunch {
  command: string;
  args: string[];
  /** The variables `.mcp.json` sets, after expansion, plus the two plugin variables Claude Code adds. */
  env: Record<string, string>;
}

/**
 * Reads `.mcp.json` of a plugin folder (this checkout's by default) and
 * expands the named server's entry as Claude Code does for a plugin
 * installed there.
 */
export function expandedServer(
  name: string,
  environment: Record<string, string | undefined>,
  pluginRoot = PLUGIN_ROOT,
): ExpandedLaunch {
  const config = mcpJsonSchema.parse(readPluginJson(".mcp.json", pluginRoot));
  const server = config.mcpServers[name];
  if (server === undefined) throw new Error(`.mcp.json has no server "${name}"`);
  const env: Record<string, string> = { CLAUDE_PLUGIN_ROOT: pluginRoot };
  for (const [variable, value] of Object.entries(server.env ?? {})) {
    env[variable] = expandValue(value, environment, pluginRoot);
  }
  return {
    command: expandValue(server.command, environment, pluginRoot),
    args: (server.args ?? []).map((argument) => expandValue(argument, environment, pluginRoot)),
    env,
  };
}

/** An SDK client connected to the plugin's server, started as `.mcp.json` says. */
export interface PluginServerConnection {
  client: Client;
  launch: ExpandedLaunch;
  /** What the server wrote to standard error (its log). */
  stderr(): string;
  close(): Promise<void>;
}

/**
 * Starts the `persona` server exactly as `.mcp.json` describes it (command,
 * arguments, expanded environment on top of the agent's own, in the
 * project folder Claude Code runs in) and connects the MCP SDK's client.
 *
 * @param agentEnvironment - the environment Claude Code itself runs with
 * @param projectFolder - the working folder (where the server reads `.env`)
 * @param pluginRoot - the plugin folder (this checkout's by default, or a copy)
 */
export async function connectAsMcpJsonSays(
  agentEnvironment: Record<string, string>,
  projectFolder: string,
  pluginRoot = PLUGIN_ROOT,
): Promise<PluginServerConnection> {
  const launch = expandedServer("persona", agentEnvironment, pluginRoot);
  return connectStdio(launch, { ...agentEnvironment, ...launch.env }, projectFolder);
}

/**
 * Starts a stdio MCP server (`launch.command` with `launch.args`, exactly
 * `environment`, in `cwd`) and connects the MCP SDK's client to it.
 */
export async function connectStdio(
  launch: ExpandedLaunch,
  environment: Record<string, string>,
  cwd: string,
): Promise<PluginServerConnection> {
  const transport = new StdioClientTransport({
    command: launch.command,
    args: launch.args,
    env: environment,
    cwd,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (data: Buffer) => {
    stderr += data.toString("utf8");
  });
  const client = new Client({ name: "persona-plugin-test", version: "0.1.0" });
  await client.connect(transport);
  return { client, launch, stderr: () => stderr, close: () => client.close() };
}

import { type ChildProcess, spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/** The built command, as an agent would start it (tests run after `npm run build`). */
export const MCP_MAIN = fileURLToPath(new URL("../../dist/main.js", import.meta.url));

/** How to start one `persona-mcp`. */
export interface ServerLaunch {
  /** The whole environment of the server (nothing is inherited but PATH). */
  env: Record<string, string>;
  /** Extra command-line arguments. */
  args?: string[];
  /** Working directory (where its `.env` is read). */
  cwd: string;
}

/** An SDK client connected to a running `persona-mcp`. */
export interface McpConnection {
  client: Client;
  /** Everything the server wrote to standard error so far. */
  stderr(): string;
  /** The URL of the Streamable HTTP endpoint (HTTP only). */
  url?: string;
  /** The `Authorization` header of the server's configuration snippet, `${VAR}` expanded (HTTP only, unless --no-auth). */
  authorization?: string;
  close(): Promise<void>;
}

/** Starts a server and connects the SDK's own `Client` to it. */
export type Connector = (launch: ServerLaunch) => Promise<McpConnection>;

function newClient(): Client {
  return new Client({ name: "persona-mcp-test", version: "1.0.0" });
}

/** Spawns `persona-mcp` through the SDK's `StdioClientTransport`, as coding agents do. */
export const connectStdio: Connector = async (launch) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCP_MAIN, ...(launch.args ?? [])],
    env: launch.env,
    cwd: launch.cwd,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (data: Buffer) => {
    stderr += data.toString("utf8");
  });
  const client = newClient();
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    close: () => client.close(),
  };
};

function waitForExit(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
}

/** The `mcpServers.persona` entry `persona-mcp --http` prints at start. */
export interface HttpClientEntry {
  type: "http";
  url: string;
  headers?: { Authorization: string };
}

/** Reads the client configuration snippet from what `persona-mcp --http` wrote to standard error, once complete. */
export function printedConfiguration(stderr: string): HttpClientEntry | undefined {
  const match = /MCP client configuration[^\n]*\n(\{\n[\s\S]*?\n\})\n/u.exec(stderr);
  if (match?.[1] === undefined) return undefined;
  const parsed = JSON.parse(match[1]) as { mcpServers: { persona: HttpClientEntry } };
  return parsed.mcpServers.persona;
}

/**
 * Spawns `persona-mcp --http --port 0` and connects the SDK's
 * `StreamableHTTPClientTransport` to the URL it prints, with the bearer
 * token of the configuration snippet it prints.
 */
export const connectHttp: Connector = async (launch) => {
  const child = spawn(
    process.execPath,
    [MCP_MAIN, "--http", "--port", "0", ...(launch.args ?? [])],
    { env: launch.env, cwd: launch.cwd, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  let stdout = "";
  child.stdout?.on("data", (data: Buffer) => {
    stdout += data.toString("utf8");
  });
  const configuration = await new Promise<HttpClientEntry>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no HTTP endpoint:\n${stderr}`)), 15_000);
    child.stderr?.on("data", (data: Buffer) => {
      stderr += data.toString("utf8");
      const entry = printedConfiguration(stderr);
      if (entry !== undefined) {
        clearTimeout(timer);
        resolve(entry);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`persona-mcp exited with ${code}:\n${stderr}`));
    });
  });
  const url = configuration.url;
  // As Claude Code does with .mcp.json: `${VAR}` in a header is the variable's value.
  const authorization = configuration.headers?.Authorization.replace(
    /\$\{(\w+)\}/gu,
    (_, name: string) => launch.env[name] ?? "",
  );
  const client = newClient();
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: authorization === undefined ? {} : { authorization } },
    }),
  );
  return {
    client,
    url,
    ...(authorization === undefined ? {} : { authorization }),
    // The HTTP server writes nothing to standard output; keep it with the log so a test would see it.
    stderr: () => stderr + stdout,
    async close() {
      await client.close();
      const exited = waitForExit(child);
      child.kill("SIGTERM");
      await exited;
    },
  };
};

/** The environment of a server that sees no real user's files: HOME and XDG_CONFIG_HOME in `home`. */
export function isolatedEnvironment(home: string): Record<string, string> {
  return { PATH: process.env.PATH ?? "", HOME: home, XDG_CONFIG_HOME: `${home}/config` };
}

/** A loopback port nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

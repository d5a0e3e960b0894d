import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

/**
 * Serves one MCP session over this process's standard input and output
 * (the default transport: the agent starts `persona-mcp` and talks to it
 * through pipes). Standard output carries only protocol messages; logs go
 * to standard error.
 *
 * @returns a promise that resolves when the session ends: standard input
 * closed (the agent went away) or the transport closed
 *
 * @example
 * await serveStdio(createPersonaServer(options));
 * process.exit(0);
 */
export async function serveStdio(
  server: McpServer,
  input: NodeJS.ReadableStream = process.stdin,
  output: NodeJS.WritableStream = process.stdout,
): Promise<void> {
  const transport = new StdioServerTransport(
    input as typeof process.stdin,
    output as typeof process.stdout,
  );
  const ended = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    // The SDK's transport does not watch for the end of input; the agent closing the pipe ends the session.
    input.once("end", () => resolve());
    input.once("close", () => resolve());
  });
  await server.connect(transport);
  await ended;
  await server.close().catch(() => {});
}

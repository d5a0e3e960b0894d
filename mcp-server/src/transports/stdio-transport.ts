import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from "@modelcontextprotocol/sdk/shared/stdio.js";
import { type Logger, silentLogger } from "../logging/logger.js";

/**
 * How a stdio session ended: `ended` when the agent closed standard input
 * (or the server was closed), `failed` when the transport gave up on its
 * input — a message longer than the SDK's limit
 * (`STDIO_DEFAULT_MAX_BUFFER_SIZE`, 10 MiB, before its line break) — after
 * answering it with a JSON-RPC error.
 */
export type StdioOutcome = { status: "ended" } | { status: "failed"; reason: string };

/** JSON-RPC 2.0 "Invalid Request": the message could not be taken as a request at all. */
const INVALID_REQUEST = -32600;

/**
 * Serves one MCP session over this process's standard input and output
 * (the default transport: the agent starts `persona-mcp` and talks to it
 * through pipes). Standard output carries only protocol messages; logs go
 * to standard error.
 *
 * A line the SDK's transport cannot read (not JSON, not JSON-RPC) is logged
 * as a warning and skipped, as the SDK does. A message over 10 MiB makes the
 * SDK's transport drop its buffer and close; then the agent gets a JSON-RPC
 * error with `id: null` (code -32600, the request's ID cannot be read from
 * an unread message), the reason is logged as an error, and the outcome is
 * `failed` — the caller exits non-zero rather than look like a clean end.
 *
 * @returns a promise of how the session ended (see {@link StdioOutcome})
 *
 * @example
 * const outcome = await serveStdio(createPersonaServer(options), process.stdin, process.stdout, logger);
 * process.exit(outcome.status === "ended" ? 0 : 1);
 */
export async function serveStdio(
  server: McpServer,
  input: NodeJS.ReadableStream = process.stdin,
  output: NodeJS.WritableStream = process.stdout,
  logger: Logger = silentLogger,
): Promise<StdioOutcome> {
  const transport = new StdioServerTransport(
    input as typeof process.stdin,
    output as typeof process.stdout,
  );
  let settled = false;
  let lastError: Error | undefined;
  // Set before connect(): the SDK's Protocol calls this handler before its own.
  transport.onerror = (error) => {
    lastError = error;
    logger.warn(`stdio: ${error.message}`);
  };
  const ended = new Promise<StdioOutcome>((resolve) => {
    transport.onclose = () => {
      if (settled) return;
      settled = true;
      // The transport closes itself only after failing to read its input (the SDK's data handler).
      if (lastError === undefined) {
        resolve({ status: "ended" });
        return;
      }
      const reason = /exceeded maximum size/u.test(lastError.message)
        ? `a message on standard input was longer than ${STDIO_DEFAULT_MAX_BUFFER_SIZE / 1024 / 1024} MiB (${STDIO_DEFAULT_MAX_BUFFER_SIZE} bytes) before its line break`
        : `standard input could not be read: ${lastError.message}`;
      logger.error(`${reason}; ending the session`);
      const answer = {
        jsonrpc: "2.0",
        id: null,
        error: { code: INVALID_REQUEST, message: `Invalid Request: ${reason}` },
      };
      output.write(`${JSON.stringify(answer)}\n`, () => resolve({ status: "failed", reason }));
    };
    // The SDK's transport does not watch for the end of input; the agent closing the pipe ends the session.
    const end = () => {
      if (settled) return;
      settled = true;
      resolve({ status: "ended" });
    };
    input.once("end", end);
    input.once("close", end);
  });
  await server.connect(transport);
  const outcome = await ended;
  await server.close().catch(() => {});
  return outcome;
}

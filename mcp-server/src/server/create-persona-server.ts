import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type RequestOptions, redactSecrets } from "@persona-reply/client";
import { type Logger, silentLogger } from "../logging/logger.js";
import type { ActiveSettings, ClientSource } from "../settings/client-source.js";
import {
  GENERATE_TOOL_DESCRIPTION,
  GENERATE_TOOL_NAME,
  generateInputShape,
  generateOutputShape,
  generateToolResult,
  historyOf,
} from "../tools/generate-tool.js";
import {
  PERSONIFY_TOOL_DESCRIPTION,
  PERSONIFY_TOOL_NAME,
  personifyInputShape,
  personifyOutputShape,
  personifyToolResult,
} from "../tools/personify-tool.js";
import { describeToolError } from "../tools/tool-error.js";
import { SERVER_NAME, SERVER_VERSION } from "./server-info.js";

/** Options of {@link createPersonaServer}. */
export interface PersonaServerOptions {
  /** Gives a configured client for each call (see `createClientSource`); may throw to say what is missing. */
  clientSource: ClientSource;
  /** The env file named in setup instructions. */
  envFile: string;
  /** Where the server logs (standard error); default silent. */
  logger?: Logger;
  /** Retries after a connection error, 408 or 5xx within one call; default 2. Never after 429. */
  maxRetries?: number;
}

/**
 * What both tools tell clients about themselves: each call reaches the
 * Persona Reply service (open world) and spends the account's balance, so
 * neither is read-only; it adds a charge and destroys nothing; a repeated
 * call is charged again and may answer differently (not idempotent).
 */
const TOOL_ANNOTATIONS = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
} as const;

const SERVER_INSTRUCTIONS =
  "Persona Reply speaks as one custom persona, fixed by this server's configuration. Use generate to have the persona reply to a conversation, personify to rewrite finished text in its voice. Never ask the user for an API key in the chat: when a tool says the server is not set up, relay its setup steps.";

/**
 * Creates the MCP server with its two tools, `generate` and `personify`,
 * built on `@persona-reply/client`. Both are always registered, so they
 * are listed even before a key is configured; a call then returns a tool
 * error (`isError: true`) saying what is missing and how to set it up.
 * Every failure of a call — configuration, the service's 4xx/5xx, no
 * connection — becomes such a tool error (see `describeToolError`); the
 * server never crashes on one.
 *
 * @example
 * import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
 * const server = createPersonaServer({ clientSource: createClientSource({ envFile }), envFile });
 * await server.connect(new StdioServerTransport());
 */
export function createPersonaServer(options: PersonaServerOptions): McpServer {
  const logger = options.logger ?? silentLogger;
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION, title: "Persona Reply" },
    { instructions: SERVER_INSTRUCTIONS },
  );

  /**
   * Runs one tool call: settings, the request (retried by the client under
   * TOOL_RETRY_POLICY, with this server's retry count), and errors as tool results.
   */
  const run = async (
    tool: "generate" | "personify",
    { signal, _meta }: { signal: AbortSignal; _meta?: { [key: string]: unknown } | undefined },
    call: (settings: ActiveSettings, request: RequestOptions) => Promise<CallToolResult>,
  ): Promise<CallToolResult> => {
    const started = performance.now();
    let settings: ActiveSettings | undefined;
    try {
      settings = options.clientSource();
      const active = settings;
      // A trace the MCP client gave (`params._meta.traceparent`, the MCP
      // OpenTelemetry convention) continues through the service's request.
      const traceparent = typeof _meta?.traceparent === "string" ? _meta.traceparent : undefined;
      const result = await call(active, {
        signal,
        ...(traceparent === undefined ? {} : { traceparent }),
        retry: {
          maxRetries: options.maxRetries ?? 2,
          onRetry: (error, delayMs) =>
            logger.info(`${tool}: ${error.message}; retrying in ${Math.round(delayMs)} ms`),
        },
      });
      logger.info(`${tool} answered in ${Math.round(performance.now() - started)} ms`);
      return result;
    } catch (error) {
      const described = describeToolError(error, { tool, settings, envFile: options.envFile });
      logger.warn(redactSecrets(described.summary, settings?.secrets ?? []));
      return described.result;
    }
  };

  server.registerTool(
    GENERATE_TOOL_NAME,
    {
      title: "Reply in the persona's voice",
      description: GENERATE_TOOL_DESCRIPTION,
      inputSchema: generateInputShape,
      outputSchema: generateOutputShape,
      annotations: TOOL_ANNOTATIONS,
    },
    (input, extra) =>
      run(GENERATE_TOOL_NAME, extra, async (settings, request) => {
        const messages = historyOf(input);
        const generateInput =
          input.includeVariations === undefined
            ? { messages }
            : { messages, includeVariations: input.includeVariations };
        return generateToolResult(await settings.client.generate(generateInput, request));
      }),
  );

  server.registerTool(
    PERSONIFY_TOOL_NAME,
    {
      title: "Rewrite text in the persona's voice",
      description: PERSONIFY_TOOL_DESCRIPTION,
      inputSchema: personifyInputShape,
      outputSchema: personifyOutputShape,
      annotations: TOOL_ANNOTATIONS,
    },
    (input, extra) =>
      run(PERSONIFY_TOOL_NAME, extra, async (settings, request) =>
        personifyToolResult(await settings.client.personify({ raw: input.raw }, request)),
      ),
  );

  // The two tools never change, but the SDK's McpServer announces
  // `tools.listChanged: true` once a tool is registered; say false instead.
  server.server.registerCapabilities({ tools: { listChanged: false } });
  return server;
}

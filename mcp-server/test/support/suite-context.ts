import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { JsonSchemaType } from "@modelcontextprotocol/sdk/validation/types.js";
import { expect } from "vitest";
import { type ApiFixture, startApi } from "../../../test-support/spawn-service.js";
import {
  type Connector,
  closedPort,
  isolatedEnvironment,
  type McpConnection,
} from "./mcp-connection.js";

/** The text of a tool result's first content block. */
export function firstText(result: CallToolResult): string {
  const block = result.content[0];
  return block?.type === "text" ? block.text : "";
}

/** A tool's JSON schema as tools/list gave it. */
export type ListedSchema = JsonSchemaType & { properties: Record<string, unknown> };

/**
 * What the tool suite shares: the real service, an isolated HOME and working
 * directory, a configured server, and a record of every key used and of
 * everything any server answered or logged (to check that no key leaks).
 */
export class SuiteContext {
  api!: ApiFixture;
  /** HOME of every server: an empty folder, so no real profile is read. */
  home!: string;
  /** Working directory of every server (where `.env` is read): empty unless a test writes there. */
  workDirectory!: string;
  /** A server configured with the demo key and persona. */
  configured!: McpConnection;
  /** What `configured` listed. */
  tools!: Tool[];
  readonly keys: string[] = [];
  readonly transcript: string[] = [];
  readonly connections: McpConnection[] = [];

  constructor(readonly connect: Connector) {}

  /** Starts the service (its OpenAI-compatible upstream is a closed port) and the configured server. */
  async start(): Promise<void> {
    const upstreamPort = await closedPort();
    this.api = await startApi({
      PERSONA_OPENAI_BASE_URL: `http://127.0.0.1:${upstreamPort}/v1`,
      PERSONA_PROVIDER_MAX_RETRIES: "0",
      PERSONA_PROVIDER_TIMEOUT_MS: "5000",
    });
    this.keys.push(this.api.apiKey);
    this.home = fs.mkdtempSync(path.join(os.tmpdir(), "persona-mcp-home-"));
    this.workDirectory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-mcp-work-"));
    this.configured = await this.launch(this.serviceEnvironment());
    this.tools = (await this.configured.client.listTools()).tools;
  }

  async stop(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.close().catch(() => {})));
    await this.api?.stop();
    for (const folder of [this.home, this.workDirectory]) {
      if (folder !== undefined) fs.rmSync(folder, { recursive: true, force: true });
    }
  }

  /** Starts a server with `env` on top of the isolated HOME, and connects to it. */
  async launch(
    env: Record<string, string>,
    args: string[] = [],
    cwd: string = this.workDirectory,
  ): Promise<McpConnection> {
    const connection = await this.connect({
      env: { ...isolatedEnvironment(this.home), ...env },
      args,
      cwd,
    });
    this.connections.push(connection);
    return connection;
  }

  /** SERVICE_* of the demo key and persona, with overrides. */
  serviceEnvironment(overrides: Record<string, string> = {}): Record<string, string> {
    return {
      SERVICE_API_KEY: this.api.apiKey,
      SERVICE_PERSONA_ID: this.api.personaId,
      SERVICE_BASE_URL: this.api.baseUrl,
      ...overrides,
    };
  }

  /** Calls a tool and keeps the result for the leak check. */
  async call(
    connection: McpConnection,
    name: string,
    args: Record<string, unknown>,
  ): Promise<CallToolResult> {
    const result = (await connection.client.callTool({
      name,
      arguments: args,
    })) as CallToolResult;
    this.transcript.push(JSON.stringify(result));
    return result;
  }

  /** Creates a key on an account; returns it and its ID. */
  newKey(accountId: string, name: string): { key: string; id: string } {
    const key = this.api.admin("key", "create", "--account", accountId, "--name", name);
    this.keys.push(key);
    const listed = JSON.parse(this.api.admin("key", "list", "--account", accountId)) as Array<{
      id: string;
      name: string;
    }>;
    return { key, id: listed.find((entry) => entry.name === name)?.id ?? "" };
  }

  schemaOf(name: string, which: "inputSchema" | "outputSchema"): ListedSchema | undefined {
    const tool = this.tools.find((entry) => entry.name === name);
    return tool?.[which] as ListedSchema | undefined;
  }

  /** Validates a result's structuredContent against the output schema tools/list advertised. */
  expectValidOutput(name: string, result: CallToolResult): void {
    const schema = this.schemaOf(name, "outputSchema");
    expect(schema).toBeDefined();
    const validate = new AjvJsonSchemaValidator().getValidator(schema as JsonSchemaType);
    const outcome = validate(result.structuredContent);
    expect(outcome.errorMessage).toBeUndefined();
    expect(outcome.valid).toBe(true);
  }
}

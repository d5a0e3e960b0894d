import { randomBytes } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { PersonaClient } from "@persona-reply/client";
import { describe, expect, it } from "vitest";
import { createPersonaServer } from "./create-persona-server.js";

// persona-mcp continues a trace its MCP client gives in `params._meta.traceparent`
//: the service request of the tool call carries that traceparent.

/** A key of the right shape, made at run time (never a key-shaped literal in a file). */
const KEY = `prk_test_${randomBytes(16).toString("hex")}`;
const PERSONA_ID = "6f1c2b1e-8f3a-4c1d-9a1b-2c3d4e5f6a7b";

async function connected() {
  const sent: Array<Record<string, string>> = [];
  const client = new PersonaClient({
    apiKey: KEY,
    personaId: PERSONA_ID,
    baseUrl: "http://127.0.0.1:9",
    traceContext: "off",
    fetch: async (_input, init) => {
      sent.push({ ...(init?.headers as Record<string, string>) });
      return new Response(
        JSON.stringify({ status: "success", result: { finalReply: "Hi.", chunks: ["Hi."] } }),
        { status: 200, headers: { "content-type": "application/json" } },
      );
    },
  });
  const server = createPersonaServer({
    envFile: ".env",
    clientSource: () => ({
      client,
      personaId: PERSONA_ID,
      maskedApiKey: client.maskedApiKey,
      secrets: [KEY],
      origins: { apiKey: "test", personaId: "test", baseUrl: "test" },
      apiKeySource: "environment",
    }),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const mcp = new Client({ name: "trace-test", version: "1.0.0" });
  await mcp.connect(clientSide);
  return { mcp, sent, close: () => mcp.close() };
}

describe("persona-mcp and a given trace", () => {
  it("sends the MCP request's _meta.traceparent to the service, and none when not given", async () => {
    const { mcp, sent, close } = await connected();
    const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const result = await mcp.callTool({
      name: "generate",
      arguments: { message: "Hello" },
      _meta: { traceparent },
    });
    expect(result.isError).not.toBe(true);
    expect(sent[0]?.traceparent).toBe(traceparent);
    await mcp.callTool({ name: "generate", arguments: { message: "Hello" } });
    expect(sent[1]?.traceparent).toBeUndefined();
    await close();
  });
});

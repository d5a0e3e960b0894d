import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectHttp, isolatedEnvironment, type McpConnection } from "./support/mcp-connection.js";
import { defineToolSuite } from "./support/tool-suite.js";

// The SDK's StreamableHTTPClientTransport against `persona-mcp --http`.
defineToolSuite("Streamable HTTP", connectHttp);

/** A raw request to the endpoint, with headers a browser or a rebinding page would send. */
function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body = "",
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers }, (response) => {
      let text = "";
      response.on("data", (data: Buffer) => {
        text += data.toString("utf8");
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    request.once("error", reject);
    request.end(body);
  });
}

describe("persona-mcp --http endpoint", () => {
  let home: string;
  let connection: McpConnection;
  let url: string;
  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    },
  });
  const mcpHeaders = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };

  beforeAll(async () => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), "persona-mcp-http-"));
    connection = await connectHttp({ env: isolatedEnvironment(home), cwd: home });
    url = connection.url ?? "";
  });

  afterAll(async () => {
    await connection?.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it("binds to 127.0.0.1 and serves /mcp", () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/u);
  });

  it("answers a plain initialize POST from a loopback host", async () => {
    const response = await rawRequest(url, "POST", mcpHeaders, initialize);
    expect(response.status).toBe(200);
    expect(response.body).toContain('"serverInfo":{"name":"persona-mcp"');
  });

  it("refuses another Host or a web page's Origin (DNS rebinding)", async () => {
    const rebound = await rawRequest(
      url,
      "POST",
      { ...mcpHeaders, host: "attacker.example" },
      initialize,
    );
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body)).toMatchObject({
      error: { message: "forbidden: Host must be a loopback address" },
    });
    const fromPage = await rawRequest(
      url,
      "POST",
      { ...mcpHeaders, origin: "https://attacker.example" },
      initialize,
    );
    expect(fromPage.status).toBe(403);
    const fromLocalPage = await rawRequest(
      url,
      "POST",
      { ...mcpHeaders, origin: "http://localhost:5173" },
      initialize,
    );
    expect(fromLocalPage.status).toBe(200);
  });

  it("answers 405 to GET and DELETE, 404 elsewhere", async () => {
    const get = await rawRequest(url, "GET", { accept: "text/event-stream" });
    expect(get.status).toBe(405);
    expect((await rawRequest(url, "DELETE", {})).status).toBe(405);
    expect(
      (await rawRequest(url.replace(/\/mcp$/u, "/other"), "POST", mcpHeaders, initialize)).status,
    ).toBe(404);
  });
});

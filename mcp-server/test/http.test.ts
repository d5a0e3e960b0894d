import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BODY_CLIENTS, postWith } from "../../test-support/body-clients.js";
import { rawExchange } from "../../test-support/raw-http.js";
import {
  connectHttp,
  isolatedEnvironment,
  MCP_MAIN,
  type McpConnection,
} from "./support/mcp-connection.js";
import { defineToolSuite } from "./support/tool-suite.js";

// The SDK's StreamableHTTPClientTransport against `persona-mcp --http`.
defineToolSuite("Streamable HTTP", connectHttp);

/** A raw request to the endpoint, with headers a browser or a rebinding page would send. */
function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body = "",
): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers }, (response) => {
      let text = "";
      response.on("data", (data: Buffer) => {
        text += data.toString("utf8");
      });
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, body: text, headers: response.headers }),
      );
    });
    request.once("error", reject);
    request.end(body);
  });
}

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
const toolsList = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
const toolsCall = JSON.stringify({
  jsonrpc: "2.0",
  id: 3,
  method: "tools/call",
  params: { name: "personify", arguments: { raw: "hello" } },
});
const mcpHeaders = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

describe("persona-mcp --http endpoint", () => {
  let home: string;
  let connection: McpConnection;
  let url: string;
  let port: string;
  let authorized: Record<string, string>;

  beforeAll(async () => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), "persona-mcp-http-"));
    connection = await connectHttp({ env: isolatedEnvironment(home), cwd: home });
    url = connection.url ?? "";
    port = new URL(url).port;
    authorized = { ...mcpHeaders, authorization: connection.authorization ?? "" };
  });

  afterAll(async () => {
    await connection?.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it("binds to 127.0.0.1, serves /mcp, and prints a new token once, in the client snippet", () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/u);
    const token = /^Bearer ([A-Za-z0-9_-]{43})$/u.exec(connection.authorization ?? "")?.[1];
    expect(token).toBeDefined();
    expect(connection.stderr().split(token ?? "-").length - 1).toBe(1);
    expect(connection.stderr()).toContain('"type": "http"');
  });

  it("answers a plain initialize POST from a loopback host with the token", async () => {
    const response = await rawRequest(url, "POST", authorized, initialize);
    expect(response.status).toBe(200);
    expect(response.body).toContain('"serverInfo":{"name":"persona-mcp"');
  });

  it("refuses a request without the token: 401, WWW-Authenticate: Bearer, a JSON-RPC error", async () => {
    for (const body of [initialize, toolsList, toolsCall]) {
      const response = await rawRequest(url, "POST", mcpHeaders, body);
      expect(response.status).toBe(401);
      expect(response.headers["www-authenticate"]).toMatch(/^Bearer /u);
      expect(JSON.parse(response.body)).toMatchObject({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32000, message: expect.stringMatching(/^unauthorized: /u) },
      });
    }
    const basic = await rawRequest(
      url,
      "POST",
      { ...mcpHeaders, authorization: "Basic dXNlcjpwYXNz" },
      initialize,
    );
    expect(basic.status).toBe(401);
  });

  it("refuses a wrong token, also one of the right length, with invalid_token", async () => {
    const token = (connection.authorization ?? "").slice("Bearer ".length);
    for (const wrong of [
      "wrong",
      randomBytes(32).toString("base64url"),
      `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`,
      `${token}x`,
    ]) {
      const response = await rawRequest(
        url,
        "POST",
        { ...mcpHeaders, authorization: `Bearer ${wrong}` },
        toolsCall,
      );
      expect(response.status).toBe(401);
      expect(response.headers["www-authenticate"]).toContain('error="invalid_token"');
      expect(response.body).not.toContain(token);
    }
    const lowerCaseScheme = await rawRequest(
      url,
      "POST",
      { ...mcpHeaders, authorization: `bearer ${token}` },
      initialize,
    );
    expect(lowerCaseScheme.status).toBe(200);
  });

  it("refuses another Host or a web page's Origin (DNS rebinding), even with the token", async () => {
    const rebound = await rawRequest(
      url,
      "POST",
      { ...authorized, host: "attacker.example" },
      initialize,
    );
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body)).toMatchObject({
      error: { message: "forbidden: Host must be a loopback address" },
    });
    const fromPage = await rawRequest(
      url,
      "POST",
      { ...authorized, origin: "https://attacker.example" },
      initialize,
    );
    expect(fromPage.status).toBe(403);
    const fromLocalPage = await rawRequest(
      url,
      "POST",
      { ...authorized, origin: "http://localhost:5173" },
      initialize,
    );
    expect(fromLocalPage.status).toBe(200);
  });

  it("refuses names that start like a loopback address but are DNS names, in Host and in Origin", async () => {
    const rebindingNames = [
      `127.0.0.1.rebind-x.evil.example:${port}`,
      "127.0.0.1.rebind-x.evil.example",
      `127.evil.example:${port}`,
      `localhost.evil.example:${port}`,
      `app.localhost:${port}`,
    ];
    for (const body of [initialize, toolsCall]) {
      for (const name of rebindingNames) {
        const viaHost = await rawRequest(url, "POST", { ...authorized, host: name }, body);
        expect(viaHost.status, name).toBe(403);
        const viaOrigin = await rawRequest(
          url,
          "POST",
          { ...authorized, origin: `http://${name}` },
          body,
        );
        expect(viaOrigin.status, name).toBe(403);
        const both = await rawRequest(
          url,
          "POST",
          { ...authorized, host: name, origin: `http://${name}` },
          body,
        );
        expect(both.status, name).toBe(403);
      }
    }
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `127.0.0.2:${port}`]) {
      const response = await rawRequest(url, "POST", { ...authorized, host }, initialize);
      expect(response.status, host).toBe(200);
    }
  });

  it("answers 405 to GET and DELETE, 404 elsewhere", async () => {
    const get = await rawRequest(url, "GET", {
      accept: "text/event-stream",
      authorization: authorized.authorization ?? "",
    });
    expect(get.status).toBe(405);
    expect(
      (await rawRequest(url, "DELETE", { authorization: authorized.authorization ?? "" })).status,
    ).toBe(405);
    expect(
      (await rawRequest(url.replace(/\/mcp$/u, "/other"), "POST", mcpHeaders, initialize)).status,
    ).toBe(404);
  });
});

describe("persona-mcp --http and a body over its 4 MiB limit", () => {
  let home: string;
  let connection: McpConnection;
  beforeAll(async () => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), "persona-mcp-http-body-"));
    connection = await connectHttp({ env: isolatedEnvironment(home), cwd: home });
  });
  afterAll(async () => {
    await connection?.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  const body = Buffer.alloc(5_000_000, "x");
  // Python's clients write the whole body before they read, and say Connection: close.
  for (const client of BODY_CLIENTS) {
    it(`${client}: the 413, and a refusal before the body (401), as JSON-RPC errors`, async () => {
      const url = connection.url ?? "";
      for (const [authorization, status] of [
        [connection.authorization ?? "", 413],
        ["", 401],
      ] as const) {
        const headers = authorization === "" ? mcpHeaders : { ...mcpHeaders, authorization };
        const answer = await postWith(client, url, headers, body).catch((error: unknown) => {
          throw new Error(`${client} (${status}): ${String((error as Error).cause ?? error)}`);
        });
        expect(answer.status, answer.text).toBe(status);
        expect(JSON.parse(answer.text)).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
      }
    });
  }

  it("Expect: 100-continue over the limit gets the 413 before the body is sent", async () => {
    const url = new URL(connection.url ?? "");
    const exchange = await rawExchange(
      url.origin,
      `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\ncontent-type: application/json\r\n` +
        `accept: application/json, text/event-stream\r\nauthorization: ${connection.authorization}\r\n` +
        `Content-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
      "",
      5_000,
    );
    expect(exchange.received).toMatch(/^HTTP\/1\.1 413 /u);
    expect(exchange.timedOut).toBe(false);
  });
});

describe("persona-mcp --http token choices", () => {
  let home: string;

  beforeAll(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), "persona-mcp-http-token-"));
  });

  afterAll(() => {
    fs.rmSync(home, { recursive: true, force: true });
  });

  it("--no-auth serves without a token, says so, and prints a snippet without headers", async () => {
    const connection = await connectHttp({
      env: isolatedEnvironment(home),
      cwd: home,
      args: ["--no-auth"],
    });
    try {
      expect(connection.authorization).toBeUndefined();
      expect(connection.stderr()).toContain("no token required (--no-auth)");
      const response = await rawRequest(connection.url ?? "", "POST", mcpHeaders, initialize);
      expect(response.status).toBe(200);
      // The Host and Origin checks stay on without a token.
      const rebound = await rawRequest(
        connection.url ?? "",
        "POST",
        { ...mcpHeaders, origin: "http://127.0.0.1.rebind-x.evil.example" },
        initialize,
      );
      expect(rebound.status).toBe(403);
    } finally {
      await connection.close();
    }
  });

  it("takes the token from PERSONA_MCP_HTTP_TOKEN and never prints it", async () => {
    const token = randomBytes(24).toString("base64url");
    const connection = await connectHttp({
      env: { ...isolatedEnvironment(home), PERSONA_MCP_HTTP_TOKEN: token },
      cwd: home,
    });
    try {
      expect(connection.stderr()).toContain(`"Authorization": "Bearer $\{PERSONA_MCP_HTTP_TOKEN}"`);
      expect(connection.authorization).toBe(`Bearer ${token}`);
      expect(connection.stderr()).not.toContain(token);
      const response = await rawRequest(
        connection.url ?? "",
        "POST",
        { ...mcpHeaders, authorization: `Bearer ${token}` },
        initialize,
      );
      expect(response.status).toBe(200);
    } finally {
      await connection.close();
    }
  });

  it("refuses a short PERSONA_MCP_HTTP_TOKEN, and one together with --no-auth (exit 2)", () => {
    for (const [token, args] of [
      ["short", []],
      [randomBytes(24).toString("base64url"), ["--no-auth"]],
    ] as const) {
      const run = spawnSync(process.execPath, [MCP_MAIN, "--http", "--port", "0", ...args], {
        env: { ...isolatedEnvironment(home), PERSONA_MCP_HTTP_TOKEN: token },
        cwd: home,
        encoding: "utf8",
        timeout: 15_000,
      });
      expect(run.status, run.stderr).toBe(2);
      expect(run.stderr).toContain("PERSONA_MCP_HTTP_TOKEN");
      expect(run.stderr).not.toContain(token);
    }
  });
});

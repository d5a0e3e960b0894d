import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInClient } from "./support/login-consent.js";
import { approveInBrowser, codeOf, MemoryOAuthProvider } from "./support/oauth-app.js";
import type { PageClient } from "./support/page-client.js";
import { startTestService, type TestService } from "./support/test-service.js";

/** How long one inspector run may take before the test kills it. */
const INSPECTOR_DEADLINE_MS = 30_000;

let service: TestService;
let browser: PageClient;
const logLines: string[] = [];

beforeAll(async () => {
  service = await startTestService(
    { PERSONA_LOG_LEVEL: "debug" },
    { log: (line) => logLines.push(line) },
  );
  browser = await signedInClient(service);
});
afterAll(() => service.stop());

const mcpUrl = () => new URL(`${service.url}/mcp`);

/** The installed `mcp-inspector-cli` bin (no npx, no network). */
function inspectorBin(): string {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve("@modelcontextprotocol/inspector-cli/package.json");
  const manifest = JSON.parse(fs.readFileSync(manifestPath, "utf8")) as {
    bin: Record<string, string>;
  };
  const bin = manifest.bin["mcp-inspector-cli"];
  if (bin === undefined) throw new Error("inspector-cli has no mcp-inspector-cli bin");
  return path.join(path.dirname(manifestPath), bin);
}

/**
 * Runs the MCP Inspector's CLI mode against the service's `/mcp` with `tools/list`.
 * The command line carries the token, so it is never printed; the run is killed
 * after {@link INSPECTOR_DEADLINE_MS}.
 */
function runInspector(
  headers: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const args = [inspectorBin(), "--cli", mcpUrl().href, "--transport", "http"];
  for (const header of headers) args.push("--header", header);
  args.push("--method", "tools/list");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      // The CLI picks its own package.json by testing "../package.json" against
      // the working directory but imports it relative to its module; running it
      // from its build directory makes both name the same file.
      cwd: path.dirname(args[0] ?? ""),
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`inspector did not finish within ${INSPECTOR_DEADLINE_MS} ms`));
    }, INSPECTOR_DEADLINE_MS);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The status codes the service logged for requests to `/mcp` since log line `from`. */
function mcpStatuses(from: number): number[] {
  return logLines
    .slice(from)
    .map((line) => JSON.parse(line) as { req?: { url?: string }; res?: { statusCode?: number } })
    .filter((entry) => entry.req?.url === "/mcp" && entry.res?.statusCode !== undefined)
    .map((entry) => entry.res?.statusCode ?? 0);
}

/** Registration, consent and code exchange with the MCP SDK's client; returns the app's provider. */
async function authorizedProvider(): Promise<MemoryOAuthProvider> {
  const provider = new MemoryOAuthProvider("Inspector");
  const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
  const first = new Client({ name: "inspector-test", version: "1.0.0" });
  await expect(first.connect(transport)).rejects.toThrow(/unauthorized/iu);
  const answer = await approveInBrowser(
    browser,
    provider.authorizationUrl ?? "",
    service.persona.id,
  );
  await transport.finishAuth(codeOf(answer));
  return provider;
}

describe("the official MCP Inspector CLI against the remote MCP endpoint", () => {
  it("lists generate and personify with a bearer token, as the service's own tools/list does", async () => {
    const provider = await authorizedProvider();
    const token = provider.saved?.access_token;
    if (token === undefined) throw new Error("no access token");

    const client = new Client({ name: "inspector-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
    const { tools: own } = await client.listTools();
    await client.close();

    const logsBefore = logLines.length;
    const run = await runInspector([`Authorization: Bearer ${token}`]);
    expect(run.stderr).not.toContain(token);
    expect(run.stdout).not.toContain(token);
    // stderr carries only the package's deprecation notice for its v1 line.
    expect(run.stderr).not.toMatch(/error|failed/iu);
    expect(run.code).toBe(0);
    const listed = JSON.parse(run.stdout) as {
      tools: { name: string; inputSchema: unknown }[];
    };
    expect(listed.tools.map((tool) => tool.name)).toEqual(["generate", "personify"]);
    for (const tool of listed.tools) {
      expect(tool.inputSchema).toEqual(
        own.find((candidate) => candidate.name === tool.name)?.inputSchema,
      );
    }
    const statuses = mcpStatuses(logsBefore);
    expect(statuses).toContain(200);
    expect(statuses).not.toContain(401);
    expect(logLines.filter((line) => line.includes(token))).toEqual([]);
  });

  it("fails with 401 without a token", async () => {
    const logsBefore = logLines.length;
    const run = await runInspector([]);
    expect(run.code).not.toBe(0);
    expect(run.stdout).not.toContain('"tools"');
    expect(run.stderr).toContain("invalid_token");
    expect(mcpStatuses(logsBefore)).toEqual([401]);
  });
});

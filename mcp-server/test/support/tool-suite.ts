import fs from "node:fs";
import path from "node:path";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { JsonSchemaType } from "@modelcontextprotocol/sdk/validation/types.js";
import { saveProfile } from "@persona-reply/client/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXAMPLE_PERSONA_FILE } from "../../../test-support/spawn-service.js";
import { type Connector, closedPort, isolatedEnvironment } from "./mcp-connection.js";
import { firstText, SuiteContext } from "./suite-context.js";

/**
 * The suite both transports pass: the SDK's `Client` against the built
 * `persona-mcp`, which calls a real service (`api/dist/main.js` on a loopback
 * port with a fresh SQLite store) — tools/list, both tools, structured
 * output against the advertised output schema, and every error an agent
 * meets, each as `isError` with the service's message and no key anywhere.
 */
export function defineToolSuite(transportName: string, connect: Connector): void {
  describe(`persona-mcp over ${transportName} against the real service`, () => {
    const suite = new SuiteContext(connect);
    beforeAll(() => suite.start());
    afterAll(() => suite.stop());

    it("lists generate and personify with their input and output schemas", () => {
      expect(suite.tools.map((tool) => tool.name).sort()).toEqual(["generate", "personify"]);
      const generate = suite.tools.find((tool) => tool.name === "generate");
      expect(generate?.description).toMatch(/fixed by the server's configuration/u);
      // Each call spends the account's balance: neither tool is read-only.
      for (const tool of suite.tools) {
        expect(tool.annotations, tool.name).toMatchObject({
          readOnlyHint: false,
          destructiveHint: false,
          idempotentHint: false,
          openWorldHint: true,
        });
      }
      // The list never changes, and the server does not claim it might.
      const capabilities = suite.configured.client.getServerCapabilities();
      expect(capabilities?.tools).toBeDefined();
      expect(capabilities?.tools?.listChanged).not.toBe(true);
      const generateInput = suite.schemaOf("generate", "inputSchema");
      expect(Object.keys(generateInput?.properties ?? {}).sort()).toEqual([
        "history",
        "includeVariations",
        "message",
        "messages",
      ]);
      expect(JSON.stringify(generateInput)).toContain(
        '"enum":["user","assistant","system","developer"]',
      );
      expect(suite.schemaOf("generate", "outputSchema")).toMatchObject({
        type: "object",
        required: ["finalReply", "chunks"],
      });
      expect(
        Object.keys(suite.schemaOf("generate", "outputSchema")?.properties ?? {}).sort(),
      ).toEqual(["chunks", "finalReply", "replyChoices"]);
      expect(suite.schemaOf("personify", "inputSchema")).toMatchObject({
        type: "object",
        required: ["raw"],
      });
      expect(suite.schemaOf("personify", "outputSchema")).toMatchObject({
        type: "object",
        required: ["personified", "chunks"],
      });
      expect(suite.tools.find((tool) => tool.name === "personify")?.description).toMatch(
        /personify access/u,
      );
    });

    it("generate replies to one message: text and a structured reply result", async () => {
      const result = await suite.call(suite.configured, "generate", {
        message: "Hi! Which herbs grow well on a balcony?",
      });
      expect(result.isError).toBeFalsy();
      const structured = result.structuredContent as { finalReply: string; chunks: string[] };
      expect(structured.finalReply.length).toBeGreaterThan(0);
      expect(firstText(result)).toBe(structured.finalReply);
      expect(structured.chunks.join(" ").length).toBeGreaterThan(0);
      expect(Object.keys(structured).sort()).toEqual(["chunks", "finalReply"]);
      suite.expectValidOutput("generate", result);
      // The schema is a real check: a wrong shape fails it.
      const validate = new AjvJsonSchemaValidator().getValidator(
        suite.schemaOf("generate", "outputSchema") as JsonSchemaType,
      );
      expect(validate({ finalReply: 1, chunks: [] }).valid).toBe(false);
    });

    it("generate takes a full history in the spec's Message shape, with variations", async () => {
      const result = await suite.call(suite.configured, "generate", {
        messages: [
          { role: "system", content: "The user is planning a balcony garden." },
          { role: "user", content: [{ type: "text", text: "Hello!" }], timestamp: 1_763_700_000 },
          { role: "assistant", content: "Hi! How can I help?" },
          { role: "user", content: "Thanks for the tips.", createdAt: "2026-11-21T10:00:00Z" },
        ],
        includeVariations: true,
      });
      expect(result.isError).toBeFalsy();
      const structured = result.structuredContent as {
        finalReply: string;
        replyChoices?: string[];
      };
      expect(structured.replyChoices?.length).toBeGreaterThan(1);
      expect(structured.replyChoices).toContain(structured.finalReply);
      expect(result.content[1]).toMatchObject({ type: "text" });
      suite.expectValidOutput("generate", result);
    });

    it("generate takes message with history", async () => {
      const result = await suite.call(suite.configured, "generate", {
        history: [
          { role: "user", content: "Hello!" },
          { role: "assistant", content: "Hi! How can I help?" },
        ],
        message: "What should I plant first?",
      });
      expect(result.isError).toBeFalsy();
      suite.expectValidOutput("generate", result);
    });

    it("refuses both messages and message, and passes the service's 422 on", async () => {
      const both = await suite.call(suite.configured, "generate", {
        messages: [{ role: "user", content: "Hi" }],
        message: "Hi",
      });
      expect(both.isError).toBe(true);
      expect(firstText(both)).toMatch(/^Invalid arguments: give either `messages`/u);

      const assistantLast = await suite.call(suite.configured, "generate", {
        messages: [{ role: "assistant", content: "I spoke last." }],
      });
      expect(assistantLast.isError).toBe(true);
      expect(firstText(assistantLast)).toMatch(
        /^The Persona Reply service rejected the arguments \(HTTP 422\): messages\[0\]\.role: the last message must have role user, not assistant\./u,
      );
    });

    it("says what is wrong once: a blank raw, and a persona ID that is no UUID", async () => {
      const blank = await suite.call(suite.configured, "personify", { raw: "   " });
      expect(blank.isError).toBe(true);
      expect(firstText(blank)).toMatch(
        /^The Persona Reply service rejected the arguments \(HTTP 400\): raw: must be non-empty text\. Correct them and call again\./u,
      );
      expect(firstText(blank).match(/must be non-empty text/gu)).toHaveLength(1);

      const connection = await suite.launch(suite.serviceEnvironment(), [
        "--persona-id",
        "not-a-uuid",
      ]);
      const result = await suite.call(connection, "generate", { message: "Hi" });
      expect(result.isError).toBe(true);
      const text = firstText(result);
      expect(text).toMatch(
        /^The Persona Reply service refused the configured persona ID \(HTTP 422\): personaId: must be a persona ID \(a UUID\)\. The persona ID in use is not-a-uuid, from --persona-id\./u,
      );
      expect(text).not.toContain("history");
      expect(text).not.toContain("user message");
    });

    it("personify rewrites text: text and { personified, chunks }", async () => {
      const result = await suite.call(suite.configured, "personify", {
        raw: "The meeting moves to Thursday. Bring the seed catalogue.",
      });
      expect(result.isError).toBeFalsy();
      const structured = result.structuredContent as { personified: string; chunks: string[] };
      expect(structured.personified).toContain("Thursday");
      expect(firstText(result)).toBe(structured.personified);
      suite.expectValidOutput("personify", result);
    });

    it("without a key: starts, lists both tools, and each call explains the setup", async () => {
      const unconfigured = await suite.launch({});
      const listed = await unconfigured.client.listTools();
      expect(listed.tools.map((tool) => tool.name).sort()).toEqual(["generate", "personify"]);
      for (const [name, args] of [
        ["generate", { message: "Hi" }],
        ["personify", { raw: "Hello." }],
      ] as const) {
        const result = await suite.call(unconfigured, name, args);
        expect(result.isError).toBe(true);
        const text = firstText(result);
        expect(text).toMatch(
          /^Persona Reply is not set up for this MCP server: no API key and no persona ID found\./u,
        );
        expect(text).toContain("plugin's setup command (`/persona:setup` in Claude Code)");
        expect(text).toContain("persona configure --api-key-stdin");
        expect(text).toContain("SERVICE_API_KEY and SERVICE_PERSONA_ID");
        expect(text).toContain(path.join(suite.workDirectory, ".env"));
      }
      expect(unconfigured.stderr()).toMatch(/warn: persona-mcp \S+ is not set up yet/u);
    });

    it("a mistyped key: the service's 401 message, the key only masked", async () => {
      const last = suite.api.apiKey.at(-1) === "A" ? "B" : "A";
      const mistyped = `${suite.api.apiKey.slice(0, -1)}${last}`;
      suite.keys.push(mistyped);
      const connection = await suite.launch(
        suite.serviceEnvironment({ SERVICE_API_KEY: mistyped }),
      );
      const result = await suite.call(connection, "generate", { message: "Hi" });
      expect(result.isError).toBe(true);
      const text = firstText(result);
      expect(text).toMatch(
        /^The Persona Reply service refused the API key \(HTTP 401\): invalid API key/u,
      );
      expect(text).toContain(
        `The key in use is prk_…${mistyped.slice(-4)}, from SERVICE_API_KEY in the environment.`,
      );
      // A key from the environment wins over the env file: change the environment.
      const envFile = path.join(suite.workDirectory, ".env");
      expect(text).toContain(
        `The key is set in this MCP server's own environment (SERVICE_API_KEY), which wins over ${envFile}`,
      );
      expect(text).toContain("change SERVICE_API_KEY where this server is registered");
      expect(text).not.toContain("persona configure --api-key-stdin");
      expect(text).toMatch(/\nRequest ID: [0-9a-f-]{36}$/u);
    });

    it("a mistyped key in the env file: says to replace it in that file", async () => {
      const last = suite.api.apiKey.at(-1) === "A" ? "B" : "A";
      const mistyped = `${suite.api.apiKey.slice(0, -1)}${last}`;
      const folder = fs.mkdtempSync(path.join(suite.workDirectory, "env-file-"));
      const envFile = path.join(folder, ".env");
      fs.writeFileSync(
        envFile,
        `SERVICE_API_KEY=${mistyped}\nSERVICE_PERSONA_ID=${suite.api.personaId}\nSERVICE_BASE_URL=${suite.api.baseUrl}\n`,
        { mode: 0o600 },
      );
      const connection = await suite.launch({}, [], folder);
      const result = await suite.call(connection, "personify", { raw: "Hello." });
      expect(result.isError).toBe(true);
      const text = firstText(result);
      expect(text).toContain(`from SERVICE_API_KEY in ${envFile}.`);
      expect(text).toContain(`The key comes from SERVICE_API_KEY in ${envFile}`);
      expect(text).toContain("run the Persona Reply plugin's setup command (`/persona:setup`");
      expect(text).not.toContain("own environment");
    });

    it("an unknown persona: the service's 404 message and where the ID came from", async () => {
      const unknown = "00000000-0000-4000-8000-000000000000";
      const connection = await suite.launch(suite.serviceEnvironment(), ["--persona-id", unknown]);
      const result = await suite.call(connection, "generate", { message: "Hi" });
      expect(result.isError).toBe(true);
      const text = firstText(result);
      expect(text).toMatch(
        /^The Persona Reply service does not know this persona \(HTTP 404\): unknown personaId: 00000000-0000-4000-8000-000000000000/u,
      );
      expect(text).toContain(`The persona ID in use is ${unknown}, from --persona-id.`);
    });

    it("a persona without personify access: the service's 403 message; generate still works", async () => {
      const personaId = suite.api.admin(
        "persona",
        "create",
        "--account",
        suite.api.accountId,
        "--file",
        EXAMPLE_PERSONA_FILE,
      );
      suite.api.admin("persona", "revoke-personify", personaId);
      const connection = await suite.launch(
        suite.serviceEnvironment({ SERVICE_PERSONA_ID: personaId }),
      );
      const result = await suite.call(connection, "personify", { raw: "Hello there." });
      expect(result.isError).toBe(true);
      const text = firstText(result);
      expect(text).toMatch(/^The Persona Reply service refused this call \(HTTP 403\): \S/u);
      expect(text).toContain(
        `This persona (${personaId}) has no /personify access. Use the generate tool instead`,
      );
      expect((await suite.call(connection, "generate", { message: "Hi" })).isError).toBeFalsy();
    });

    it("a used-up rate limit: the service's 429 message and when to retry", async () => {
      const { key, id } = suite.newKey(suite.api.accountId, `one-a-minute-${transportName}`);
      suite.api.admin("limits", "set", "--key", id, "--minute", "1");
      const connection = await suite.launch(suite.serviceEnvironment({ SERVICE_API_KEY: key }));
      expect((await suite.call(connection, "generate", { message: "Hi" })).isError).toBeFalsy();
      const result = await suite.call(connection, "generate", { message: "Hi again" });
      expect(result.isError).toBe(true);
      const text = firstText(result);
      expect(text).toMatch(
        /^The Persona Reply rate limit was reached \(HTTP 429, rate_limited\): rate limit reached \(1 requests per minute\); retry after \d+ seconds\./u,
      );
      expect(text).toMatch(
        /\nRetry after \d+ seconds? \(at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\); calls before then are refused too\./u,
      );
    });

    it("an account without balance: a 429 that says retrying will not help", async () => {
      const accountId = suite.api.admin("account", "create", `Empty ${transportName}`);
      const personaId = suite.api.admin(
        "persona",
        "create",
        "--account",
        accountId,
        "--file",
        EXAMPLE_PERSONA_FILE,
      );
      const { key } = suite.newKey(accountId, "empty");
      const connection = await suite.launch(
        suite.serviceEnvironment({ SERVICE_API_KEY: key, SERVICE_PERSONA_ID: personaId }),
      );
      const result = await suite.call(connection, "personify", { raw: "Hello." });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toMatch(
        /^The Persona Reply account's balance is used up \(HTTP 429, insufficient_balance\): insufficient balance/u,
      );
      expect(firstText(result)).toContain("Retrying will not help");
    });

    it("a failing model provider: the 502 after two retries, with its request ID", async () => {
      const persona = JSON.parse(fs.readFileSync(EXAMPLE_PERSONA_FILE, "utf8")) as object;
      const file = path.join(suite.api.directory, `upstream-persona-${transportName}.json`);
      fs.writeFileSync(
        file,
        JSON.stringify({ ...persona, route: [{ upstream: "openai-compatible", model: "m" }] }),
      );
      const personaId = suite.api.admin(
        "persona",
        "create",
        "--account",
        suite.api.accountId,
        "--file",
        file,
      );
      const connection = await suite.launch(
        suite.serviceEnvironment({ SERVICE_PERSONA_ID: personaId }),
      );
      const result = await suite.call(connection, "generate", { message: "Hi" });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toMatch(
        /^The Persona Reply service failed \(HTTP 502, upstream_error\): .+\nTry again in a little while/u,
      );
      expect(firstText(result)).toMatch(/\nRequest ID: [0-9a-f-]{36}$/u);
      expect(connection.stderr().match(/generate: .*; retrying in \d+ ms/gu)).toHaveLength(2);
    });

    it("an unreachable service: says so and which setting to check", async () => {
      const port = await closedPort();
      const connection = await suite.launch(
        suite.serviceEnvironment({ SERVICE_BASE_URL: `http://127.0.0.1:${port}` }),
        ["--max-retries", "0"],
      );
      const result = await suite.call(connection, "personify", { raw: "Hello." });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toMatch(
        new RegExp(
          `^Could not reach the Persona Reply service: POST /api/v1/personify: could not reach http://127\\.0\\.0\\.1:${port}`,
          "u",
        ),
      );
      expect(firstText(result)).toContain(
        "The base URL is from SERVICE_BASE_URL in the environment.",
      );
    });

    it("uses a key written to ./.env after start, without a restart", async () => {
      const folder = fs.mkdtempSync(path.join(suite.workDirectory, "later-"));
      // As Claude Code passes an unset `${SERVICE_API_KEY}` of .mcp.json: the literal text.
      const connection = await suite.launch({ SERVICE_API_KEY: `\${SERVICE_API_KEY}` }, [], folder);
      expect((await suite.call(connection, "personify", { raw: "Hello." })).isError).toBe(true);
      fs.writeFileSync(
        path.join(folder, ".env"),
        `SERVICE_API_KEY=${suite.api.apiKey}\nSERVICE_PERSONA_ID=${suite.api.personaId}\nSERVICE_BASE_URL=${suite.api.baseUrl}\n`,
        { mode: 0o600 },
      );
      const result = await suite.call(connection, "personify", { raw: "Hello." });
      expect(result.isError).toBeFalsy();
      suite.expectValidOutput("personify", result);
      expect(connection.stderr()).toContain(
        "warn: SERVICE_API_KEY holds an unexpanded placeholder",
      );
    });

    it("uses the persona tool's active profile when nothing else is set", async () => {
      const profileHome = fs.mkdtempSync(path.join(suite.workDirectory, "home-"));
      const environment = isolatedEnvironment(profileHome);
      saveProfile(
        "default",
        { apiKey: suite.api.apiKey, personaId: suite.api.personaId, baseUrl: suite.api.baseUrl },
        { env: environment },
      );
      const connection = await suite.connect({ env: environment, cwd: suite.workDirectory });
      suite.connections.push(connection);
      const result = await suite.call(connection, "generate", { message: "Hi" });
      expect(result.isError).toBeFalsy();
      expect(connection.stderr()).toMatch(
        /key prk_…\w{4} \(the persona tool's profile "default" \(/u,
      );
    });

    it("never shows a key in any tool result or log line", async () => {
      await Promise.all(suite.connections.map((connection) => connection.close()));
      const everything = [
        ...suite.transcript,
        ...suite.connections.map((connection) => connection.stderr()),
      ];
      expect(everything.length).toBeGreaterThan(20);
      for (const text of everything) {
        for (const key of suite.keys) expect(text).not.toContain(key);
      }
      // The logs did name the keys, masked.
      expect(suite.configured.stderr()).toContain(`key prk_…${suite.api.apiKey.slice(-4)}`);
    });
  });
}

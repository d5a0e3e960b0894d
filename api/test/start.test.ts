import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  completionResponseSchema,
  generateResponseSchema,
  personifyResponseSchema,
} from "@persona-reply/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SpawnedService, spawnService } from "../../test-support/spawn-service.js";
import { readEnvFile } from "../src/seed/env-file.js";

let directory: string;
let service: SpawnedService;
beforeAll(async () => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-start-"));
  fs.writeFileSync(path.join(directory, ".env"), "# my settings\nOTHER=kept\n");
  service = await spawnService(directory);
});
afterAll(() => {
  if (service.child.exitCode === null) service.child.kill("SIGKILL");
  fs.rmSync(directory, { recursive: true, force: true });
});

describe("npm start on a fresh store (the main job)", () => {
  it("seeds the demo and writes SERVICE_* to .env with mode 0600, keeping other lines", () => {
    const file = path.join(directory, ".env");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const values = readEnvFile(file);
    expect(values.OTHER).toBe("kept");
    expect(values.SERVICE_API_KEY).toMatch(/^prk_/u);
    expect(values.SERVICE_PERSONA_ID).toMatch(/^[0-9a-f-]{36}$/u);
    expect(values.SERVICE_BASE_URL).toBe(service.url);
    const database = path.join(fs.realpathSync(directory), "data", "persona-reply.sqlite");
    expect(fs.existsSync(database)).toBe(true);
    // The database the key was written for, so a lost file is told from a new one (issue 29).
    expect(values.SERVICE_DATABASE).toBe(database);
  });

  it("never prints the key, and logs JSON lines beside plain lines for the operator", () => {
    const key = readEnvFile(path.join(directory, ".env")).SERVICE_API_KEY ?? "";
    expect(key.length).toBeGreaterThan(20);
    expect(service.output()).not.toContain(key);
    expect(service.output()).not.toContain(key.slice(4, 30));
    const lines = service.output().trim().split("\n");
    // Standard error carries the operator's plain lines (the demo address that may sign in).
    const plain = lines.filter((line) => line.startsWith("persona-reply: "));
    expect(plain).toEqual([
      expect.stringMatching(
        /^persona-reply: playground sign-in for the demo account: you@persona\.localhost at http:\/\/127\.0\.0\.1:\d+\/sign-in;/u,
      ),
    ]);
    for (const line of lines.filter((entry) => !plain.includes(entry)))
      expect(() => JSON.parse(line)).not.toThrow();
  });

  it("answers each endpoint with the demo key from .env", async () => {
    const env = readEnvFile(path.join(directory, ".env"));
    const headers = {
      "content-type": "application/json",
      authorization: `Bearer ${env.SERVICE_API_KEY}`,
    };
    const post = (endpoint: string, body: unknown) =>
      fetch(`${env.SERVICE_BASE_URL}/api/v1/${endpoint}`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
      });
    const generated = await post("generate", {
      personaId: env.SERVICE_PERSONA_ID,
      messages: [{ role: "user", content: "Hello!" }],
    });
    expect(generated.status).toBe(200);
    generateResponseSchema.parse(await generated.json());
    const personified = await post("personify", {
      personaId: env.SERVICE_PERSONA_ID,
      raw: "We meet at noon.",
    });
    expect(personified.status).toBe(200);
    personifyResponseSchema.parse(await personified.json());
    const completed = await post("completions", { model: env.SERVICE_PERSONA_ID, prompt: "Hi" });
    expect(completed.status).toBe(200);
    completionResponseSchema.parse(await completed.json());
    // Requests were logged (lines reach standard output within 200 ms), with the key redacted.
    const until = Date.now() + 2_000;
    while (!/"statusCode":200/u.test(service.output()) && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(service.output()).toMatch(/"statusCode":200/u);
    expect(service.output()).not.toContain(env.SERVICE_API_KEY ?? "unset");
  });

  it("shuts down gracefully on SIGTERM, and a second start keeps the same key", async () => {
    const file = path.join(directory, ".env");
    const before = readEnvFile(file);
    expect(await service.stop()).toBe(0);
    // A file written before it named its database learns the name at the next start.
    fs.writeFileSync(
      file,
      fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => !line.startsWith("SERVICE_DATABASE="))
        .join("\n"),
    );
    service = await spawnService(directory);
    const env = readEnvFile(file);
    expect(env.SERVICE_API_KEY).toBe(before.SERVICE_API_KEY);
    expect(env.SERVICE_BASE_URL).toBe(service.url);
    expect(env.SERVICE_DATABASE).toBe(before.SERVICE_DATABASE);
    expect(await service.stop()).toBe(0);
  });

  it("refuses to start with a bad configuration value and names the variable", async () => {
    await expect(spawnService(directory, { PERSONA_BODY_LIMIT_BYTES: "lots" })).rejects.toThrow(
      /PERSONA_BODY_LIMIT_BYTES/u,
    );
  });
});

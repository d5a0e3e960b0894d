import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postJson } from "./support/example-fixture.js";

// The repository's `npm start` (after its build) runs scripts/start.mjs: the
// service, then the example app beside it, configured from the .env the
// service's first run wrote. Run here in a fresh folder on free ports.

const START_SCRIPT = fileURLToPath(new URL("../../scripts/start.mjs", import.meta.url));
const EXAMPLE_MAIN = fileURLToPath(new URL("../dist/server/main.js", import.meta.url));
const EXAMPLE_INDEX = fileURLToPath(new URL("../dist/web/index.html", import.meta.url));

let directory: string;
let child: ChildProcess;
let output = "";
let exampleUrl: string;

beforeAll(async () => {
  for (const file of [EXAMPLE_MAIN, EXAMPLE_INDEX]) {
    if (!fs.existsSync(file)) throw new Error(`${file} is missing: run npm run build first`);
  }
  directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-root-start-"));
  child = spawn(process.execPath, [START_SCRIPT], {
    cwd: directory,
    env: {
      ...process.env,
      PERSONA_PORT: "0",
      EXAMPLE_PORT: "0",
      // The supervisor must take these from the .env the service writes.
      SERVICE_API_KEY: "",
      SERVICE_PERSONA_ID: "",
      SERVICE_BASE_URL: "",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  exampleUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start:\n${output}`)), 30_000);
    const onData = (data: Buffer) => {
      output += data.toString("utf8");
      const match = /"msg":"example app is listening","url":"(http:\/\/[^"]+)"/u.exec(output);
      if (match?.[1] === undefined) return;
      clearTimeout(timer);
      resolve(match[1]);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${output}`));
    });
  });
});
afterAll(() => {
  if (child?.exitCode === null) child.kill("SIGKILL");
  if (directory !== undefined) fs.rmSync(directory, { recursive: true, force: true });
});

describe("npm start brings the example app up beside the service", () => {
  it("serves the pages and answers the routes with the key and persona the first run wrote", async () => {
    const page = await fetch(`${exampleUrl}/chat`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    const env = fs.readFileSync(path.join(directory, ".env"), "utf8");
    const personaId = /^SERVICE_PERSONA_ID=(.+)$/mu.exec(env)?.[1];
    const key = /^SERVICE_API_KEY=(.+)$/mu.exec(env)?.[1] ?? "unset";
    const quickstart = await postJson(`${exampleUrl}/api/quickstart`, { prompt: "Hello!" });
    expect(quickstart.status).toBe(200);
    expect((quickstart.body as { model: string }).model).toBe(personaId);
    const personify = await postJson(`${exampleUrl}/api/personify`, { raw: "We meet at noon." });
    expect(personify.status).toBe(200);
    // A boolean, so a failure never prints the key.
    expect(output.includes(key)).toBe(false);
  });

  it("SIGTERM stops both processes, and the script exits 0", async () => {
    const serviceUrl = /"url":"(http:\/\/[^"]+)"[^\n]*Persona Reply is listening/u.exec(
      output,
    )?.[1];
    expect(serviceUrl).toBeDefined();
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    await expect(fetch(`${exampleUrl}/`)).rejects.toThrow();
    await expect(fetch(`${serviceUrl}/healthz`)).rejects.toThrow();
  });
});

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type ApiFixture, startApi } from "../../test-support/spawn-service.js";
import {
  npm,
  type PackedTarball,
  PUBLISHED_WORKSPACES,
  packWorkspaces,
  REPOSITORY_ROOT,
  seedDependencies,
} from "./support/packed-project.js";

// The published packages as a user gets them: `npm pack` of shared, client
// and mcp-server, installed with `npm install --offline` into an empty
// project outside the repository (their third-party dependencies copied in
// first from this repository's node_modules, so no registry is needed).
// There, `npx --no-install persona` and `persona-mcp` answer against the
// real service, the library imports as ESM and calls it, and a TypeScript
// file typechecks against the installed type declarations.

const PACKAGE_NAMES = PUBLISHED_WORKSPACES.map((folder) => `@persona-reply/${folder}`);

let home: string;
let project: string;
let tarballs: PackedTarball[];
let api: ApiFixture;

function readManifest(folder: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(folder, "package.json"), "utf8"));
}

/** The environment a user's shell has after `source .env`, and nothing of this repository. */
function userEnvironment(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, "config"),
    SERVICE_API_KEY: api.apiKey,
    SERVICE_PERSONA_ID: api.personaId,
    SERVICE_BASE_URL: api.baseUrl,
  };
}

beforeAll(async () => {
  home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "persona-packed-")));
  const tarballFolder = path.join(home, "tarballs");
  fs.mkdirSync(tarballFolder);
  tarballs = packWorkspaces(tarballFolder);

  project = path.join(home, "project");
  fs.mkdirSync(project);
  const typesNode = readManifest(path.join(REPOSITORY_ROOT, "node_modules", "@types", "node"));
  fs.writeFileSync(
    path.join(project, "package.json"),
    JSON.stringify({
      name: "packed-install-check",
      private: true,
      type: "module",
      dependencies: Object.fromEntries(
        tarballs.map((tarball) => [tarball.name, `file:../tarballs/${tarball.filename}`]),
      ),
      devDependencies: { "@types/node": String(typesNode.version) },
    }),
  );
  seedDependencies(project, [
    ...PUBLISHED_WORKSPACES.map((folder) => ({
      manifest: readManifest(path.join(REPOSITORY_ROOT, folder)),
      fromFolder: path.join(REPOSITORY_ROOT, folder),
    })),
    { manifest: { dependencies: { "@types/node": "*" } }, fromFolder: REPOSITORY_ROOT },
  ]);
  npm(["install"], project);
  api = await startApi();
}, 180_000);

afterAll(async () => {
  await api?.stop();
  if (home !== undefined) fs.rmSync(home, { recursive: true, force: true });
});

describe("the packed packages", () => {
  it("are the three published packages, each with its README, and no sources or tests", () => {
    expect(tarballs.map((tarball) => tarball.name)).toEqual(PACKAGE_NAMES);
    for (const tarball of tarballs) {
      const files = tarball.files.map((file) => file.path);
      expect(files).toContain("README.md");
      expect(files).toContain("package.json");
      expect(files.filter((file) => !/^(bin|dist)\/|^[^/]+$/u.test(file))).toEqual([]);
      expect(files.filter((file) => /\.test\.|\.tsbuildinfo$/u.test(file))).toEqual([]);
    }
  });

  it("install with engines, ESM, and every bin, main, types and export target present", () => {
    for (const name of PACKAGE_NAMES) {
      const folder = path.join(project, "node_modules", name);
      const manifest = readManifest(folder) as {
        type: string;
        engines: { node: string };
        main: string;
        types: string;
        bin?: Record<string, string>;
        exports: Record<string, Record<string, string>>;
      };
      expect(manifest.type).toBe("module");
      expect(manifest.engines.node).toBe(">=20.19.0");
      const targets = [manifest.main, manifest.types, ...Object.values(manifest.bin ?? {})];
      for (const conditions of Object.values(manifest.exports)) {
        targets.push(String(conditions.types), String(conditions.default));
      }
      for (const target of targets) {
        expect(fs.existsSync(path.join(folder, target)), `${name}: ${target}`).toBe(true);
      }
    }
    for (const command of ["persona", "persona-mcp"]) {
      expect(fs.existsSync(path.join(project, "node_modules", ".bin", command))).toBe(true);
    }
  });
});

describe("in a project that installed them", () => {
  it("npx --no-install persona generate answers from the service", { timeout: 30_000 }, () => {
    const result = spawnSync(
      "npx",
      ["--no-install", "persona", "generate", "--json", "Which herbs grow well on a balcony?"],
      {
        cwd: project,
        encoding: "utf8",
        env: {
          ...userEnvironment(),
          npm_config_offline: "true",
          npm_config_update_notifier: "false",
        },
      },
    );
    expect(result.status, result.stderr).toBe(0);
    const reply = z
      .object({ finalReply: z.string().min(1), chunks: z.array(z.string()).min(1) })
      .parse(JSON.parse(result.stdout));
    expect(reply.finalReply.length).toBeGreaterThan(0);
    expect(`${result.stdout}${result.stderr}`.includes(api.apiKey)).toBe(false);
  });

  it("persona-mcp lists its tools and answers generate over stdio", {
    timeout: 30_000,
  }, async () => {
    const transport = new StdioClientTransport({
      command: path.join(project, "node_modules", ".bin", "persona-mcp"),
      args: [],
      env: userEnvironment(),
      cwd: project,
      stderr: "pipe",
    });
    const client = new Client({ name: "packed-install-test", version: "0.1.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(["generate", "personify"]);
      const result = await client.callTool({ name: "generate", arguments: { message: "Hello!" } });
      expect(result.isError).not.toBe(true);
      expect(
        z.object({ finalReply: z.string().min(1) }).parse(result.structuredContent),
      ).toBeTruthy();
    } finally {
      await client.close();
    }
  });

  it("the library imports as ESM and calls the service", { timeout: 30_000 }, () => {
    fs.writeFileSync(
      path.join(project, "call.mjs"),
      [
        'import { PersonaClient } from "@persona-reply/client";',
        'import { personaIdSchema } from "@persona-reply/shared";',
        "const client = new PersonaClient();",
        "personaIdSchema.parse(process.env.SERVICE_PERSONA_ID);",
        'const { personified } = await client.personify({ raw: "We meet at noon." });',
        "console.log(JSON.stringify({ personified }));",
      ].join("\n"),
    );
    const result = spawnSync(process.execPath, ["call.mjs"], {
      cwd: project,
      encoding: "utf8",
      env: userEnvironment(),
    });
    expect(result.status, result.stderr).toBe(0);
    expect(
      z.object({ personified: z.string().min(1) }).parse(JSON.parse(result.stdout)),
    ).toBeTruthy();
  });

  it("a TypeScript file typechecks against the installed declarations (and a wrong call does not)", {
    timeout: 60_000,
  }, () => {
    fs.writeFileSync(
      path.join(project, "check.ts"),
      [
        'import { type GenerateResult, PersonaClient, RateLimitError } from "@persona-reply/client";',
        'import { loginWithBrowser } from "@persona-reply/client/login";',
        'import { loadProfiles } from "@persona-reply/client/node";',
        'import { createPersonaServer } from "@persona-reply/mcp-server";',
        'import { type GenerateResponse, personaIdSchema } from "@persona-reply/shared";',
        "",
        'const client = new PersonaClient({ apiKey: "prk_example", personaId: personaIdSchema.parse("3bee94bc-c62f-4582-9fa6-2c47d62ac431") });',
        'const reply: Promise<GenerateResult> = client.generate({ messages: [{ role: "user", content: "Hi" }] });',
        "const wire: GenerateResponse | undefined = undefined;",
        'const retryAfter: number | undefined = new RateLimitError("slow down", { status: 429 }).retryAfter;',
        "// @ts-expect-error: generate takes { messages } or { message }, not a string",
        'void client.generate("Hi");',
        "export { createPersonaServer, loadProfiles, loginWithBrowser, reply, retryAfter, wire };",
      ].join("\n"),
    );
    fs.writeFileSync(
      path.join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2023",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ["node"],
        },
        files: ["check.ts"],
      }),
    );
    const tsc = path.join(REPOSITORY_ROOT, "node_modules", "typescript", "bin", "tsc");
    const result = spawnSync(process.execPath, [tsc, "-p", "tsconfig.json"], {
      cwd: project,
      encoding: "utf8",
    });
    expect(result.stdout).toBe("");
    expect(result.status).toBe(0);
  });
});

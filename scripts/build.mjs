#!/usr/bin/env node
// `npm run build` (and the build behind `npm start`, `npm test`, `npm run
// bench`): builds only what changed, so a start with nothing changed is
// quick. Each step runs only when the content of its inputs differs from its
// last run, or one of its outputs is missing or was changed since
// (scripts/build-stamps.mjs):
//
// 1. TypeScript, every package at once: `tsc --build tsconfig.build.json`.
//    The packages are composite projects that reference what they import,
//    and tsc itself rebuilds only the packages whose sources changed (and
//    re-checks those that import them), from the .tsbuildinfo in each dist/.
//    Skipping the step when no input changed also saves loading TypeScript.
// 2. The `persona` bundle, the plugin's committed bundles, and the example
//    app's front end (Vite).
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { inspectStep } from "./build-stamps.mjs";

const root = path.resolve(import.meta.dirname, "..");
// Tools resolved as the package that uses them would (vite is the example app's).
const require = createRequire(path.join(root, "example-app", "package.json"));

/** The sources every bundle reads (workspace packages are bundled from src/). */
const LIBRARY_SOURCES = ["shared/src", "client/src", "package-lock.json"];

/** The TypeScript projects of tsconfig.build.json: each package's folder and its source folder. */
const TYPESCRIPT_PROJECTS = [
  ["shared", "src"],
  ["api", "src"],
  ["client", "src"],
  ["mcp-server", "src"],
  ["example-app", "server"],
];

/**
 * The steps in order: what each reads (files or folders, relative to the
 * root), what it writes, and the Node arguments of the command that writes it.
 */
const STEPS = [
  {
    name: "typescript",
    inputs: [
      "tsconfig.base.json",
      "tsconfig.build.json",
      "package-lock.json",
      ...TYPESCRIPT_PROJECTS.flatMap(([folder, sources]) => [
        `${folder}/${sources}`,
        `${folder}/tsconfig.build.json`,
        `${folder}/package.json`,
      ]),
    ],
    outputs: TYPESCRIPT_PROJECTS.map(([folder, sources]) =>
      sources === "src" ? `${folder}/dist/.tsbuildinfo` : `${folder}/dist/${sources}/.tsbuildinfo`,
    ),
    command: [require.resolve("typescript/bin/tsc"), "--build", "tsconfig.build.json"],
  },
  {
    name: "persona command bundle",
    inputs: [...LIBRARY_SOURCES, "client/scripts", "scripts/bundle-executable.mjs"],
    outputs: ["client/dist/cli/main.js"],
    command: ["client/scripts/bundle-cli.mjs"],
  },
  {
    name: "plugin bundles",
    inputs: [
      ...LIBRARY_SOURCES,
      "mcp-server/src",
      "plugin/src",
      "plugin/scripts",
      "scripts/bundle-executable.mjs",
    ],
    outputs: [
      "plugin/bundle/persona-mcp.mjs",
      "plugin/bundle/setup.mjs",
      "plugin/bundle/THIRD-PARTY-LICENSES.md",
    ],
    command: ["plugin/scripts/bundle-plugin.mjs"],
  },
  {
    name: "example app front end",
    inputs: [
      "example-app/src",
      "example-app/public",
      "example-app/index.html",
      "example-app/vite.config.ts",
      "package-lock.json",
    ],
    outputs: ["example-app/dist/web/index.html", "example-app/dist/web/.vite/manifest.json"],
    command: [
      path.join(path.dirname(require.resolve("vite/package.json")), "bin", "vite.js"),
      "build",
      "--logLevel",
      "warn",
    ],
    cwd: "example-app",
  },
];

/** Runs `node …arguments`, passing its output through; exits with its code if it fails. */
function run(name, nodeArguments, cwd = root) {
  const started = performance.now();
  const result = spawnSync(process.execPath, nodeArguments, {
    cwd: path.resolve(root, cwd),
    stdio: "inherit",
  });
  if (result.status !== 0) {
    process.stderr.write(`build: ${name} failed\n`);
    process.exit(result.status ?? 1);
  }
  return Math.round(performance.now() - started);
}

const started = performance.now();
const report = [];
for (const step of STEPS) {
  const state = inspectStep(root, step);
  if (state.upToDate) {
    report.push(`${step.name} up to date`);
    continue;
  }
  report.push(`${step.name} ${run(step.name, step.command, step.cwd)} ms`);
  state.record();
}
process.stderr.write(
  `build: ${report.join(", ")} (${Math.round(performance.now() - started)} ms)\n`,
);

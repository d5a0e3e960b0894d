import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "vite";

/** The example app's folder. */
export const APP_DIRECTORY = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Runs the production build of the front end (`vite build` with the app's
 * own vite.config.ts) into a new temporary folder, with `environment` set
 * in `process.env` meanwhile — e.g. the API key, as when a developer builds
 * in a shell that sourced .env — and returns the folder.
 */
export async function buildFrontEnd(environment: Record<string, string> = {}): Promise<string> {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), "example-app-web-"));
  const saved = new Map(
    [...Object.keys(environment), "NODE_ENV"].map((name) => [name, process.env[name]]),
  );
  // vitest sets NODE_ENV=test, which would give React's development build.
  Object.assign(process.env, environment, { NODE_ENV: "production" });
  try {
    await build({
      root: APP_DIRECTORY,
      configFile: path.join(APP_DIRECTORY, "vite.config.ts"),
      mode: "production",
      logLevel: "silent",
      build: { outDir, emptyOutDir: true },
    });
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  return outDir;
}

/** Every file under `directory`, as paths relative to it with `/` separators. */
export function listFiles(directory: string): string[] {
  return fs
    .readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) =>
      path.relative(directory, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"),
    );
}

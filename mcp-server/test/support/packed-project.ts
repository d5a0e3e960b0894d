import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const REPOSITORY_ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** The workspaces published to npm, in dependency order. */
export const PUBLISHED_WORKSPACES = ["shared", "client", "mcp-server"] as const;

/** One tarball of `npm pack --json`. */
export interface PackedTarball {
  name: string;
  version: string;
  filename: string;
  files: Array<{ path: string; mode: number }>;
}

/** Runs npm (offline: nothing here may reach the registry) and throws with its output when it fails. */
export function npm(args: string[], cwd: string): string {
  const result = spawnSync("npm", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      npm_config_offline: "true",
      npm_config_audit: "false",
      npm_config_fund: "false",
      npm_config_update_notifier: "false",
    },
  });
  if (result.status !== 0) {
    throw new Error(`npm ${args.join(" ")} failed (${result.status}):\n${result.stderr}`);
  }
  return result.stdout;
}

/** `npm pack` of the published workspaces into `destination` (the packages must be built). */
export function packWorkspaces(destination: string): PackedTarball[] {
  const workspaces = PUBLISHED_WORKSPACES.flatMap((name) => ["--workspace", name]);
  const output = npm(
    ["pack", ...workspaces, "--pack-destination", destination, "--json"],
    REPOSITORY_ROOT,
  );
  return JSON.parse(output) as PackedTarball[];
}

/** The folder of `name` as Node would resolve it from `fromFolder` (its real path), if any. */
function findPackage(name: string, fromFolder: string): string | undefined {
  for (let folder = fromFolder; ; folder = path.dirname(folder)) {
    const candidate = path.join(folder, "node_modules", name);
    if (fs.existsSync(path.join(candidate, "package.json"))) return fs.realpathSync(candidate);
    if (path.dirname(folder) === folder) return undefined;
  }
}

interface Manifest {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/**
 * Copies into `project/node_modules` the third-party packages the given
 * manifests depend on, with everything they depend on in turn, from this
 * repository's node_modules (the versions its lockfile installed): flat
 * where the name is free, nested under the package that needs it where
 * another version holds the name. `npm install --offline` of the tarballs
 * then finds every dependency already satisfied and needs no registry,
 * whose package metadata npm ci never caches.
 *
 * @param fromFolders - where each manifest's dependencies resolve from (its package folder)
 */
export function seedDependencies(
  project: string,
  manifests: Array<{ manifest: Manifest; fromFolder: string }>,
): void {
  const placed = new Map<string, string>();
  const place = (name: string, fromFolder: string, parent: string, optional: boolean) => {
    const source = findPackage(name, fromFolder);
    if (source === undefined) {
      if (optional) return;
      throw new Error(`${name} (needed from ${fromFolder}) is not installed in this repository`);
    }
    let target = path.join(project, "node_modules", name);
    if (placed.has(target)) {
      if (placed.get(target) === source) return;
      target = path.join(parent, "node_modules", name);
      if (placed.has(target)) return;
    }
    placed.set(target, source);
    const nested = path.join(source, "node_modules");
    fs.cpSync(source, target, {
      recursive: true,
      filter: (file) => file !== nested && !file.startsWith(`${nested}${path.sep}`),
    });
    visit(JSON.parse(fs.readFileSync(path.join(source, "package.json"), "utf8")), source, target);
  };
  const visit = (manifest: Manifest, fromFolder: string, parent: string) => {
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      if (!name.startsWith("@persona-reply/")) place(name, fromFolder, parent, false);
    }
    for (const name of Object.keys(manifest.optionalDependencies ?? {})) {
      place(name, fromFolder, parent, true);
    }
    for (const name of Object.keys(manifest.peerDependencies ?? {})) {
      place(name, fromFolder, parent, manifest.peerDependenciesMeta?.[name]?.optional === true);
    }
  };
  for (const { manifest, fromFolder } of manifests) visit(manifest, fromFolder, project);
}

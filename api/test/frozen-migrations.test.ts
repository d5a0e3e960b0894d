import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// Migrations are history (docs/schema/README.md): a shipped migration never
// changes, so it may not depend on code that does, and live code may not
// depend on it. This suite reads every import of api/src and holds that.

const API = path.resolve(import.meta.dirname, "..");
const SOURCES = path.join(API, "src");

/** The registry that gathers every migration for the runner. */
const REGISTRY = "src/schema-migrations.ts";

/** What a migration may import besides other migrations: kysely and the runner (its types, `dropForeignKeys`). */
const MIGRATION_FLOOR = ["kysely", "src/storage/migrations.ts"];

/**
 * Live modules that still import a migration, each with what it imports,
 * until they are changed (none today). A migration must not be edited to
 * serve them: the live definition goes to a live module and the import
 * moves there.
 */
const PENDING: Readonly<Record<string, readonly string[]>> = {};

const isMigration = (file: string) => file.endsWith("-migration.ts");

/** Every TypeScript module of api/src but unit tests, relative to api/ (`src/…`), sorted. */
function sourceModules(): string[] {
  return fs
    .readdirSync(SOURCES, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
    .map((file) => path.posix.join("src", file.split(path.sep).join("/")))
    .sort();
}

/**
 * What a module imports — static imports, `import type`, re-exports and
 * dynamic `import()`, read by TypeScript's own pre-processor — as a path
 * relative to api/ for a relative import (`.js` written, `.ts` on disk),
 * or the package name.
 */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(API, file), "utf8");
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles.map(({ fileName }) => {
    if (!fileName.startsWith(".")) return fileName;
    return path.posix.join(path.posix.dirname(file), fileName).replace(/\.js$/u, ".ts");
  });
}

const modules = sourceModules();
const imports = new Map(modules.map((file) => [file, importsOf(file)]));
const migrations = modules.filter(isMigration);

describe("migrations are frozen records", () => {
  it("finds the migrations and their imports", () => {
    expect(migrations.length).toBeGreaterThan(0);
    expect(imports.get(REGISTRY)?.filter(isMigration).sort()).toEqual(migrations);
  });

  it("no live module imports a migration (only the registry gathers them)", () => {
    const offending = modules
      .filter((file) => file !== REGISTRY && !isMigration(file))
      .flatMap((file) =>
        (imports.get(file) ?? [])
          .filter((imported) => isMigration(imported) && !PENDING[file]?.includes(imported))
          .map((imported) => `${file} imports ${imported}`),
      );
    expect(
      offending,
      "move what both use to a live module; the migration keeps its own copy",
    ).toEqual([]);
  });

  it("a migration imports only kysely, the runner and other migrations", () => {
    const offending = migrations.flatMap((file) =>
      (imports.get(file) ?? [])
        .filter((imported) => !MIGRATION_FLOOR.includes(imported) && !isMigration(imported))
        .map((imported) => `${file} imports ${imported}`),
    );
    expect(
      offending,
      "copy what the migration needs into it: live code may change after it shipped",
    ).toEqual([]);
  });

  it("lists as pending only imports that are still there", () => {
    const stale = Object.entries(PENDING).flatMap(([file, pending]) =>
      pending
        .filter((imported) => !imports.get(file)?.includes(imported))
        .map((imported) => `${file} → ${imported}`),
    );
    expect(stale, "remove these from PENDING: the rule holds for them now").toEqual([]);
  });
});

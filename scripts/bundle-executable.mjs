// One executable file from a TypeScript entry point and everything it
// imports (workspace packages from their sources, npm dependencies from
// node_modules), with rolldown. Used for the `persona` command
// (client/scripts/bundle-cli.mjs) and for the plugin's committed programs
// (plugin/scripts/bundle-plugin.mjs), which must run with Node alone.
import fs from "node:fs";
import path from "node:path";
import { build } from "rolldown";

/** The export condition under which workspace packages point at their TypeScript sources. */
const SOURCE_CONDITION = "@persona-reply/source";

/**
 * Bundles `input` into the single ES module `output`, minified, starting
 * with `shebang` and made executable. Workspace packages are read from
 * their sources (the `@persona-reply/source` export condition), so the
 * result does not depend on a TypeScript build having run first. License
 * comments of bundled packages are kept.
 *
 * @param {object} options
 * @param {string} options.input - the entry point (a `.ts` file)
 * @param {string} options.output - the file to write
 * @param {string} [options.shebang] - first line; default `#!/usr/bin/env node`
 * @param {boolean} [options.sourcemap] - also write `<output>.map`; default false
 * @returns {Promise<BundledPackage[]>} the npm packages the bundle holds, by name
 */
export async function bundleExecutable({
  input,
  output,
  shebang = "#!/usr/bin/env node",
  sourcemap = false,
}) {
  const result = await build({
    input,
    platform: "node",
    logLevel: "warn",
    resolve: { conditionNames: [SOURCE_CONDITION, "node", "import", "default"] },
    output: {
      file: output,
      format: "esm",
      minify: true,
      sourcemap,
      comments: { legal: true, annotation: false, jsdoc: false },
    },
  });
  // The entry's own shebang (if any) is replaced by the one asked for.
  const code = fs.readFileSync(output, "utf8").replace(/^#![^\n]*\n/u, "");
  fs.writeFileSync(output, `${shebang}\n${code}`);
  fs.chmodSync(output, 0o755);
  return bundledPackages(result.output[0].moduleIds);
}

/**
 * @typedef {object} BundledPackage
 * @property {string} name
 * @property {string} version
 * @property {string} license - the package's `license` field
 * @property {string | undefined} licenseText - its LICENSE file, when it has one
 */

/** The npm packages (under node_modules) the given module files belong to, sorted by name. */
function bundledPackages(moduleIds) {
  const found = new Map();
  for (const id of moduleIds) {
    if (!id.includes(`${path.sep}node_modules${path.sep}`)) continue;
    const folder = packageFolder(id);
    if (folder === undefined || found.has(folder)) continue;
    const manifest = JSON.parse(fs.readFileSync(path.join(folder, "package.json"), "utf8"));
    const licenseFile = fs
      .readdirSync(folder)
      .find((name) => /^(licen[cs]e|copying)([.-]|$)/iu.test(name));
    found.set(folder, {
      name: manifest.name,
      version: manifest.version,
      license: manifest.license ?? "see the package",
      licenseText:
        licenseFile === undefined
          ? undefined
          : fs.readFileSync(path.join(folder, licenseFile), "utf8").trim(),
    });
  }
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name, "en"));
}

/** The folder of the package a file inside node_modules belongs to (its nearest package.json with a name). */
function packageFolder(file) {
  for (let folder = path.dirname(file); path.basename(folder) !== "node_modules"; ) {
    const manifest = path.join(folder, "package.json");
    if (fs.existsSync(manifest) && JSON.parse(fs.readFileSync(manifest, "utf8")).name)
      return folder;
    const parent = path.dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
  }
  return undefined;
}

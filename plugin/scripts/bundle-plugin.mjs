// Bundles the two programs the plugin runs into bundle/, committed with the
// plugin so that a copy of this folder alone works with Node ≥ 20.19 (no
// node_modules, no sibling folders): Claude Code and Codex install a plugin
// by copying its folder into their plugin cache.
//
//   bundle/persona-mcp.mjs           the MCP server (mcp-server/src/main.ts), started by .mcp.json
//   bundle/setup.mjs                 the key setup (src/setup/main.ts), run by commands/setup.md
//   bundle/THIRD-PARTY-LICENSES.md   the npm packages inside them, with their licenses
//
// The output depends only on the sources and the locked dependency versions,
// so CI rebuilds it and fails when the committed files differ (.ci/run).
import fs from "node:fs";
import path from "node:path";
import { bundleExecutable } from "../../scripts/bundle-executable.mjs";

const root = path.resolve(import.meta.dirname, "..");

const programs = [
  {
    input: path.join(root, "../mcp-server/src/main.ts"),
    output: path.join(root, "bundle/persona-mcp.mjs"),
    shebang: "#!/usr/bin/env node",
  },
  {
    input: path.join(root, "src/setup/main.ts"),
    output: path.join(root, "bundle/setup.mjs"),
    // `--` first: Node would otherwise take the script's --env-file as its own (see src/setup/main.ts).
    shebang: "#!/usr/bin/env -S node --",
  },
];

const packages = new Map();
for (const program of programs) {
  for (const bundled of await bundleExecutable(program)) {
    packages.set(`${bundled.name}@${bundled.version}`, bundled);
  }
}

const sections = [...packages.values()]
  .sort((a, b) => a.name.localeCompare(b.name, "en") || a.version.localeCompare(b.version, "en"))
  .map(
    (bundled) =>
      `## ${bundled.name} ${bundled.version} (${bundled.license})\n\n` +
      (bundled.licenseText === undefined
        ? "The package ships no license file.\n"
        : `\`\`\`text\n${bundled.licenseText}\n\`\`\`\n`),
  );
fs.writeFileSync(
  path.join(root, "bundle/THIRD-PARTY-LICENSES.md"),
  `# Third-party packages in persona-mcp.mjs and setup.mjs\n\nWritten by scripts/bundle-plugin.mjs; do not edit.\n\n${sections.join("\n")}`,
);

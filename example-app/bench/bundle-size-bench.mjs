// npm run bench (example app): JavaScript shipped to the browser by the
// production build, for the three pages (/, /chat, /personify) together.
// Target (issue "example app"): under 80 KB gzip (80 000 bytes).
//
// The front end is built fresh (vite build, production mode) into a
// temporary folder and served by the example app's own express server (from
// its compiled files: run after npm run build). With chromium present, each
// page is loaded in a real browser and every script it fetched is counted;
// without it, the scripts are read from index.html and Vite's manifest.
// gzip is zlib's default level 6, what an on-the-fly compressing server sends.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";
import { build } from "vite";
import { machineLine, writeSection } from "../../bench/results-file.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const appDirectory = path.resolve(here, "..");
const root = path.resolve(appDirectory, "..");
const PAGES = ["/", "/chat", "/personify"];
const TARGET_BYTES = 80_000;
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

const outDir = fs.mkdtempSync(path.join(os.tmpdir(), "example-app-bench-"));
process.env.NODE_ENV = "production";
await build({
  root: appDirectory,
  configFile: path.join(appDirectory, "vite.config.ts"),
  mode: "production",
  logLevel: "warn",
  build: { outDir, emptyOutDir: true },
});

const size = (file) => {
  const bytes = fs.readFileSync(path.join(outDir, file));
  return { raw: bytes.length, gzip: zlib.gzipSync(bytes).length };
};

/** Scripts of each page, as paths relative to outDir, read by loading the page in chromium. */
async function scriptsInBrowser() {
  const { loadConfig } = await import("../dist/server/config.js");
  const { startServer } = await import("../dist/server/server.js");
  const { chromium } = await import("playwright-core");
  const server = await startServer(
    loadConfig({ environment: { EXAMPLE_PORT: "0" }, envFiles: [], webDirectory: outDir }),
  );
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  try {
    const scripts = new Map();
    for (const page of PAGES) {
      const context = await browser.newContext();
      const tab = await context.newPage();
      const loaded = new Set();
      tab.on("response", (response) => {
        if (response.request().resourceType() === "script") {
          loaded.add(new URL(response.url()).pathname.replace(/^\//u, ""));
        }
      });
      await tab.goto(`${server.url}${page}`, { waitUntil: "networkidle" });
      await tab.getByRole("heading", { level: 1 }).waitFor();
      scripts.set(page, [...loaded]);
      await context.close();
    }
    return scripts;
  } finally {
    await browser.close();
    await server.stop();
  }
}

/** Scripts of each page from index.html and the manifest's static imports (the SPA loads one entry). */
function scriptsFromManifest() {
  const manifest = JSON.parse(fs.readFileSync(path.join(outDir, ".vite/manifest.json"), "utf8"));
  const files = new Set();
  const visit = (key) => {
    const chunk = manifest[key];
    if (chunk === undefined || files.has(chunk.file)) return;
    files.add(chunk.file);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  visit("index.html");
  return new Map(PAGES.map((page) => [page, [...files]]));
}

const useBrowser = fs.existsSync(CHROMIUM);
const scripts = useBrowser ? await scriptsInBrowser() : scriptsFromManifest();
const kb = (bytes) => `${(bytes / 1000).toFixed(1)} KB`;
const total = (files) =>
  files.reduce(
    (sum, file) => {
      const measured = size(file);
      return { raw: sum.raw + measured.raw, gzip: sum.gzip + measured.gzip };
    },
    { raw: 0, gzip: 0 },
  );

/** A Markdown table with padded columns, as the formatter (Biome) writes it. */
function markdownTable(rows) {
  const widths = rows[0].map((_, column) => Math.max(3, ...rows.map((row) => row[column].length)));
  const line = (cells) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column])).join(" | ")} |`;
  const rule = `| ${widths.map((width) => "-".repeat(width)).join(" | ")} |`;
  return [line(rows[0]), rule, ...rows.slice(1).map(line)].join("\n");
}

const rows = [["page", "scripts", "raw", "gzip"]];
for (const [page, files] of scripts) {
  const measured = total(files);
  rows.push([`\`${page}\``, String(files.length), kb(measured.raw), kb(measured.gzip)]);
}
const distinct = [...new Set([...scripts.values()].flat())];
const together = total(distinct);
rows.push([
  "**three pages together** (distinct scripts)",
  String(distinct.length),
  kb(together.raw),
  `**${kb(together.gzip)}**`,
]);
const allJs = fs
  .readdirSync(path.join(outDir, "assets"))
  .filter((file) => file.endsWith(".js"))
  .map((file) => `assets/${file}`);
const css = total(
  fs
    .readdirSync(path.join(outDir, "assets"))
    .filter((file) => file.endsWith(".css"))
    .map((file) => `assets/${file}`),
);
const pass = together.gzip < TARGET_BYTES && distinct.length > 0;

const section = `## Example app: JavaScript shipped to the browser

${machineLine()}. Command: \`npm run bench\` (\`example-app/bench/bundle-size-bench.mjs\`): production
build (\`vite build\`, React's production build), pages served by the example app's express
server; scripts counted ${useBrowser ? "as chromium fetched them when loading each page" : "from index.html and Vite's manifest (chromium not found)"}.
gzip at zlib's default level (6); 1 KB = 1000 bytes.

${markdownTable(rows)}

Target: under 80 KB gzip for the three pages together — **${pass ? "met" : "NOT met"}**. The build
holds ${allJs.length} JavaScript file(s) in all; the pages share one entry (React 19 and
react-dom are most of it). Stylesheet, not counted above: ${kb(css.gzip)} gzip.`;

writeSection(path.join(root, "docs/BENCHMARKS.md"), "example-app-bundle", section);
process.stdout.write(`${section}\n`);
fs.rmSync(outDir, { recursive: true, force: true });
if (!pass) process.exitCode = 1;

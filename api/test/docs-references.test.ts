import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DATABASE_IDENTITY_VARIABLE } from "../src/storage/env-file.js";

// The docs a clone reads must name files that exist, the variables the
// service writes, and the install scripts npm asks about: a renamed module,
// a new `.env` line or a new dependency with an install script shows here
// instead of in front of a newcomer.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PACKAGES = ["shared", "api", "client", "mcp-server", "plugin", "example-app"];

/** The tracked Markdown files a reader meets: every README and everything under docs/. */
function trackedDocs(): string[] {
  return execFileSync("git", ["ls-files", "-z", "--", "*.md"], { cwd: ROOT, encoding: "utf8" })
    .split("\0")
    .filter((file) => file !== "" && !file.includes("node_modules/"))
    .filter((file) => fs.existsSync(path.join(ROOT, file)));
}

const SOURCE_PATH = /`((?:[\w@.-]+\/)+[\w.-]+\.(?:ts|tsx|mjs|js|json|md|sql))`/gu;
const LINK_PATH = /\]\(((?![a-z]+:|#)[^)\s#]+)(?:#[^)\s]*)?\)/gu;

const ANCHOR_LINK = /\]\(((?![a-z]+:)[^)\s#]*)#([^)\s]+)\)/gu;

/** The anchors GitHub gives a Markdown file's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function headingAnchors(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of fs.readFileSync(path.join(ROOT, file), "utf8").split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.*)/u.exec(line);
    if (heading === null) continue;
    const slug = (heading[1] ?? "")
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, "")
      .replaceAll(" ", "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Folders a path written in `doc` may be relative to: the doc's own, its package's, the package's src/, and the root. */
function bases(doc: string): string[] {
  const folder = path.dirname(doc);
  const packageName = doc.split("/")[0] ?? "";
  const found = [folder, "."];
  if (PACKAGES.includes(packageName)) found.push(packageName, `${packageName}/src`);
  found.push("api", "api/src");
  return found;
}

function exists(doc: string, reference: string): boolean {
  return bases(doc).some((base) => fs.existsSync(path.join(ROOT, base, reference)));
}

describe("the docs a clone reads", () => {
  it("name only files that exist in the repository", () => {
    const missing: string[] = [];
    for (const doc of trackedDocs()) {
      const text = fs.readFileSync(path.join(ROOT, doc), "utf8");
      for (const match of text.matchAll(SOURCE_PATH)) {
        const reference = match[1] ?? "";
        if (/[<>*{}]|node_modules|^dist\/|\/dist\//u.test(reference)) continue;
        // Files in the user's project or home, which the docs tell them to write.
        if (/^(?:~|\.cursor|\.vscode|\.codex)\//u.test(reference)) continue;
        if (!exists(doc, reference)) missing.push(`${doc}: \`${reference}\``);
      }
      for (const match of text.matchAll(LINK_PATH)) {
        const reference = decodeURIComponent(match[1] ?? "");
        if (!exists(doc, reference)) missing.push(`${doc}: (${reference})`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("link only to headings that exist (GitHub's anchors)", () => {
    const broken: string[] = [];
    for (const doc of trackedDocs()) {
      const text = fs.readFileSync(path.join(ROOT, doc), "utf8");
      for (const match of text.matchAll(ANCHOR_LINK)) {
        const target = match[1] ?? "";
        const anchor = match[2] ?? "";
        const file = target === "" ? doc : path.normalize(path.join(path.dirname(doc), target));
        if (!file.endsWith(".md") || !fs.existsSync(path.join(ROOT, file))) continue;
        if (!headingAnchors(file).has(anchor)) broken.push(`${doc}: (${target}#${anchor})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("the README names every line the first run writes to .env", () => {
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    const written = [
      "SERVICE_API_KEY",
      "SERVICE_PERSONA_ID",
      "SERVICE_BASE_URL",
      DATABASE_IDENTITY_VARIABLE,
    ];
    expect(written.filter((variable) => !readme.includes(`\`${variable}\``))).toEqual([]);
  });

  it("every dependency with an install script is allowed or denied in package.json, so `npm ci` does not warn", () => {
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
      allowScripts?: Record<string, boolean>;
    };
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript === true)
      .map(([location]) => location.slice(location.lastIndexOf("node_modules/") + 13));
    const uncovered = withScripts.filter((name) => !(name in (manifest.allowScripts ?? {})));
    expect(uncovered).toEqual([]);
  });
});

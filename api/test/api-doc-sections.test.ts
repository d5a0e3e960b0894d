import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { API_PREFIX, ENDPOINT_PATHS, LOGIN_PATH } from "@persona-reply/shared";
import { describe, expect, it } from "vitest";
import { createApp } from "../src/app.js";
import { listRoutes } from "../src/http/route-inventory.js";
import { startTestService } from "./support/test-service.js";

// docs/API.md is the contract a clone reads, numbered so that code and docs
// can cite it ("§4.3 rule 7"). A citation of a number it lacks, or an API
// route it does not name, shows here instead of in front of a reader.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CONTRACT = "docs/API.md";
const contract = fs.readFileSync(path.join(ROOT, CONTRACT), "utf8");

/** What the contract lets a citation name, and the numbers of each of its ordered lists. */
interface ContractNumbers {
  /** `4`, `4.3`, `4.3 rule 7`, `5.6` (rule 6 of §5), `7 row 403`. */
  citable: Set<string>;
  /** Rule numbers as written, per list: `§5` → [1, 2, …]. */
  lists: Map<string, number[]>;
}

/**
 * Reads the numbering of the contract: `## N.` sections, `### N.M`
 * subsections, the ordered lists at the left margin (rules of a numbered
 * subsection, or of the section itself where it has none) and the statuses
 * of a section's table rows. Fenced code is skipped.
 */
function contractNumbers(text: string): ContractNumbers {
  const citable = new Set<string>();
  const lists = new Map<string, number[]>();
  let section: string | undefined;
  let subsection: string | undefined;
  let fenced = false;
  for (const line of text.split("\n")) {
    if (line.trimStart().startsWith("```")) fenced = !fenced;
    if (fenced) continue;
    const heading = /^(#{2,3}) (?:(\d+)\.(?: |$)|(\d+\.\d+) )?/u.exec(line);
    if (heading !== null) {
      if (heading[1] === "##") {
        section = heading[2];
        subsection = undefined;
        if (section !== undefined) citable.add(section);
      } else {
        // An unnumbered subsection ("### Persona", "### Common rules") holds no numbered rules.
        subsection = heading[3] ?? "";
        if (heading[3] !== undefined) citable.add(heading[3]);
      }
      continue;
    }
    if (section === undefined) continue;
    const item = /^(\d+)\. /u.exec(line)?.[1];
    if (item !== undefined && subsection !== "") {
      const scope = subsection === undefined ? `§${section}` : `§${subsection}`;
      lists.set(scope, [...(lists.get(scope) ?? []), Number(item)]);
      citable.add(subsection === undefined ? `${section}.${item}` : `${subsection} rule ${item}`);
    }
    const status = /^\s*\| (\d{3}) +\|/u.exec(line)?.[1];
    if (status !== undefined) citable.add(`${section} row ${status}`);
  }
  return { citable, lists };
}

// Words of a citation may be split over lines, also inside comments ("rule\n * 7").
const GAP = String.raw`(?:\s|\*|//)+`;
// One reference: §N, §N.M, a range §N.M–N.K, and optionally "rule(s) …",
// "format(s) …" or "row(s) …" after it.
const REFERENCE = String.raw`§(\d+)(?:\.(\d+))?(?:[–-](\d+)(?:\.(\d+))?)?(?:${GAP}(rules?|formats?|rows?)${GAP}(\d+)(?:(?:[–-]|${GAP}and${GAP})(\d+))?)?`;
/** A citation starts with "docs/API.md §" (or the older form, "spec" and the section sign)… */
const CITATION = new RegExp(String.raw`\b(?:spec|docs/API\.md)${GAP}${REFERENCE}`, "giu");
/** …and may go on with more references: "docs/API.md §5.6, §7 rows 402 and 429". */
const FOLLOWING = new RegExp(`^(?:,|;|${GAP}and)${GAP}${REFERENCE}`, "iu");

function span(from: number, to: number | undefined): number[] {
  const last = to ?? from;
  return Array.from({ length: Math.max(last - from, 0) + 1 }, (_, index) => from + index);
}

/** The sections a reference names: `§4.1–4.3` is 4.1, 4.2 and 4.3. */
function sectionsOf(
  major: string,
  minor: string | undefined,
  rangeMajor: string | undefined,
  rangeMinor: string | undefined,
): string[] {
  if (minor === undefined) {
    return span(Number(major), rangeMajor === undefined ? undefined : Number(rangeMajor)).map(
      String,
    );
  }
  if (rangeMajor === undefined) return [`${major}.${minor}`];
  // "§4.4–5.1" spans sections: only its ends can be checked.
  if (rangeMinor !== undefined && rangeMajor !== major) {
    return [`${major}.${minor}`, `${rangeMajor}.${rangeMinor}`];
  }
  // "§4.1–4.3", or "§4.1–3".
  return span(Number(minor), Number(rangeMinor ?? rangeMajor)).map((m) => `${major}.${m}`);
}

/** The contract numbers one matched reference names. */
function keysOf(match: RegExpExecArray): string[] {
  const [, major = "", minor, rangeMajor, rangeMinor, kind, first, last] = match;
  const sections = sectionsOf(major, minor, rangeMajor, rangeMinor);
  if (kind === undefined || first === undefined) return sections;
  const numbers = kind.startsWith("row")
    ? [first, ...(last === undefined ? [] : [last])]
    : span(Number(first), last === undefined ? undefined : Number(last)).map(String);
  const named = numbers.flatMap((number) => {
    if (kind.startsWith("rule")) return sections.map((section) => `${section} rule ${number}`);
    if (kind.startsWith("format")) return [`${major}.${number}`];
    return [`${major} row ${number}`];
  });
  return [...sections, ...named];
}

/** A citation found in a tracked file. */
interface Citation {
  where: string;
  text: string;
  keys: string[];
}

function citationsIn(file: string, text: string): Citation[] {
  const found: Citation[] = [];
  for (const head of text.matchAll(CITATION)) {
    const line = text.slice(0, head.index).split("\n").length;
    let keys = keysOf(head);
    let cited = head[0];
    let rest = text.slice(head.index + head[0].length);
    for (let next = FOLLOWING.exec(rest); next !== null; next = FOLLOWING.exec(rest)) {
      keys = [...keys, ...keysOf(next)];
      cited += next[0];
      rest = rest.slice(next[0].length);
    }
    found.push({ where: `${file}:${line}`, text: cited, keys });
  }
  return found;
}

/** Every tracked file but the lockfile, as git lists it. */
function trackedFiles(): string[] {
  return execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" })
    .split("\0")
    .filter((file) => file !== "" && file !== "package-lock.json")
    .filter((file) => !file.includes("node_modules/"))
    .filter((file) => fs.existsSync(path.join(ROOT, file)));
}

describe("docs/API.md, the contract every citation points into", () => {
  const numbers = contractNumbers(contract);

  it("numbers its sections 1–9 and every ordered list from 1 without gaps", () => {
    expect(
      [...numbers.citable].filter((key) => /^\d+$/u.test(key)).sort((a, b) => +a - +b),
    ).toEqual(["1", "2", "3", "4", "5", "6", "7", "8", "9"]);
    for (const [scope, items] of numbers.lists) {
      expect(items, scope).toEqual(span(1, items.length));
    }
    // The rule lists citations lean on, at the lengths the contract gives them.
    expect(numbers.lists.get("§4.3")).toHaveLength(8);
    expect(numbers.lists.get("§7")).toHaveLength(6);
    for (const status of [200, 400, 401, 402, 403, 404, 422, 429, 500]) {
      expect(numbers.citable.has(`7 row ${status}`), `§7 row ${status}`).toBe(true);
    }
  });

  it("has every section, subsection and rule a tracked file cites", () => {
    const citations = trackedFiles().flatMap((file) =>
      citationsIn(file, fs.readFileSync(path.join(ROOT, file), "utf8")),
    );
    const dangling = citations.flatMap((citation) =>
      citation.keys
        .filter((key) => !numbers.citable.has(key))
        .map((key) => `${citation.where}: "${citation.text}" names §${key}`),
    );
    expect(dangling).toEqual([]);
    // The tree cites the contract a few hundred times; far fewer means the pattern broke.
    expect(citations.length).toBeGreaterThan(100);
  });

  it("names every route the service has under /api/v1, and the browser login route", async () => {
    const service = await startTestService();
    try {
      const routes = listRoutes(createApp(service.services))
        .filter((route) => route.method !== "ALL" && route.method !== "HEAD")
        .filter((route) => route.path.startsWith(`${API_PREFIX}/`) || route.path === LOGIN_PATH)
        .map((route) => `${route.method} ${route.path.replace(/:(\w+)/gu, "{$1}")}`);
      expect(routes).toEqual(
        expect.arrayContaining([
          ...Object.values(ENDPOINT_PATHS).map((endpoint) => `POST ${endpoint}`),
          `GET ${LOGIN_PATH}`,
        ]),
      );
      // Named as written, not as the start of a longer path (`/models` vs `/models/{id}`).
      const named = (route: string) =>
        new RegExp(`${route.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&")}(?![\\w/{}.-])`, "u").test(
          contract,
        );
      expect(routes.filter((route) => !named(route))).toEqual([]);
    } finally {
      await service.stop();
    }
  });
});

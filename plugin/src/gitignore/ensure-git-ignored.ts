import fs from "node:fs";
import path from "node:path";
import ignore, { type Ignore } from "ignore";
import { writeFileAtomically } from "../env-file/write-file-atomically.js";

/** The comment line written above the entry the setup adds. */
export const GITIGNORE_COMMENT =
  "# Persona Reply API key (added by the coding-agent plugin's setup)";

/** What {@link ensureGitIgnored} found or did. */
export type GitIgnoreOutcome =
  | { status: "outside-repository" }
  | { status: "already-ignored"; repository: string }
  | {
      status: "added";
      repository: string;
      /** The `.gitignore` written (at the repository's root). */
      gitignore: string;
      /** The line added, e.g. `/.env`. */
      entry: string;
      /** True when a rule in a deeper `.gitignore` still includes the file after the addition. */
      stillIncluded: boolean;
    };

/**
 * The repository a path lies in: the nearest folder, from `start` upwards,
 * holding a `.git` folder or file (a worktree or submodule has a file).
 *
 * @param start - an absolute folder
 * @returns the repository's root folder, or undefined outside a repository
 */
export function findRepositoryRoot(start: string): string | undefined {
  let folder = path.resolve(start);
  for (;;) {
    if (fs.existsSync(path.join(folder, ".git"))) return folder;
    const parent = path.dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
  }
}

function readRules(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/** Rule sets that apply to a file, lowest precedence first, each with the folder its patterns are relative to. */
function ruleLevels(repository: string, file: string): Array<{ base: string; rules: Ignore }> {
  const levels: Array<{ base: string; rules: Ignore }> = [];
  const gitFolder = path.join(repository, ".git");
  if (fs.existsSync(gitFolder) && fs.statSync(gitFolder).isDirectory()) {
    const exclude = readRules(path.join(gitFolder, "info", "exclude"));
    if (exclude !== undefined) levels.push({ base: repository, rules: ignore().add(exclude) });
  }
  const folders: string[] = [];
  for (let folder = path.dirname(file); ; folder = path.dirname(folder)) {
    folders.unshift(folder);
    if (folder === repository || path.dirname(folder) === folder) break;
  }
  for (const folder of folders) {
    const rules = readRules(path.join(folder, ".gitignore"));
    if (rules !== undefined) levels.push({ base: folder, rules: ignore().add(rules) });
  }
  return levels;
}

function posixRelative(from: string, to: string): string {
  return path.relative(from, to).split(path.sep).join("/");
}

/**
 * Whether git would ignore a file, by the repository's `.gitignore` files
 * (each relative to its own folder, deeper ones taking precedence) and
 * `.git/info/exclude`. A user's global excludes file is not consulted, so a
 * file only ignored there is reported as not ignored (and then gets its own
 * entry, which is harmless).
 *
 * @param repository - the repository's root folder
 * @param file - an absolute path inside it
 */
export function isGitIgnored(repository: string, file: string): boolean {
  let ignored = false;
  for (const level of ruleLevels(repository, file)) {
    const result = level.rules.test(posixRelative(level.base, file));
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}

/** A path as a `.gitignore` pattern matching exactly it: anchored, with pattern characters escaped. */
export function gitignoreEntry(relativePath: string): string {
  const escaped = relativePath.replace(/[*?[\]\\!#]/gu, "\\$&").replace(/ $/u, "\\ ");
  return `/${escaped}`;
}

/**
 * Makes sure git ignores the env file (docs/API.md §5.5: keys stay out of code):
 * when the file lies in a git repository and no rule ignores it yet, adds an
 * anchored entry for it (e.g. `/.env`) to the `.gitignore` at the
 * repository's root, under {@link GITIGNORE_COMMENT}, keeping every line
 * already there (written atomically, with its mode kept). Does nothing
 * outside a repository or when the file is already ignored.
 *
 * @param file - absolute path of the env file
 * @returns what was found or done
 * @throws the file system's error when the `.gitignore` cannot be written
 *
 * @example
 * const outcome = ensureGitIgnored("/work/app/.env");
 * if (outcome.status === "added") console.log(`added ${outcome.entry} to ${outcome.gitignore}`);
 */
export function ensureGitIgnored(file: string): GitIgnoreOutcome {
  const repository = findRepositoryRoot(path.dirname(file));
  if (repository === undefined) return { status: "outside-repository" };
  if (isGitIgnored(repository, file)) return { status: "already-ignored", repository };

  const gitignore = path.join(repository, ".gitignore");
  const entry = gitignoreEntry(posixRelative(repository, file));
  const current = readRules(gitignore) ?? "";
  const lineBreak = current.includes("\r\n") ? "\r\n" : "\n";
  const separator = current === "" || current.endsWith("\n") ? "" : lineBreak;
  let mode = 0o644;
  try {
    mode = fs.statSync(gitignore).mode & 0o777;
  } catch {
    // A new .gitignore gets the usual mode of a tracked text file.
  }
  writeFileAtomically(
    gitignore,
    `${current}${separator}${GITIGNORE_COMMENT}${lineBreak}${entry}${lineBreak}`,
    { mode },
  );
  return {
    status: "added",
    repository,
    gitignore,
    entry,
    stillIncluded: !isGitIgnored(repository, file),
  };
}

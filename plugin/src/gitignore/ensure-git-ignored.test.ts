import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ensureGitIgnored,
  findRepositoryRoot,
  GITIGNORE_COMMENT,
  gitignoreEntry,
  isGitIgnored,
} from "./ensure-git-ignored.js";

// A repository here is a folder with a `.git` folder (or file, as in a
// worktree): the rules are read from the files, git itself is not run.

let root: string;

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "persona-plugin-gitignore-")));
});

afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

function repository(name: string, gitFile = false): string {
  const folder = path.join(root, name);
  fs.mkdirSync(folder, { recursive: true });
  if (gitFile) fs.writeFileSync(path.join(folder, ".git"), "gitdir: /elsewhere/.git/worktrees/x\n");
  else fs.mkdirSync(path.join(folder, ".git", "info"), { recursive: true });
  return folder;
}

describe("findRepositoryRoot", () => {
  it("finds the nearest folder with .git (a folder or a file), or nothing", () => {
    const repo = repository("repo");
    fs.mkdirSync(path.join(repo, "app", "config"), { recursive: true });
    expect(findRepositoryRoot(path.join(repo, "app", "config"))).toBe(repo);
    const worktree = repository("worktree", true);
    expect(findRepositoryRoot(worktree)).toBe(worktree);
    fs.mkdirSync(path.join(root, "plain"));
    expect(findRepositoryRoot(path.join(root, "plain"))).toBeUndefined();
  });
});

describe("ensureGitIgnored", () => {
  it("adds an anchored entry under a comment, keeping the lines already there", () => {
    const repo = repository("repo");
    fs.writeFileSync(path.join(repo, ".gitignore"), "node_modules/\ndist/");
    const outcome = ensureGitIgnored(path.join(repo, ".env"));
    expect(outcome).toEqual({
      status: "added",
      repository: repo,
      gitignore: path.join(repo, ".gitignore"),
      entry: "/.env",
      stillIncluded: false,
    });
    expect(fs.readFileSync(path.join(repo, ".gitignore"), "utf8")).toBe(
      `node_modules/\ndist/\n${GITIGNORE_COMMENT}\n/.env\n`,
    );
    expect(ensureGitIgnored(path.join(repo, ".env")).status).toBe("already-ignored");
  });

  it("creates .gitignore with a path relative to the repository for a nested file", () => {
    const repo = repository("repo");
    fs.mkdirSync(path.join(repo, "services", "web"), { recursive: true });
    const outcome = ensureGitIgnored(path.join(repo, "services", "web", "local.env"));
    expect(outcome).toMatchObject({ status: "added", entry: "/services/web/local.env" });
    expect(isGitIgnored(repo, path.join(repo, "services", "web", "local.env"))).toBe(true);
    expect(fs.statSync(path.join(repo, ".gitignore")).mode & 0o777).toBe(0o644);
  });

  it("leaves files already ignored by a pattern, a parent folder or info/exclude alone", () => {
    const repo = repository("repo");
    fs.writeFileSync(path.join(repo, ".gitignore"), "*.env\nsecrets/\n");
    fs.writeFileSync(path.join(repo, ".git", "info", "exclude"), ".env.local\n");
    fs.mkdirSync(path.join(repo, "secrets"));
    for (const file of ["production.env", "secrets/.env", ".env.local"]) {
      expect(ensureGitIgnored(path.join(repo, file))).toEqual({
        status: "already-ignored",
        repository: repo,
      });
    }
    expect(fs.readFileSync(path.join(repo, ".gitignore"), "utf8")).toBe("*.env\nsecrets/\n");
  });

  it("honours negations and deeper .gitignore files", () => {
    const repo = repository("repo");
    fs.writeFileSync(path.join(repo, ".gitignore"), ".env*\n!.env.example\n");
    expect(isGitIgnored(repo, path.join(repo, ".env"))).toBe(true);
    expect(isGitIgnored(repo, path.join(repo, ".env.example"))).toBe(false);
    fs.mkdirSync(path.join(repo, "app"));
    fs.writeFileSync(path.join(repo, "app", ".gitignore"), "!.env\n");
    expect(isGitIgnored(repo, path.join(repo, "app", ".env"))).toBe(false);
    const outcome = ensureGitIgnored(path.join(repo, "app", ".env"));
    // The root entry is added, but the deeper negation still wins, and the outcome says so.
    expect(outcome).toMatchObject({ status: "added", entry: "/app/.env", stillIncluded: true });
  });

  it("does nothing outside a repository", () => {
    fs.mkdirSync(path.join(root, "plain"));
    expect(ensureGitIgnored(path.join(root, "plain", ".env"))).toEqual({
      status: "outside-repository",
    });
    expect(fs.existsSync(path.join(root, "plain", ".gitignore"))).toBe(false);
  });
});

describe("gitignoreEntry", () => {
  it("anchors the path and escapes pattern characters", () => {
    expect(gitignoreEntry(".env")).toBe("/.env");
    expect(gitignoreEntry("a b/[x]*?.env")).toBe("/a b/\\[x\\]\\*\\?.env");
    expect(gitignoreEntry("#odd/!name ")).toBe("/\\#odd/\\!name\\ ");
  });
});

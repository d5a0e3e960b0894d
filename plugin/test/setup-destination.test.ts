import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  CONTENT_ENCRYPTION_ALGORITHM,
  KEY_MANAGEMENT_ALGORITHM,
  LOGIN_PATH,
} from "@persona-reply/shared";
import { CompactEncrypt, importJWK, type JWK } from "jose";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readEnvValues } from "../src/env-file/env-file-content.js";
import { GITIGNORE_COMMENT } from "../src/gitignore/ensure-git-ignored.js";
import { runSetup, type SetupIo } from "../src/setup/run-setup.js";
import { SetupError } from "../src/setup/setup-error.js";

// Where /persona:setup writes when .env is a symbolic link, or becomes one
// while the browser is open. The browser's part is played by a test double
// speaking the real protocol of docs/API.md §4.5: it reads the login URL, encrypts
// a key to the recipient key it names (RSA-OAEP-256 + A256GCM) and calls the
// loopback callback with the state, as the service's consent page makes the
// browser do.

let home: string;
let project: string;

beforeEach(() => {
  home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "persona-plugin-destination-")));
  project = path.join(home, "project");
  fs.mkdirSync(path.join(project, ".git"), { recursive: true });
  fs.mkdirSync(path.join(project, "config"));
});

afterEach(() => {
  fs.rmSync(home, { recursive: true, force: true });
});

/** A key-shaped value made at run time. */
function fakeKey(): string {
  return `prk_${randomBytes(32).toString("base64url").replace(/[-_]/gu, "x").slice(0, 38)}`;
}

/** The consent as the browser completes it: the callback gets the key encrypted to the login's recipient key. */
async function approve(loginUrl: string, apiKey: string): Promise<void> {
  const url = new URL(loginUrl);
  expect(url.pathname).toBe(LOGIN_PATH);
  const state = url.searchParams.get("state") ?? "";
  const redirect = new URL(url.searchParams.get("redirect_uri") ?? "");
  const jwk = JSON.parse(
    Buffer.from(url.searchParams.get("recipient_public_key_jwk") ?? "", "base64url").toString(
      "utf8",
    ),
  ) as JWK;
  const recipient = await importJWK(jwk, KEY_MANAGEMENT_ALGORITHM);
  const encrypted = await new CompactEncrypt(new TextEncoder().encode(apiKey))
    .setProtectedHeader({ alg: KEY_MANAGEMENT_ALGORITHM, enc: CONTENT_ENCRYPTION_ALGORITHM })
    .encrypt(recipient);
  redirect.searchParams.set("state", state);
  redirect.searchParams.set("encrypted_api_key", encrypted);
  const response = await fetch(redirect);
  await response.text();
}

interface Run {
  outcome: Promise<number>;
  stdout: () => string;
  stderr: () => string;
  questions: string[];
}

/** Runs the setup in-process; `whileBrowserIsOpen` runs after the confirmation, before the approval. */
function setup(apiKey: string, whileBrowserIsOpen: () => void = () => {}, yes = false): Run {
  let stdout = "";
  let stderr = "";
  const questions: string[] = [];
  const io: SetupIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text), isTTY: false },
    cwd: project,
    env: {},
    confirm: async (question) => {
      questions.push(question);
      return true;
    },
    openBrowser: async (url) => {
      whileBrowserIsOpen();
      await approve(url, apiKey);
    },
  };
  const outcome = runSetup(
    {
      envFile: ".env",
      source: "claude_code",
      yes,
      force: false,
      openBrowser: true,
      baseUrl: "http://127.0.0.1:9",
      timeoutMs: 20_000,
    },
    io,
  );
  return { outcome, stdout: () => stdout, stderr: () => stderr, questions };
}

describe("/persona:setup and a linked .env", () => {
  it("shows the link's real target before asking, writes there, and ignores that file in git", async () => {
    const real = path.join(project, "config", "app.env");
    fs.writeFileSync(real, "PORT=3000\n");
    fs.symlinkSync(path.join("config", "app.env"), path.join(project, ".env"));
    const key = fakeKey();
    const run = setup(key);

    expect(await run.outcome).toBe(0);
    const shown = `${real} (the file the symbolic link ${path.join(project, ".env")} points to)`;
    expect(run.stderr().split("\n")[0]).toContain(`will be written to ${shown}`);
    expect(run.questions).toEqual([`Write the key to ${shown}? [y/N] `]);
    expect(run.stdout()).toContain(`Saved the new API key prk_…${key.slice(-4)} to ${shown}`);
    expect(fs.lstatSync(path.join(project, ".env")).isSymbolicLink()).toBe(true);
    expect(readEnvValues(fs.readFileSync(real, "utf8"))).toEqual({
      PORT: "3000",
      SERVICE_API_KEY: key,
      SERVICE_BASE_URL: "http://127.0.0.1:9",
    });
    expect(fs.readFileSync(path.join(project, ".gitignore"), "utf8")).toBe(
      `${GITIGNORE_COMMENT}\n/config/app.env\n`,
    );
    expect(run.stdout()).toContain(`Added /config/app.env to ${path.join(project, ".gitignore")}`);
    expect(run.stdout() + run.stderr()).not.toContain(key);
  });

  it("refuses when .env is replaced by a link while the browser is open, and writes nowhere", async () => {
    const tracked = path.join(project, "config", "app.env");
    fs.writeFileSync(tracked, "TRACKED=1\n");
    fs.writeFileSync(path.join(project, ".env"), "PORT=3000\n");
    const key = fakeKey();
    const run = setup(key, () => {
      fs.rmSync(path.join(project, ".env"));
      fs.symlinkSync(tracked, path.join(project, ".env"));
    });

    const error = await run.outcome.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SetupError);
    expect((error as SetupError).exitCode).toBe(3);
    expect((error as SetupError).message).toContain(
      `${path.join(project, ".env")} changed while the browser was open: it is now a symbolic link to ${tracked}, not the file ${path.join(project, ".env")} as confirmed. Nothing was written.`,
    );
    expect((error as SetupError).message).toContain("revoke it");
    expect((error as SetupError).message).not.toContain(key);
    expect(fs.readFileSync(tracked, "utf8")).toBe("TRACKED=1\n");
    expect(fs.existsSync(path.join(project, ".gitignore"))).toBe(false);
  });

  it("refuses when a link is pointed at another file while the browser is open", async () => {
    const first = path.join(project, "config", "first.env");
    const second = path.join(project, "config", "second.env");
    fs.writeFileSync(first, "");
    fs.writeFileSync(second, "OTHER=1\n");
    fs.symlinkSync(first, path.join(project, ".env"));
    const run = setup(
      fakeKey(),
      () => {
        fs.rmSync(path.join(project, ".env"));
        fs.symlinkSync(second, path.join(project, ".env"));
      },
      true,
    );

    await expect(run.outcome).rejects.toThrow(
      `it is now a symbolic link to ${second}, not a symbolic link to ${first} as confirmed`,
    );
    expect(fs.readFileSync(first, "utf8")).toBe("");
    expect(fs.readFileSync(second, "utf8")).toBe("OTHER=1\n");
  });

  it("says so when the link's target lies outside the repository", async () => {
    const outside = path.join(home, "elsewhere.env");
    fs.writeFileSync(outside, "");
    fs.symlinkSync(outside, path.join(project, ".env"));
    const run = setup(fakeKey());

    expect(await run.outcome).toBe(0);
    expect(run.stdout()).toContain(
      `The key is in ${outside}, outside the repository ${project} that holds ${path.join(project, ".env")}.`,
    );
    expect(run.stdout()).toContain(`${outside} is not inside a git repository`);
    expect(fs.existsSync(path.join(project, ".gitignore"))).toBe(false);
  });
});

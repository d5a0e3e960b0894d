import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freePort } from "../../test-support/free-port.js";
import { spawnLoginProcess } from "../../test-support/login-process.js";
import { PERSONA_BIN } from "./support/run-persona.js";

// `persona login` where no browser can be opened, and with a fixed callback
// port: the built tool as its own process. The system's opener is a stand-in
// `xdg-open` on PATH (the bundled tool uses the one on PATH), so no real
// browser is ever started; the login waits for a callback that never comes
// and stops after --timeout. No service is needed: the tool only prints the
// login URL and listens for the browser's answer.

const BASE_URL = "http://127.0.0.1:9";

let home: string;
let bin: string;

beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "persona-login-options-"));
  bin = path.join(home, "bin");
  fs.mkdirSync(bin);
  return () => fs.rmSync(home, { recursive: true, force: true });
});

/** Puts an `xdg-open` on the test's PATH that records its call and exits with `code`. */
function standInOpener(code: number): string {
  const calls = path.join(home, "xdg-open-calls");
  fs.writeFileSync(
    path.join(bin, "xdg-open"),
    `#!/bin/sh\necho "$@" >> '${calls}'\nexit ${code}\n`,
    { mode: 0o755 },
  );
  return calls;
}

function login(args: string[]) {
  return spawnLoginProcess(
    [PERSONA_BIN, "login", "--base-url", BASE_URL, "--timeout", "2", ...args],
    {
      // Only the stand-in's folder: no real opener is reachable.
      PATH: bin,
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, "config"),
    },
  );
}

describe("persona login when no browser can be opened", () => {
  it("says so, with the opener's failure, and prints the URL to open", async () => {
    const calls = standInOpener(3);
    const run = login([]);
    const url = await run.url;
    expect(await run.exit).toBe(6);
    const stderr = run.stderr();
    expect(stderr).toContain(
      `Could not open a browser (xdg-open exited with code 3). Open this URL in a browser yourself:\n  ${url}\n`,
    );
    expect(fs.readFileSync(calls, "utf8").trim()).toBe(url);
    expect(stderr).toMatch(/no answer from the browser within 2 s/u);
  });

  it("says so when there is no opener at all", async () => {
    const run = login([]);
    const url = await run.url;
    expect(await run.exit).toBe(6);
    expect(run.stderr()).toContain(
      `Could not open a browser (xdg-open is not installed). Open this URL in a browser yourself:\n  ${url}\n`,
    );
  });

  it("with --no-browser, starts no opener and only prints the URL", async () => {
    const calls = standInOpener(0);
    const run = login(["--no-browser"]);
    const url = await run.url;
    expect(await run.exit).toBe(6);
    expect(run.stderr()).toContain(
      `Open this URL in a browser to approve a new API key:\n  ${url}\n`,
    );
    expect(run.stderr()).not.toContain("Could not open a browser");
    expect(fs.existsSync(calls)).toBe(false);
  });

  it("says nothing more when the opener succeeds", async () => {
    standInOpener(0);
    const run = login([]);
    await run.url;
    expect(await run.exit).toBe(6);
    expect(run.stderr()).toContain("Opening your browser to approve a new API key");
    expect(run.stderr()).not.toContain("Could not open a browser");
  });
});

describe("persona login --callback-port", () => {
  let occupied: http.Server | undefined;
  afterEach(() => {
    occupied?.close();
    occupied = undefined;
  });

  it("listens for the browser's answer on that port, and by default on a port the system picks", async () => {
    const port = await freePort();
    const run = login(["--no-browser", "--callback-port", String(port)]);
    const redirect = new URL(new URL(await run.url).searchParams.get("redirect_uri") ?? "");
    expect(redirect.href).toBe(`http://127.0.0.1:${port}/callback`);
    // The loopback server is there: another path answers 404 and does not end the login.
    expect((await fetch(`http://127.0.0.1:${port}/favicon.ico`)).status).toBe(404);
    expect(await run.exit).toBe(6);

    const other = login(["--no-browser"]);
    const picked = new URL(new URL(await other.url).searchParams.get("redirect_uri") ?? "");
    expect(picked.port).not.toBe("");
    expect(await other.exit).toBe(6);
  });

  it("refuses a port in use before printing any URL (exit 2)", async () => {
    occupied = http.createServer();
    await new Promise<void>((resolve) => occupied?.listen(0, "127.0.0.1", resolve));
    const { port } = occupied.address() as AddressInfo;
    const run = login(["--no-browser", "--callback-port", String(port)]);
    expect(await run.exit).toBe(2);
    expect(run.stderr()).toContain(
      `--callback-port: cannot take port ${port} on 127.0.0.1 for the browser's answer (it is in use)`,
    );
    expect(run.stderr()).not.toContain("/api/persona/cli/login");
  });

  it.each(["0", "65536", "http", "80.5"])("refuses --callback-port %s (exit 2)", async (value) => {
    const run = login(["--no-browser", "--callback-port", value]);
    expect(await run.exit).toBe(2);
    expect(run.stderr()).toContain("--callback-port takes a port number from 1 to 65535");
  });
});

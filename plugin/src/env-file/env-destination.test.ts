import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EnvDestinationError, inspectDestination } from "./env-destination.js";
import { removePendingFiles, writeFileAtomically } from "./write-file-atomically.js";

let folder: string;

beforeEach(() => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), "persona-plugin-destination-"));
});

afterEach(() => {
  fs.rmSync(folder, { recursive: true, force: true });
});

describe("inspectDestination", () => {
  it("resolves a relative path against the working folder; a missing file reads as undefined", () => {
    expect(inspectDestination(".env", folder)).toEqual({
      path: path.join(folder, ".env"),
      target: path.join(folder, ".env"),
      link: false,
      content: undefined,
    });
  });

  it("reads an existing file and follows a symbolic link to its target", () => {
    const real = path.join(folder, "real.env");
    fs.writeFileSync(real, "A=1\n");
    fs.symlinkSync(real, path.join(folder, ".env"));
    expect(inspectDestination(path.join(folder, ".env"), "/")).toEqual({
      path: path.join(folder, ".env"),
      target: fs.realpathSync(real),
      link: true,
      content: "A=1\n",
    });
  });

  it("refuses a folder, a dangling link and a missing parent folder", () => {
    expect(() => inspectDestination(folder, "/")).toThrow(
      /is not a regular file \(it is a folder\)/u,
    );
    fs.symlinkSync(path.join(folder, "gone.env"), path.join(folder, "dangling.env"));
    expect(() => inspectDestination("dangling.env", folder)).toThrow(
      /symbolic link to a missing file/u,
    );
    expect(() => inspectDestination("missing/.env", folder)).toThrow(EnvDestinationError);
    expect(() => inspectDestination("missing/.env", folder)).toThrow(
      /folder .*missing does not exist/u,
    );
  });
});

describe("writeFileAtomically", () => {
  it("creates the file with mode 0600 and leaves no temporary file", () => {
    const file = path.join(folder, ".env");
    writeFileAtomically(file, "SECRET=1\n", { mode: 0o600 });
    expect(fs.readFileSync(file, "utf8")).toBe("SECRET=1\n");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(folder)).toEqual([".env"]);
  });

  it("tightens an existing file's looser mode", () => {
    const file = path.join(folder, ".env");
    fs.writeFileSync(file, "A=1\n", { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    writeFileAtomically(file, "A=2\n", { mode: 0o600 });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, "utf8")).toBe("A=2\n");
  });

  it("removes its temporary file and keeps the old content when the rename fails", () => {
    const target = path.join(folder, "occupied");
    fs.mkdirSync(path.join(target, "inner"), { recursive: true });
    expect(() => writeFileAtomically(target, "x", { mode: 0o600 })).toThrow();
    expect(fs.readdirSync(folder)).toEqual(["occupied"]);
    removePendingFiles();
  });
});

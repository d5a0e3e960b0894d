import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  APPENDED_COMMENT,
  EnvFileContentError,
  existingApiKey,
  readEnvValues,
  updateEnvContent,
} from "./env-file-content.js";

/** A key-shaped value made at run time (38 letters and digits after `prk_`). */
function fakeKey(): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  return `prk_${Array.from(randomBytes(38), (byte) => alphabet[byte % alphabet.length]).join("")}`;
}

const PERSONA = "3bee94bc-c62f-4582-9fa6-2c47d62ac431";

describe("updateEnvContent", () => {
  it("creates the content of a new file with the values under a comment", () => {
    const key = fakeKey();
    const text = updateEnvContent(undefined, {
      SERVICE_API_KEY: key,
      SERVICE_PERSONA_ID: PERSONA,
      SERVICE_BASE_URL: "http://127.0.0.1:8787",
    });
    expect(text).toBe(
      `${APPENDED_COMMENT}\nSERVICE_API_KEY=${key}\nSERVICE_PERSONA_ID=${PERSONA}\nSERVICE_BASE_URL=http://127.0.0.1:8787\n`,
    );
    expect(readEnvValues(text)).toEqual({
      SERVICE_API_KEY: key,
      SERVICE_PERSONA_ID: PERSONA,
      SERVICE_BASE_URL: "http://127.0.0.1:8787",
    });
  });

  it("keeps every other line byte for byte and appends what is missing", () => {
    const before = [
      "# my app",
      "",
      "DATABASE_URL=postgres://127.0.0.1/app # local",
      "export GREETING='hello world'",
      'MULTI="one',
      'two"',
      "SERVICE_PERSONA_ID=11111111-2222-4333-8444-555555555555",
      "   ",
      "LAST=1",
    ].join("\n");
    const key = fakeKey();
    const after = updateEnvContent(before, { SERVICE_API_KEY: key });
    expect(after).toBe(`${before}\n${APPENDED_COMMENT}\nSERVICE_API_KEY=${key}\n`);
    expect(readEnvValues(after).MULTI).toBe("one\ntwo");
  });

  it("replaces existing assignments in place, keeping `export` and the other lines", () => {
    const oldKey = fakeKey();
    const newKey = fakeKey();
    const before = `A=1\nexport SERVICE_API_KEY=${oldKey}\nB=2\nSERVICE_BASE_URL = "http://old.example"\nC=3\n`;
    const after = updateEnvContent(before, {
      SERVICE_API_KEY: newKey,
      SERVICE_BASE_URL: "https://persona.example.com",
    });
    expect(after).toBe(
      `A=1\nexport SERVICE_API_KEY=${newKey}\nB=2\nSERVICE_BASE_URL=https://persona.example.com\nC=3\n`,
    );
  });

  it("replaces a multi-line quoted value with all its lines, and every duplicate", () => {
    const key = fakeKey();
    const before = `SERVICE_API_KEY="first\nsecond"\nKEEP=yes\nSERVICE_API_KEY=dup\n`;
    const after = updateEnvContent(before, { SERVICE_API_KEY: key });
    expect(after).toBe(`SERVICE_API_KEY=${key}\nKEEP=yes\nSERVICE_API_KEY=${key}\n`);
  });

  it("keeps CRLF line endings and adds a final line break", () => {
    const key = fakeKey();
    const after = updateEnvContent("A=1\r\nB=2", { SERVICE_API_KEY: key });
    expect(after).toBe(`A=1\r\nB=2\r\n${APPENDED_COMMENT}\r\nSERVICE_API_KEY=${key}\r\n`);
  });

  it("does not touch variables whose names only start like the setup's", () => {
    const key = fakeKey();
    const before = "SERVICE_API_KEY_OLD=keep\nMY_SERVICE_API_KEY=keep\n";
    const after = updateEnvContent(before, { SERVICE_API_KEY: key });
    expect(readEnvValues(after)).toEqual({
      SERVICE_API_KEY_OLD: "keep",
      MY_SERVICE_API_KEY: "keep",
      SERVICE_API_KEY: key,
    });
  });

  it("refuses values that cannot be written unquoted, without repeating them", () => {
    const attempt = () => updateEnvContent("", { SERVICE_API_KEY: "prk_with space#x" });
    expect(attempt).toThrow(EnvFileContentError);
    expect(attempt).toThrow(/SERVICE_API_KEY holds characters/u);
    expect(attempt).not.toThrow(/with space/u);
  });
});

describe("existingApiKey", () => {
  it("finds a non-empty key the way dotenv reads it", () => {
    const key = fakeKey();
    expect(existingApiKey(`# x\nexport SERVICE_API_KEY='${key}'\n`)).toBe(key);
    expect(existingApiKey("SERVICE_API_KEY=\nOTHER=1\n")).toBeUndefined();
    expect(existingApiKey("SERVICE_API_KEY=   \n")).toBeUndefined();
    expect(existingApiKey("# SERVICE_API_KEY=commented\n")).toBeUndefined();
  });
});

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigurationError } from "../errors/client-errors.js";
import {
  activeProfile,
  loadProfiles,
  removeProfile,
  saveProfile,
  setActiveProfile,
} from "./profile-store.js";
import { configDirectory, profilesFilePath } from "./profiles-file-path.js";
import { resolveSettings } from "./resolve-settings.js";

let home: string;
let env: NodeJS.ProcessEnv;
const KEY = `prk_${"k".repeat(32)}abc123`;
const PERSONA = "3bee94bc-c62f-4582-9fa6-2c47d62ac431";
const OTHER_PERSONA = "11111111-2222-4333-8444-555555555555";

beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "persona-profiles-"));
  env = { HOME: home, XDG_CONFIG_HOME: path.join(home, "config") };
});

afterEach(() => {
  fs.rmSync(home, { recursive: true, force: true });
});

describe("profiles file location", () => {
  it("uses XDG_CONFIG_HOME when absolute, else ~/.config", () => {
    expect(profilesFilePath(env)).toBe(path.join(home, "config/persona-reply/profiles.json"));
    expect(configDirectory({ HOME: home, XDG_CONFIG_HOME: "relative/path" })).toBe(
      path.join(home, ".config/persona-reply"),
    );
    expect(configDirectory({ HOME: home })).toBe(path.join(home, ".config/persona-reply"));
  });
});

describe("profile store", () => {
  it("starts empty, and the first saved profile becomes active", () => {
    expect(loadProfiles({ env })).toEqual({ activeProfile: undefined, profiles: {} });
    expect(activeProfile({ env })).toBeUndefined();
    saveProfile("default", { apiKey: KEY, personaId: PERSONA }, { env });
    saveProfile("work", { personaId: OTHER_PERSONA }, { env });
    expect(activeProfile({ env })).toEqual({
      name: "default",
      values: { apiKey: KEY, personaId: PERSONA },
    });
    expect(Object.keys(loadProfiles({ env }).profiles)).toEqual(["default", "work"]);
  });

  it("writes the file 0600 in a folder 0700, even over looser modes", () => {
    const directory = path.dirname(profilesFilePath(env));
    fs.mkdirSync(directory, { recursive: true, mode: 0o755 });
    fs.chmodSync(directory, 0o755);
    saveProfile("default", { apiKey: KEY }, { env });
    expect(fs.statSync(directory).mode & 0o777).toBe(0o700);
    expect(fs.statSync(profilesFilePath(env)).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(directory)).toEqual(["profiles.json"]);
  });

  it("merges updates: given fields set, null removes, absent kept", () => {
    saveProfile(
      "default",
      { apiKey: KEY, personaId: PERSONA, baseUrl: "http://127.0.0.1:1" },
      { env },
    );
    const saved = saveProfile("default", { personaId: OTHER_PERSONA, baseUrl: null }, { env });
    expect(saved).toEqual({ apiKey: KEY, personaId: OTHER_PERSONA });
    expect(loadProfiles({ env }).profiles.default).toEqual(saved);
  });

  it("switches and removes profiles", () => {
    saveProfile("default", { apiKey: KEY }, { env });
    saveProfile("work", { apiKey: KEY }, { env });
    setActiveProfile("work", { env });
    expect(activeProfile({ env })?.name).toBe("work");
    expect(() => setActiveProfile("missing", { env })).toThrow(ConfigurationError);
    expect(removeProfile("work", { env })).toBe(true);
    expect(removeProfile("work", { env })).toBe(false);
    expect(loadProfiles({ env }).activeProfile).toBeUndefined();
  });

  it("refuses bad names and reports an unreadable file without its content", () => {
    expect(() => saveProfile("../escape", { apiKey: KEY }, { env })).toThrow(
      /invalid profile name/u,
    );
    fs.mkdirSync(path.dirname(profilesFilePath(env)), { recursive: true });
    fs.writeFileSync(profilesFilePath(env), `{"profiles": {"default": {"apiKey": "${KEY}"`);
    expect(() => loadProfiles({ env })).toThrow(/is not valid JSON/u);
    expect(() => loadProfiles({ env })).not.toThrow(KEY);
  });
});

describe("resolveSettings: flags > environment > profile", () => {
  it("takes each value from the strongest source", () => {
    saveProfile(
      "default",
      { apiKey: KEY, personaId: PERSONA, baseUrl: "http://127.0.0.1:1000" },
      { env },
    );
    expect(resolveSettings({ env })).toEqual({
      apiKey: KEY,
      personaId: PERSONA,
      baseUrl: "http://127.0.0.1:1000",
      profileName: "default",
      sources: { apiKey: "profile", personaId: "profile", baseUrl: "profile" },
    });
    const withEnvironment = {
      ...env,
      SERVICE_PERSONA_ID: OTHER_PERSONA,
      SERVICE_BASE_URL: "http://127.0.0.1:2000",
      SERVICE_API_KEY: "",
    };
    const resolved = resolveSettings({
      env: withEnvironment,
      flags: { baseUrl: "http://127.0.0.1:3000" },
    });
    expect(resolved).toMatchObject({
      apiKey: KEY,
      personaId: OTHER_PERSONA,
      baseUrl: "http://127.0.0.1:3000",
      sources: { apiKey: "profile", personaId: "environment", baseUrl: "flag" },
    });
  });

  it("reads a named profile, and refuses one that does not exist", () => {
    saveProfile("default", { personaId: PERSONA }, { env });
    saveProfile("work", { personaId: OTHER_PERSONA }, { env });
    expect(resolveSettings({ env, flags: { profile: "work" } })).toMatchObject({
      personaId: OTHER_PERSONA,
      profileName: "work",
    });
    expect(() => resolveSettings({ env, flags: { profile: "nope" } })).toThrow(
      /no profile named "nope"/u,
    );
  });

  it("works with no profiles file at all", () => {
    expect(resolveSettings({ env: { ...env, SERVICE_API_KEY: KEY } })).toEqual({
      apiKey: KEY,
      sources: { apiKey: "environment" },
    });
  });
});

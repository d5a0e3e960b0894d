import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { ConfigurationError } from "../errors/client-errors.js";
import { profilesFilePath } from "./profiles-file-path.js";

/** The settings one profile holds; every field is optional. */
export interface ProfileValues {
  /** The API key (stored in the 0600 file; shown only masked). */
  apiKey?: string;
  /** The persona's UUID. */
  personaId?: string;
  /** The site origin, without `/api/v1`. */
  baseUrl?: string;
}

/** A change to a profile: a string sets the field, `null` removes it, absent leaves it. */
export type ProfileUpdate = { [Field in keyof ProfileValues]?: string | null };

/** The profiles file as read: named profiles and the active one's name. */
export interface Profiles {
  /** Name of the profile used when none is named; undefined when none is set. */
  activeProfile: string | undefined;
  /** Profiles by name. */
  profiles: Record<string, ProfileValues>;
}

/** A profile with its name. */
export interface NamedProfile {
  name: string;
  values: ProfileValues;
}

/** Where the store reads and writes; defaults to the user's config directory. */
export interface ProfileStoreOptions {
  /** Environment for `XDG_CONFIG_HOME` and `HOME`; `process.env` by default. */
  env?: NodeJS.ProcessEnv;
  /** The profiles file itself, overriding the environment. */
  file?: string;
}

/** Name used when there is no active profile and none is named. */
export const DEFAULT_PROFILE_NAME = "default";

/** Version of the profiles file's format, written as `version`. */
const FILE_FORMAT_VERSION = 1;
const PROFILE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/u;
const FIELDS = ["apiKey", "personaId", "baseUrl"] as const;

function fileOf(options: ProfileStoreOptions): string {
  return options.file ?? profilesFilePath(options.env);
}

/**
 * Checks a profile name: 1–64 letters, digits, `.`, `_` or `-`, starting
 * with a letter or digit.
 *
 * @returns the name, unchanged
 * @throws {ConfigurationError} when the name is not acceptable
 *
 * @example
 * checkProfileName("work-laptop"); // "work-laptop"
 * checkProfileName("../etc"); // throws ConfigurationError
 */
export function checkProfileName(name: string): string {
  if (!PROFILE_NAME_PATTERN.test(name)) {
    throw new ConfigurationError(
      `invalid profile name "${name.slice(0, 64)}": use 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit`,
    );
  }
  return name;
}

function readValues(data: unknown): ProfileValues {
  const values: ProfileValues = {};
  if (typeof data !== "object" || data === null) return values;
  const record = data as Record<string, unknown>;
  for (const field of FIELDS) {
    const value = record[field];
    if (typeof value === "string" && value !== "") values[field] = value;
  }
  return values;
}

/**
 * Reads the profiles file. A missing file is an empty store.
 *
 * @throws {ConfigurationError} when the file exists but cannot be read or
 * parsed (the message names the file, never its content)
 *
 * @example
 * const { activeProfile, profiles } = loadProfiles();
 * console.log(activeProfile, Object.keys(profiles));
 */
export function loadProfiles(options: ProfileStoreOptions = {}): Profiles {
  const file = fileOf(options);
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      return { activeProfile: undefined, profiles: {} };
    }
    throw new ConfigurationError(
      `cannot read the profiles file ${file}: ${(error as Error).message}`,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new ConfigurationError(
      `the profiles file ${file} is not valid JSON; fix it or remove it and run persona configure again`,
    );
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new ConfigurationError(`the profiles file ${file} does not hold a JSON object`);
  }
  const record = data as { activeProfile?: unknown; profiles?: unknown };
  const profiles: Record<string, ProfileValues> = {};
  if (typeof record.profiles === "object" && record.profiles !== null) {
    for (const [name, values] of Object.entries(record.profiles)) {
      if (PROFILE_NAME_PATTERN.test(name)) profiles[name] = readValues(values);
    }
  }
  const active =
    typeof record.activeProfile === "string" && profiles[record.activeProfile] !== undefined
      ? record.activeProfile
      : undefined;
  return { activeProfile: active, profiles };
}

/**
 * Writes the store atomically (a new 0600 file renamed over the old one) in
 * a folder made or tightened to mode 0700, so a reader never sees half a file.
 */
function writeProfiles(profiles: Profiles, options: ProfileStoreOptions): void {
  const file = fileOf(options);
  const directory = path.dirname(file);
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
  fs.chmodSync(directory, 0o700);
  const content = {
    version: FILE_FORMAT_VERSION,
    activeProfile: profiles.activeProfile ?? null,
    profiles: profiles.profiles,
  };
  const temporary = path.join(
    directory,
    `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`,
  );
  try {
    fs.writeFileSync(temporary, `${JSON.stringify(content, null, 2)}\n`, {
      mode: 0o600,
      flag: "wx",
    });
    fs.chmodSync(temporary, 0o600);
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw new ConfigurationError(
      `cannot write the profiles file ${file}: ${(error as Error).message}`,
    );
  }
}

/**
 * The active profile, or undefined when none is set.
 *
 * @throws {ConfigurationError} when the profiles file cannot be read
 *
 * @example
 * const profile = activeProfile();
 * if (profile) console.log(`using ${profile.name}`);
 */
export function activeProfile(options: ProfileStoreOptions = {}): NamedProfile | undefined {
  const store = loadProfiles(options);
  if (store.activeProfile === undefined) return undefined;
  const values = store.profiles[store.activeProfile];
  return values === undefined ? undefined : { name: store.activeProfile, values };
}

/**
 * Creates or updates a profile: given fields are set (`null` removes one),
 * absent fields are kept. The first profile saved becomes the active one.
 * Values are stored as given; check them before (the `persona configure`
 * command does).
 *
 * @param name - the profile's name (see {@link checkProfileName})
 * @param values - the fields to change
 * @returns the profile as stored
 * @throws {ConfigurationError} for an invalid name or when the file cannot be written
 *
 * @example
 * saveProfile("work", { apiKey: keyFromBrowserLogin, personaId: "3bee94bc-…" });
 */
export function saveProfile(
  name: string,
  values: ProfileUpdate,
  options: ProfileStoreOptions = {},
): ProfileValues {
  checkProfileName(name);
  const store = loadProfiles(options);
  const profile: ProfileValues = { ...store.profiles[name] };
  for (const field of FIELDS) {
    const value = values[field];
    if (value === null) delete profile[field];
    else if (value !== undefined) profile[field] = value;
  }
  store.profiles[name] = profile;
  store.activeProfile ??= name;
  writeProfiles(store, options);
  return profile;
}

/**
 * Makes a profile the active one (`persona use <profile>`).
 *
 * @throws {ConfigurationError} when no profile has that name
 *
 * @example
 * setActiveProfile("staging");
 */
export function setActiveProfile(name: string, options: ProfileStoreOptions = {}): void {
  const store = loadProfiles(options);
  if (store.profiles[name] === undefined) {
    throw new ConfigurationError(`no profile named "${name}"; persona profiles lists them`);
  }
  store.activeProfile = name;
  writeProfiles(store, options);
}

/**
 * Removes a profile and its key from the file (`persona configure --clear`).
 * When it was the active profile, no profile is active afterwards.
 *
 * @returns whether a profile of that name existed
 *
 * @example
 * removeProfile("old-laptop");
 */
export function removeProfile(name: string, options: ProfileStoreOptions = {}): boolean {
  const store = loadProfiles(options);
  if (store.profiles[name] === undefined) return false;
  delete store.profiles[name];
  if (store.activeProfile === name) store.activeProfile = undefined;
  writeProfiles(store, options);
  return true;
}

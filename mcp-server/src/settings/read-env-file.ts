import fs from "node:fs";
import dotenv from "dotenv";

/** The `SERVICE_*` variables the server takes from an env file (docs/API.md §5.4). */
export const SERVICE_VARIABLES = [
  "SERVICE_API_KEY",
  "SERVICE_PERSONA_ID",
  "SERVICE_BASE_URL",
] as const;

/** A variable of {@link SERVICE_VARIABLES}. */
export type ServiceVariable = (typeof SERVICE_VARIABLES)[number];

/** What {@link readEnvFile} found. */
export interface EnvFileContents {
  /** The `SERVICE_*` values the file sets (empty values left out). */
  values: Partial<Record<ServiceVariable, string>>;
  /** Whether the file exists. */
  found: boolean;
  /** Why an existing file could not be read (permissions, a folder …); never holds its contents. */
  problem?: string;
}

/**
 * Reads the `SERVICE_*` variables of a dotenv file (the format `dotenv`
 * parses: `NAME=value`, quotes, `#` comments). Only these three variables
 * are taken, so a project's `.env` cannot change anything else about the
 * server. A missing file is not an error: it reads as empty.
 *
 * @param file - absolute path of the env file, e.g. `<working directory>/.env`
 * @returns the values, whether the file exists, and a problem when it exists but cannot be read
 *
 * @example
 * const { values } = readEnvFile(path.resolve(".env"));
 * values.SERVICE_PERSONA_ID; // "3bee94bc-…" when the file sets it
 */
export function readEnvFile(file: string): EnvFileContents {
  let text: Buffer;
  try {
    text = fs.readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { values: {}, found: false };
    return { values: {}, found: true, problem: code ?? "unreadable" };
  }
  const parsed = dotenv.parse(text);
  const values: EnvFileContents["values"] = {};
  for (const name of SERVICE_VARIABLES) {
    const value = parsed[name]?.trim();
    if (value !== undefined && value !== "") values[name] = value;
  }
  return { values, found: true };
}

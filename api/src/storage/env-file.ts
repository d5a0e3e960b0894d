import fs from "node:fs";
import path from "node:path";

/**
 * The line of the env file (the demo seed writes it, seed/demo-seed.ts)
 * naming the database its `SERVICE_API_KEY` was written for: the SQLite file's absolute path, or the PostgreSQL URL
 * without its credentials. The start-up check of a missing SQLite file
 * (storage/sqlite/sqlite-file.ts) reads it to tell whether *that* database
 * was lost, so a key written for another file proves nothing about this one.
 */
export const DATABASE_IDENTITY_VARIABLE = "SERVICE_DATABASE";

/**
 * Reads `NAME=value` pairs of a dotenv file (comments and blank lines
 * skipped; surrounding quotes removed).
 *
 * @returns the variables, empty when the file does not exist
 */
export function readEnvFile(file: string): Record<string, string> {
  if (!fs.existsSync(file)) return {};
  const values: Record<string, string> = {};
  for (const line of fs.readFileSync(file, "utf8").split(/\r?\n/u)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/u.exec(line);
    if (match?.[1] === undefined) continue;
    values[match[1]] = (match[2] ?? "").replace(/^(['"])(.*)\1$/u, "$2");
  }
  return values;
}

/**
 * Sets variables in a dotenv file, keeping every other line as it was. The
 * file is written whole to a temporary sibling with mode 0600 and renamed
 * over the original, so a crash never leaves a half-written file.
 */
export function updateEnvFile(file: string, values: Record<string, string>): void {
  const lines = fs.existsSync(file) ? fs.readFileSync(file, "utf8").split(/\r?\n/u) : [];
  if (lines.at(-1) === "") lines.pop();
  const pending = new Map(Object.entries(values));
  const updated = lines.map((line) => {
    const name = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/u.exec(line)?.[1];
    if (name === undefined || !pending.has(name)) return line;
    const value = pending.get(name);
    pending.delete(name);
    return `${name}=${value}`;
  });
  for (const [name, value] of pending) updated.push(`${name}=${value}`);
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${updated.join("\n")}\n`, { mode: 0o600 });
  fs.chmodSync(temporary, 0o600);
  fs.renameSync(temporary, file);
}

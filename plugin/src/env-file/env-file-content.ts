import dotenv from "dotenv";

/** The variables the setup writes, in the order it appends them (docs/API.md §5.4). */
export const SETUP_VARIABLES = [
  "SERVICE_API_KEY",
  "SERVICE_PERSONA_ID",
  "SERVICE_BASE_URL",
] as const;

/** A variable of {@link SETUP_VARIABLES}. */
export type SetupVariable = (typeof SETUP_VARIABLES)[number];

/** Values to write: the key always, the persona ID and base URL when given. */
export type SetupValues = { SERVICE_API_KEY: string } & Partial<
  Record<"SERVICE_PERSONA_ID" | "SERVICE_BASE_URL", string>
>;

/** The comment line written above the variables when the file did not hold them yet. */
export const APPENDED_COMMENT =
  "# Persona Reply (written by the coding-agent plugin's setup; keep this file private)";

/**
 * The env file's content cannot be updated without touching other lines, or a
 * value cannot be written as a plain dotenv value. Nothing was written.
 */
export class EnvFileContentError extends Error {
  override name = "EnvFileContentError";
}

/** A value written unquoted: no whitespace, quotes, `#`, `$`, backslash or control characters. */
const PLAIN_VALUE = /^[^\s"'`#$\\\p{Cc}]+$/u;

/**
 * Reads a dotenv file's variables the way the MCP server does (the `dotenv`
 * package's parser: `NAME=value`, `export NAME=value`, quotes, `#` comments).
 *
 * @param content - the file's text
 * @returns every variable it sets (later lines win, as in `dotenv`)
 *
 * @example
 * readEnvValues("A=1\n# note\nexport B='two'\n"); // { A: "1", B: "two" }
 */
export function readEnvValues(content: string): Record<string, string> {
  return dotenv.parse(content);
}

/**
 * The API key an env file already holds, if any: a non-empty `SERVICE_API_KEY`.
 *
 * @param content - the file's text
 * @returns the key (never print it; mask it with `maskApiKey`), or undefined
 */
export function existingApiKey(content: string): string | undefined {
  const value = readEnvValues(content).SERVICE_API_KEY?.trim();
  return value === undefined || value === "" ? undefined : value;
}

/** The assignment of `name` a line starts, if it starts one: its `export ` prefix and the text after `=`. */
function assignmentOf(line: string, name: string): { exported: boolean; rest: string } | undefined {
  const match = new RegExp(`^\\s*(export\\s+)?${name}\\s*=(.*)$`, "u").exec(line);
  if (match === null) return undefined;
  return { exported: match[1] !== undefined, rest: match[2] ?? "" };
}

/**
 * How many lines an assignment spans: a value opened by a quote that the
 * same line does not close runs on until the line that does (dotenv's
 * multi-line values). Those lines belong to the variable being replaced.
 */
function assignmentLength(lines: readonly string[], start: number, rest: string): number {
  const value = rest.trimStart();
  const quote = value[0];
  if (quote !== '"' && quote !== "'" && quote !== "`") return 1;
  if (value.indexOf(quote, 1) !== -1) return 1;
  for (let index = start + 1; index < lines.length; index += 1) {
    if ((lines[index] ?? "").includes(quote)) return index - start + 1;
  }
  // An unclosed quote: dotenv reads it as a one-line value, so only this line is the variable's.
  return 1;
}

/**
 * Writes the setup's variables into an env file's text, leaving every other
 * line exactly as it was (comments, blank lines, other variables, line
 * endings): each existing assignment of a variable (also `export NAME=…` and
 * multi-line quoted values) is replaced in place by `NAME=value`, keeping its
 * `export ` prefix; variables the file does not set yet are appended at the
 * end under {@link APPENDED_COMMENT}. The result is checked with the `dotenv`
 * parser the MCP server uses: it must read back exactly the new values, and
 * every other variable unchanged.
 *
 * @param content - the current text, or undefined when the file does not exist yet
 * @param values - `SERVICE_API_KEY`, and `SERVICE_PERSONA_ID` / `SERVICE_BASE_URL` when given
 * @returns the new text, ending with a line break
 * @throws {EnvFileContentError} when a value cannot be written unquoted, or the
 *   file is laid out so that the update would change another variable
 *
 * @example
 * updateEnvContent("PORT=3000\n", { SERVICE_API_KEY: key, SERVICE_PERSONA_ID: id });
 * // "PORT=3000\n# Persona Reply (…)\nSERVICE_API_KEY=prk_…\nSERVICE_PERSONA_ID=3bee94bc-…\n"
 */
export function updateEnvContent(content: string | undefined, values: SetupValues): string {
  const wanted = SETUP_VARIABLES.flatMap((name) => {
    const value = values[name];
    return value === undefined ? [] : [{ name, value }];
  });
  for (const { name, value } of wanted) {
    if (!PLAIN_VALUE.test(value)) {
      // The message names the variable only: the value may be the key.
      throw new EnvFileContentError(
        `${name} holds characters an env file cannot take unquoted; nothing was written`,
      );
    }
  }

  const original = content ?? "";
  const lineBreak = original.includes("\r\n") ? "\r\n" : "\n";
  const lines = original === "" ? [] : original.split(/\r?\n/u);
  const endsWithBreak = original === "" || original.endsWith("\n");
  if (endsWithBreak && lines.length > 0) lines.pop();

  const output: string[] = [];
  const written = new Set<SetupVariable>();
  for (let index = 0; index < lines.length; ) {
    const line = lines[index] ?? "";
    const match = wanted
      .map((entry) => ({ entry, assignment: assignmentOf(line, entry.name) }))
      .find((candidate) => candidate.assignment !== undefined);
    if (match?.assignment === undefined) {
      output.push(line);
      index += 1;
      continue;
    }
    const { entry, assignment } = match;
    output.push(`${assignment.exported ? "export " : ""}${entry.name}=${entry.value}`);
    written.add(entry.name);
    index += assignmentLength(lines, index, assignment.rest);
  }

  const missing = wanted.filter((entry) => !written.has(entry.name));
  if (missing.length > 0) {
    output.push(APPENDED_COMMENT);
    for (const entry of missing) output.push(`${entry.name}=${entry.value}`);
  }
  const updated = `${output.join(lineBreak)}${lineBreak}`;
  checkUpdate(original, updated, wanted);
  return updated;
}

/** Reads both texts back with dotenv: the new values must be there, and nothing else may differ. */
function checkUpdate(
  before: string,
  after: string,
  wanted: readonly { name: SetupVariable; value: string }[],
): void {
  const old = readEnvValues(before);
  const now = readEnvValues(after);
  for (const { name, value } of wanted) {
    if (now[name] !== value) {
      throw new EnvFileContentError(
        `the env file's layout around ${name} could not be updated safely; edit it by hand or choose another file. Nothing was written.`,
      );
    }
  }
  const names = new Set([...Object.keys(old), ...Object.keys(now)]);
  for (const name of names) {
    if (wanted.some((entry) => entry.name === name)) continue;
    if (old[name] !== now[name]) {
      throw new EnvFileContentError(
        `updating the env file would change ${name}; edit it by hand or choose another file. Nothing was written.`,
      );
    }
  }
}

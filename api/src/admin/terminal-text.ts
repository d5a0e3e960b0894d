/**
 * Characters that would act on a terminal instead of being shown, or make
 * text read differently than it is: C0 and C1 controls (ESC starts ANSI
 * sequences), DEL, the bidirectional overrides and isolates, zero-width
 * and other format characters, and the line and paragraph separators.
 */
const UNSAFE = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;

function escaped(character: string): string {
  return `\\u${(character.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`;
}

/**
 * Makes text from outside (an applicant's form, a persona name) safe to
 * print on an operator's terminal: every unsafe character becomes a visible
 * `\uXXXX` escape; a newline or tab too unless `keepLines`. Backslashes are
 * left as they are.
 *
 * @example
 * terminalText("Ada\u001b[31m") // "Ada\\u001b[31m"
 */
export function terminalText(text: string, keepLines = false): string {
  return text.replace(UNSAFE, (character) =>
    keepLines && (character === "\n" || character === "\t") ? character : escaped(character),
  );
}

/**
 * JSON for a terminal: `JSON.stringify` escapes C0 controls already; this
 * also escapes DEL, C1 controls and the format characters JSON allows raw.
 * The result is still valid JSON and parses to the same value.
 */
export function terminalJson(value: unknown): string {
  // Raw newlines in the output are the indentation's: JSON escapes those inside strings.
  return JSON.stringify(value, null, 2).replace(UNSAFE, (character) =>
    character === "\n" ? character : escaped(character),
  );
}

/** Tokens some models leak into their output (global patterns: removed wherever they occur). */
export const MODEL_ARTEFACTS: readonly RegExp[] = [
  /<\|[a-z_]+\|>/giu,
  /<\/?s>/giu,
  /\[\/?INST\]/gu,
  /<<\/?SYS>>/gu,
];
const THINK_BLOCK = /<think>[\s\S]*?<\/think>/giu;
/** A stray role label at the start of a reply ("Assistant: …"). */
export const ROLE_PREFIX = /^(?:assistant|ai|bot|persona|system)\s*:\s*/iu;
const QUOTE_PAIRS: ReadonlyArray<readonly [string, string]> = [
  ['"', '"'],
  ["“", "”"],
  ["'", "'"],
  ["‘", "’"],
  ["«", "»"],
];

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&");
}

function stripWrappingQuotes(text: string): string {
  for (const [open, close] of QUOTE_PAIRS) {
    if (text.length > 2 && text.startsWith(open) && text.endsWith(close)) {
      const inner = text.slice(open.length, -close.length);
      // Only when the quotes wrap the whole text, not two quoted phrases.
      if (!inner.includes(open) && !inner.includes(close)) return inner.trim();
    }
  }
  return text;
}

/**
 * Normalizes model output: Unicode NFC, model
 * artefacts and `<think>` blocks removed, stray role or persona-name
 * prefixes removed, quotes wrapping the whole text removed, horizontal
 * whitespace collapsed, at most one blank line between paragraphs, trimmed.
 * Lone surrogates become U+FFFD so the output is always valid UTF-8.
 *
 * @param text - raw provider output
 * @param personaName - the persona's display name, stripped as a "Name:" prefix
 */
export function normalizeOutput(text: string, personaName?: string): string {
  let result = text.toWellFormed().normalize("NFC").replace(THINK_BLOCK, "");
  for (const pattern of MODEL_ARTEFACTS) result = result.replace(pattern, "");
  result = result
    .replace(/\r\n?/gu, "\n")
    .replace(/[^\S\n]+/gu, " ")
    .replace(/ *\n */gu, "\n")
    .replace(/\n{3,}/gu, "\n\n")
    .trim();
  const namePrefix =
    personaName === undefined
      ? undefined
      : new RegExp(`^${escapeRegExp(personaName)}\\s*:\\s*`, "iu");
  for (let pass = 0; pass < 2; pass++) {
    result = result.replace(ROLE_PREFIX, "");
    if (namePrefix !== undefined) result = result.replace(namePrefix, "");
    result = stripWrappingQuotes(result.trim());
  }
  return result;
}

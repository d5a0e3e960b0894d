/**
 * Cuts text at the earliest occurrence of any stop sequence (docs/API.md §4.3 rule
 * 7); empty sequences are ignored.
 */
export function applyStop(
  text: string,
  stop: string | readonly string[] | null | undefined,
): string {
  if (stop === null || stop === undefined) return text;
  const sequences = typeof stop === "string" ? [stop] : stop;
  let end = text.length;
  for (const sequence of sequences) {
    if (sequence === "") continue;
    const index = text.indexOf(sequence);
    if (index !== -1 && index < end) end = index;
  }
  return text.slice(0, end);
}

/**
 * Prepends the prompt to the output for `echo: true` (docs/API.md §4.3 rule 7),
 * separated by a newline unless the prompt already ends in whitespace.
 */
export function applyEcho(prompt: string, text: string): string {
  return /\s$/u.test(prompt) || prompt === "" ? prompt + text : `${prompt}\n${text}`;
}

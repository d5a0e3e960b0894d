/**
 * The chunks of a completion choice: the service's extra field
 * `choices[].chunks` (docs/API.md §4.3), which the official `openai` client keeps
 * on the object it returns. A completions server without that field gives
 * the whole text as one chunk.
 */
export function completionChunks(choice: object, text: string): string[] {
  const chunks = (choice as { chunks?: unknown }).chunks;
  if (Array.isArray(chunks) && chunks.every((chunk) => typeof chunk === "string")) {
    return chunks as string[];
  }
  return text === "" ? [] : [text];
}

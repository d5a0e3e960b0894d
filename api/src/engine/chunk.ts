/** Target size of a chunk: a chat-message-sized piece (characters). */
export const CHUNK_TARGET_LENGTH = 100;
/** A chunk longer than this is split at spaces (a single longer word stays whole). */
export const CHUNK_MAX_LENGTH = 280;

const sentenceSegmenter = new Intl.Segmenter("en", { granularity: "sentence" });

function splitLongSentence(sentence: string): string[] {
  const pieces: string[] = [];
  let current = "";
  for (const word of sentence.split(" ")) {
    if (word === "") continue;
    if (current !== "" && current.length + 1 + word.length > CHUNK_MAX_LENGTH) {
      pieces.push(current);
      current = word;
    } else {
      current = current === "" ? word : `${current} ${word}`;
    }
  }
  if (current !== "") pieces.push(current);
  return pieces;
}

/**
 * Splits normalized text into message-sized chunks along sentence boundaries
 * (`Intl.Segmenter`): short sentences are joined
 * up to {@link CHUNK_TARGET_LENGTH} characters, a paragraph break always
 * ends a chunk, and a sentence over {@link CHUNK_MAX_LENGTH} characters is
 * split between words. Words are never cut, dropped or invented:
 * `chunks.join(" ")` has the same words as `text`.
 *
 * @param text - normalized text (see normalizeOutput)
 * @returns the chunks, none empty; `[]` for empty text
 */
export function chunkText(text: string): string[] {
  const chunks: string[] = [];
  for (const paragraph of text.split(/\n+/u)) {
    let current = "";
    for (const sentence of sentencesOf(paragraph)) {
      const pieces = sentence.length > CHUNK_MAX_LENGTH ? splitLongSentence(sentence) : [sentence];
      for (const piece of pieces) {
        if (current !== "" && current.length + 1 + piece.length > CHUNK_TARGET_LENGTH) {
          chunks.push(current);
          current = piece;
        } else {
          current = current === "" ? piece : `${current} ${piece}`;
        }
      }
    }
    if (current !== "") chunks.push(current);
  }
  return chunks;
}

/**
 * The sentences of a paragraph, whitespace collapsed. A segmenter boundary
 * with no whitespace at it (as in "a.b" or some scripts' marks) is not used,
 * so joining sentences with a space never splits a word.
 */
export function sentencesOf(paragraph: string): string[] {
  const sentences: string[] = [];
  let pending = "";
  for (const { segment } of sentenceSegmenter.segment(paragraph)) {
    pending += segment;
    if (/\s$/u.test(segment)) {
      const sentence = pending.replace(/\s+/gu, " ").trim();
      if (sentence !== "") sentences.push(sentence);
      pending = "";
    }
  }
  const last = pending.replace(/\s+/gu, " ").trim();
  if (last !== "") sentences.push(last);
  return sentences;
}

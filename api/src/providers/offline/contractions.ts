import { normalizeWord, type TextToken, tokenize } from "./text-tokens.js";

/** Contracted word → its full form (normalized keys, lowercase values). */
const EXPANSIONS: ReadonlyMap<string, string> = new Map([
  ["i'm", "i am"],
  ["you're", "you are"],
  ["we're", "we are"],
  ["they're", "they are"],
  ["i've", "i have"],
  ["you've", "you have"],
  ["we've", "we have"],
  ["they've", "they have"],
  ["i'll", "i will"],
  ["you'll", "you will"],
  ["we'll", "we will"],
  ["they'll", "they will"],
  ["he'll", "he will"],
  ["she'll", "she will"],
  ["it'll", "it will"],
  ["that'll", "that will"],
  ["i'd", "i would"],
  ["you'd", "you would"],
  ["we'd", "we would"],
  ["they'd", "they would"],
  ["he'd", "he would"],
  ["she'd", "she would"],
  ["it's", "it is"],
  ["that's", "that is"],
  ["what's", "what is"],
  ["there's", "there is"],
  ["here's", "here is"],
  ["he's", "he is"],
  ["she's", "she is"],
  ["who's", "who is"],
  ["where's", "where is"],
  ["how's", "how is"],
  ["let's", "let us"],
  ["isn't", "is not"],
  ["aren't", "are not"],
  ["wasn't", "was not"],
  ["weren't", "were not"],
  ["don't", "do not"],
  ["doesn't", "does not"],
  ["didn't", "did not"],
  ["hasn't", "has not"],
  ["haven't", "have not"],
  ["hadn't", "had not"],
  ["won't", "will not"],
  ["wouldn't", "would not"],
  ["can't", "cannot"],
  ["couldn't", "could not"],
  ["shouldn't", "should not"],
  ["mustn't", "must not"],
  ["needn't", "need not"],
  ["shan't", "shall not"],
  ["ain't", "is not"],
  ["y'all", "you all"],
]);

// "'s" and "'d" also stand for "has" and "had": "she's been", "I'd better".
const PERFECT_MARKERS = new Set(["been", "got", "gotten", "better"]);

/** Two full words → their contraction. Pronoun forms need a following word (see below). */
const CONTRACTIONS: ReadonlyMap<string, string> = new Map([
  ["i am", "i'm"],
  ["you are", "you're"],
  ["we are", "we're"],
  ["they are", "they're"],
  ["i will", "i'll"],
  ["you will", "you'll"],
  ["we will", "we'll"],
  ["they will", "they'll"],
  ["i would", "i'd"],
  ["it is", "it's"],
  ["that is", "that's"],
  ["there is", "there's"],
  ["here is", "here's"],
  ["what is", "what's"],
  ["is not", "isn't"],
  ["are not", "aren't"],
  ["was not", "wasn't"],
  ["were not", "weren't"],
  ["do not", "don't"],
  ["does not", "doesn't"],
  ["did not", "didn't"],
  ["has not", "hasn't"],
  ["have not", "haven't"],
  ["had not", "hadn't"],
  ["will not", "won't"],
  ["would not", "wouldn't"],
  ["could not", "couldn't"],
  ["should not", "shouldn't"],
  ["must not", "mustn't"],
]);

/**
 * Expands contractions into full words ("don't" → "do not", "I'm" → "I am"),
 * keeping the case of the original and every other character as it is.
 * Possessives ("Anna's") are left alone.
 *
 * @param text - any text
 * @returns the text with known contractions written out
 * @example
 * expandContractions("I'm sure it's fine."); // "I am sure it is fine."
 */
export function expandContractions(text: string): string {
  const tokens = tokenize(text);
  let result = "";
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index] as TextToken;
    const key = token.isWord ? normalizeWord(token.text) : "";
    let expanded = EXPANSIONS.get(key);
    if (expanded !== undefined && PERFECT_MARKERS.has(nextWord(tokens, index))) {
      if (key.endsWith("'s")) expanded = expanded.replace(/ is$/, " has");
      if (key.endsWith("'d")) expanded = expanded.replace(/ would$/, " had");
    }
    result += expanded === undefined ? token.text : matchCase(token.text, expanded);
  }
  return result;
}

/**
 * Contracts common pairs of full words ("do not" → "don't", "I am" → "I'm",
 * "cannot" → "can't"). A pronoun with "is/are/am/will/would" is contracted only
 * when another word follows on the same clause, since "I know what it's." is
 * not English.
 *
 * @param text - any text
 * @param apostrophe - the apostrophe to write, `'` or `’`
 * @example
 * contractText("I am sure it is not done."); // "I'm sure it isn't done."
 */
export function contractText(text: string, apostrophe = "'"): string {
  const tokens = tokenize(text);
  let result = "";
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index] as TextToken;
    if (!token.isWord) {
      result += token.text;
      continue;
    }
    const first = normalizeWord(token.text);
    if (first === "cannot") {
      result += matchCase(token.text, `can${apostrophe}t`);
      continue;
    }
    const second = tokens[index + 2];
    if (second !== undefined && isInlineSpace(tokens[index + 1])) {
      const secondWord = normalizeWord(second.text);
      const contracted = CONTRACTIONS.get(`${first} ${secondWord}`);
      // "it is not" reads better as "it isn't" than "it's not", and "I will
      // not" as "I won't": leave the pronoun so the "not" pair contracts.
      const beforeNot = secondWord !== "am" && nextWord(tokens, index + 2) === "not";
      const allowed = secondWord === "not" || (isInlineSpace(tokens[index + 3]) && !beforeNot);
      if (contracted !== undefined && allowed) {
        const original = `${token.text} ${second.text}`;
        result += matchCase(original, contracted.replace("'", apostrophe));
        index += 2;
        continue;
      }
    }
    result += token.text;
  }
  return result;
}

/**
 * Whether a text contains one of the contractions this module knows
 * (straight or curly apostrophe).
 *
 * @example
 * hasContraction("I'm here."); // true
 * hasContraction("Anna's cat."); // false
 */
export function hasContraction(text: string): boolean {
  return tokenize(text).some((token) => token.isWord && EXPANSIONS.has(normalizeWord(token.text)));
}

function nextWord(tokens: readonly TextToken[], index: number): string {
  const separator = tokens[index + 1];
  const word = tokens[index + 2];
  if (!isInlineSpace(separator) || word === undefined) return "";
  return normalizeWord(word.text);
}

// Only plain spaces join two words into one contraction; a line break or
// punctuation between them means they belong to different phrases.
function isInlineSpace(token: TextToken | undefined): boolean {
  return (
    token !== undefined && !token.isWord && token.text.trim() === "" && !/[\r\n]/.test(token.text)
  );
}

/** Gives `replacement` the case pattern of `original`: ALL CAPS, Capitalized or as written. */
function matchCase(original: string, replacement: string): string {
  const letters = original.replace(/[^\p{L}]/gu, "");
  if (
    letters.length > 1 &&
    letters === letters.toUpperCase() &&
    letters !== letters.toLowerCase()
  ) {
    return replacement.toUpperCase();
  }
  const first = original.charAt(0);
  if (first !== first.toLowerCase()) {
    return replacement.charAt(0).toUpperCase() + replacement.slice(1);
  }
  return replacement;
}

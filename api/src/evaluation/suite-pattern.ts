import { parseRegExpLiteral, visitRegExpAST } from "@eslint-community/regexpp";
import { LRUCache } from "lru-cache";
import { RE2JS } from "re2js";

/**
 * A suite's regular expression, compiled for RE2's linear-time engine
 * (re2js): matching takes time proportional to the reply's length whatever
 * the pattern, so a pattern that backtracks catastrophically in
 * JavaScript's engine (`(a+)+$`) still answers at once.
 */
export interface SuitePattern {
  /** The pattern as the suite wrote it (JavaScript syntax). */
  readonly source: string;
  /** Its JavaScript flags (some of `i`, `m`, `s`, `u`, `v`). */
  readonly flags: string;
  /** Whether the pattern matches anywhere in `text` (like `RegExp.prototype.test`). */
  test(text: string): boolean;
}

/** A pattern that is not valid JavaScript, or uses what the linear-time engine cannot run; the message says which. */
export class SuitePatternError extends Error {
  override readonly name = "SuitePatternError";
}

const ENGINE_NOTE = "suite patterns run on a linear-time engine (RE2)";

/**
 * What of JavaScript's syntax RE2 cannot run, or would read differently,
 * found on the parsed pattern; undefined when there is none.
 */
function unsupportedConstruct(source: string, flags: string): string | undefined {
  const ast = parseRegExpLiteral(new RegExp(source, flags));
  let found: string | undefined;
  const note = (what: string) => {
    found ??= what;
  };
  visitRegExpAST(ast, {
    onBackreferenceEnter: (node) => note(`a backreference (${node.raw}) is not supported`),
    onAssertionEnter: (node) => {
      if (node.kind === "lookahead" || node.kind === "lookbehind") {
        note(`a ${node.kind} (${node.raw}) is not supported`);
      }
    },
    // The `v` flag's set operations, string classes and nested classes: RE2
    // would read their brackets and dashes as plain members of one class.
    onExpressionCharacterClassEnter: (node) =>
      note(`a class set operation (${node.raw}) is not supported`),
    onClassStringDisjunctionEnter: (node) => note(`a string class (${node.raw}) is not supported`),
    onCharacterClassEnter: (node) => {
      if (node.parent.type === "CharacterClass") {
        note(`a nested class (${node.raw}) is not supported`);
      }
    },
    onCharacterEnter: (node) => {
      // Without the u flag JavaScript reads these as the letter itself; RE2
      // reads them as anchors, a bell or quoting.
      if (/^\\[aAzQE]$/u.test(node.raw)) {
        note(
          `${node.raw} means "${node.raw.slice(1)}" in JavaScript but not in RE2: write it without "\\"`,
        );
      }
    },
  });
  return found;
}

function engineFlags(flags: string): number {
  let bits = 0;
  if (flags.includes("i")) bits |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes("m")) bits |= RE2JS.MULTILINE;
  if (flags.includes("s")) bits |= RE2JS.DOTALL;
  // `u` and `v` change only the syntax (checked above): RE2 always matches code points.
  return bits;
}

function compile(source: string, flags: string): SuitePattern {
  try {
    new RegExp(source, flags);
  } catch (error) {
    throw new SuitePatternError(`not a valid regular expression: ${(error as Error).message}`);
  }
  const unsupported = unsupportedConstruct(source, flags);
  if (unsupported !== undefined) throw new SuitePatternError(`${unsupported}: ${ENGINE_NOTE}`);
  let engine: RE2JS;
  try {
    engine = RE2JS.compile(RE2JS.translateRegExp(source), engineFlags(flags));
  } catch (error) {
    // RE2's own message names the part ("invalid repeat count: `{1001}`").
    const reason = (error as Error).message.replace(/^error parsing regexp: /u, "");
    throw new SuitePatternError(`not supported: ${reason}: ${ENGINE_NOTE}`);
  }
  return { source, flags, test: (text) => engine.test(text) };
}

// A suite's patterns are checked once when it loads and then matched against
// every reply of the run; compiling takes a fraction of a millisecond, so
// each pattern is compiled once. Bounded: a suite holds at most a few
// thousand patterns.
const compiled = new LRUCache<string, SuitePattern>({ max: 2_000 });

/**
 * Compiles a suite's pattern (JavaScript syntax and flags) for the
 * linear-time engine; the same pattern again is the same compiled one.
 *
 * @param source - the pattern, without slashes
 * @param flags - some of `i`, `m`, `s`, `u`, `v`
 * @throws {SuitePatternError} when it is not valid JavaScript, or uses what
 *   RE2 cannot run in linear time (backreferences, lookahead and
 *   lookbehind, the `v` flag's set operations, a repeat count above 1000,
 *   Unicode property names RE2 does not know)
 * @example
 * suitePattern("(a+)+$", "iu").test(`${"a".repeat(40)}!`); // false, at once
 */
export function suitePattern(source: string, flags: string): SuitePattern {
  const key = `${flags}/${source}`;
  let pattern = compiled.get(key);
  if (pattern === undefined) {
    pattern = compile(source, flags);
    compiled.set(key, pattern);
  }
  return pattern;
}

import fc from "fast-check";

// Generators of hostile JSON for the property-based fuzz suites
// (api/test/fuzz.test.ts, example-app/test/fuzz.test.ts). Bodies are built
// as JSON *text*, so they can hold what JSON.stringify never writes:
// duplicate keys, `__proto__` keys, numbers beyond float range, nesting
// deeper than any stack.

/** Characters that break naive text handling. */
export const EDGE_CHARACTERS = [
  "\ud800", // lone high surrogate
  "\udfff", // lone low surrogate
  "\u202e", // right-to-left override
  "\u200f", // right-to-left mark
  "\u200b", // zero-width space
  "\u200d", // zero-width joiner
  "\ufeff", // byte order mark
  "\u0000", // NUL
  "\u2028", // line separator
  "\u0301", // combining acute accent
  "👩‍👩‍👧‍👦", // family emoji (ZWJ sequence)
  "🏳️‍🌈",
  "שלום",
  "مرحبا",
  "\t",
  "\n",
  " ",
  '"',
  "\\",
  "<script>",
  "system:",
  "Assistant:",
] as const;

/** Strings mixing plain words with edge characters (RTL, zero-width, surrogates, emoji, controls). */
export const edgeString: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...EDGE_CHARACTERS) },
      { weight: 2, arbitrary: fc.constantFrom("hello", "Hi!", "What?", "ok.", "a", "") },
      { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 8 }) },
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(""));

/** JSON texts of numbers at the edges (some beyond what a double holds: `1e400` parses to Infinity). */
export const edgeNumberText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "0",
    "-0",
    "1",
    "5",
    "6",
    "-1",
    "1.5",
    "1e308",
    "-1e308",
    "1e400",
    "-1e400",
    "5e-324",
    "9007199254740991",
    "9007199254740993",
    "100000000000",
    "8640000000000001",
    "1e-7",
    "0.0000000000000000000000001",
  ),
  fc
    .double()
    .filter(Number.isFinite)
    .map((value) => JSON.stringify(value)),
  fc.integer().map(String),
);

/** JSON text of a string of roughly `length` characters (to cross text limits). */
export const hugeStringText: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom("a", "word ", "é", "👍", "\u200b"),
    fc.integer({ min: 31_990, max: 70_000 }),
  )
  .map(([unit, length]) => JSON.stringify(unit.repeat(Math.ceil(length / unit.length))));

/** JSON text nested deeper than code that recurses can take (arrays or objects). */
export const deepNestingText: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom("array", "object"), fc.integer({ min: 64, max: 100_000 }))
  .map(([shape, depth]) =>
    shape === "array"
      ? `${"[".repeat(depth)}${"]".repeat(depth)}`
      : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`,
  );

/** Keys that reach for the prototype chain or built-in methods. */
export const prototypeKey: fc.Arbitrary<string> = fc.constantFrom(
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "__defineGetter__",
);

/** Writes `{ "k": v, … }` from keys and value *texts*; keys may repeat (the last one wins in JSON.parse). */
export function objectText(entries: ReadonlyArray<readonly [string, string]>): string {
  return `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(",")}}`;
}

/** JSON text of an object whose keys reach for the prototype: `{"__proto__": {...}, "constructor": {...}}`. */
export const prototypeObjectText: fc.Arbitrary<string> = fc
  .array(
    fc.tuple(
      prototypeKey,
      fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
    ),
    {
      minLength: 1,
      maxLength: 3,
    },
  )
  .map(objectText);

/**
 * JSON text of any wrong value: random JSON, edge numbers and strings,
 * huge strings, deep nesting, prototype-key objects.
 */
export const hostileValueText: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)) },
  { weight: 3, arbitrary: edgeNumberText },
  { weight: 3, arbitrary: edgeString.map((text) => JSON.stringify(text)) },
  { weight: 2, arbitrary: fc.constantFrom("null", "true", "false", "[]", "{}", '""', '" "') },
  { weight: 1, arbitrary: hugeStringText },
  { weight: 1, arbitrary: deepNestingText },
  { weight: 1, arbitrary: prototypeObjectText },
);

/** Text that is not JSON at all, or JSON cut short. */
export const notJsonText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "{",
    '{"a":',
    "[1,2",
    "nul",
    "{'a': 1}",
    '{"a":1,}',
    "NaN",
    "undefined",
    "\u0000",
    "{}}",
  ),
  fc.string({ maxLength: 40 }).filter((text) => {
    try {
      JSON.parse(text);
      return false;
    } catch {
      return true;
    }
  }),
);

/** One field of a request body: a good value most of the time, a hostile one or none otherwise. */
export interface FieldSpec {
  name: string;
  good: fc.Arbitrary<string>;
  /** Extra wrong values specific to the field, beside {@link hostileValueText}. */
  bad?: fc.Arbitrary<string>;
  /** An optional field: absent most of the time. */
  optional?: boolean;
}

/**
 * JSON text of a body built field by field: each field good, hostile,
 * missing or duplicated; plus, at times, prototype keys and unknown fields.
 */
export function bodyText(fields: readonly FieldSpec[]): fc.Arbitrary<string> {
  const entry = (field: FieldSpec): fc.Arbitrary<Array<[string, string]>> =>
    fc.oneof(
      {
        weight: field.optional === true ? 4 : 12,
        arbitrary: field.good.map((value) => [[field.name, value]] as Array<[string, string]>),
      },
      {
        weight: field.optional === true ? 1 : 2,
        arbitrary: (field.bad === undefined
          ? hostileValueText
          : fc.oneof(field.bad, hostileValueText)
        ).map((value) => [[field.name, value]] as Array<[string, string]>),
      },
      {
        weight: field.optional === true ? 10 : 1,
        arbitrary: fc.constant([] as Array<[string, string]>),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(hostileValueText, field.good).map(
          ([first, last]) =>
            [
              [field.name, first],
              [field.name, last],
            ] as Array<[string, string]>,
        ),
      },
    );
  const extras = fc.oneof(
    { weight: 6, arbitrary: fc.constant([] as Array<[string, string]>) },
    {
      weight: 1,
      arbitrary: fc.array(fc.tuple(prototypeKey, hostileValueText), { minLength: 1, maxLength: 2 }),
    },
    {
      weight: 1,
      arbitrary: fc.array(fc.tuple(fc.string({ maxLength: 10 }), hostileValueText), {
        minLength: 1,
        maxLength: 3,
      }),
    },
  );
  return fc
    .tuple(fc.tuple(...fields.map(entry)), extras, fc.boolean())
    .map(([entries, extra, extrasFirst]) => {
      const body = entries.flat();
      return objectText(extrasFirst ? [...extra, ...body] : [...body, ...extra]);
    });
}

/** A request body: mostly built from fields, sometimes any JSON value or not JSON at all. */
export function requestBodyText(fields: readonly FieldSpec[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 16, arbitrary: bodyText(fields) },
    { weight: 2, arbitrary: hostileValueText },
    { weight: 1, arbitrary: notJsonText },
    { weight: 1, arbitrary: fc.constant("") },
  );
}

/** JSON texts of chat messages: valid-looking histories ending in a user turn, or broken ones. */
export function messagesText(options: { timestamps: boolean }): fc.Arbitrary<string> {
  const role = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom('"user"', '"assistant"', '"system"', '"developer"') },
    { weight: 1, arbitrary: fc.constantFrom('"USER"', '"tool"', '"function"', '""', "null", "1") },
  );
  const content = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .oneof(fc.lorem({ maxCount: 8 }), edgeString)
        .map((text) => JSON.stringify(text)),
    },
    {
      weight: 2,
      arbitrary: fc
        .array(fc.oneof(fc.lorem({ maxCount: 4 }), edgeString), { maxLength: 3 })
        .map((texts) => JSON.stringify(texts.map((text) => ({ type: "text", text })))),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '[{"type":"image_url","image_url":{"url":"x"}}]',
        '[{"type":"text"}]',
      ),
    },
    { weight: 1, arbitrary: hostileValueText },
  );
  const timestamp = options.timestamps
    ? fc.oneof(
        { weight: 4, arbitrary: fc.constant([] as Array<[string, string]>) },
        {
          weight: 1,
          arbitrary: fc
            .tuple(
              fc.constantFrom("timestamp", "createdAt", "created_at"),
              fc.oneof(
                edgeNumberText,
                edgeString.map((text) => JSON.stringify(text)),
                fc.constant('"2026-01-02T03:04:05Z"'),
              ),
            )
            .map((pair) => [pair]),
        },
      )
    : fc.constant([] as Array<[string, string]>);
  const message = fc
    .tuple(role, content, timestamp)
    .map(([roleText, contentText, extra]) =>
      objectText([["role", roleText], ["content", contentText], ...extra]),
    );
  const finalUser = fc.oneof(fc.lorem({ maxCount: 6 }), edgeString).map((text) =>
    objectText([
      ["role", '"user"'],
      ["content", JSON.stringify(text)],
    ]),
  );
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(fc.array(message, { maxLength: 4 }), finalUser)
        .map(([history, last]) => `[${[...history, last].join(",")}]`),
    },
    {
      weight: 2,
      arbitrary: fc.array(message, { maxLength: 4 }).map((items) => `[${items.join(",")}]`),
    },
    { weight: 1, arbitrary: fc.constant("[]") },
  );
}

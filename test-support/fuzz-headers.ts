import zlib from "node:zlib";
import fc from "fast-check";
import type { WireRequest } from "./raw-http.js";

// Hostile headers for the fuzz suites: content types and
// charsets, content encodings (real, unknown and lying), Content-Length
// that lies, repeated key headers, and harmless extras — applied to a
// well-formed request of a route family. Each mutation says what it alone
// leads to, in words each family maps to its own statuses.

/** What a mutation alone leads to; a route family maps each to the statuses it answers with. */
export type Outcome =
  | "success"
  | "unsupported"
  | "wrong-media-type"
  | "corrupt"
  | "too-large"
  | "aborted"
  | "bad-key"
  | "parser-refusal"
  | "any";

/** How the body of a route family is sent. */
export type BodyKind = "json" | "form";

type Category = "content-type" | "auth" | "extra" | "content-encoding" | "framing";
/** The order mutations are applied in: the encoding changes the body, the framing measures it. */
const CATEGORY_ORDER: Category[] = ["content-type", "auth", "extra", "content-encoding", "framing"];

/** One change to a well-formed request. */
export interface HeaderMutation {
  category: Category;
  label: string;
  outcome: Outcome;
  /**
   * Node's HTTP parser may refuse the request before any route sees it: a
   * plain-text `400 Bad Request` from the server's clientError handler, not
   * in the family's format.
   */
  parserMayRefuse?: boolean;
  apply(request: WireRequest): WireRequest;
}

/** What the mutations of a family need to know. */
export interface MutationOptions {
  kind: BodyKind;
  /** The family's body limit in bytes (a Content-Length over it is a 413 at once). */
  bodyLimit?: number;
  /** Keys for the API's key headers; without them key headers are noise the family ignores. */
  keys?: { good: string; other: string };
}

const MEDIA_TYPE = { json: "application/json", form: "application/x-www-form-urlencoded" };

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
  maxLength: 40,
});

function setHeader(request: WireRequest, name: string, value: string): WireRequest {
  const others = request.headers.filter(([header]) => header.toLowerCase() !== name.toLowerCase());
  return { ...request, headers: [...others, [name, value]] };
}

function addHeader(request: WireRequest, name: string, value: string): WireRequest {
  return { ...request, headers: [...request.headers, [name, value]] };
}

function withoutKeys(request: WireRequest): WireRequest {
  const keyHeaders = new Set(["x-api-key", "authorization"]);
  return {
    ...request,
    headers: request.headers.filter(([name]) => !keyHeaders.has(name.toLowerCase())),
  };
}

function mutation(
  category: Category,
  label: string,
  outcome: Outcome,
  apply: (request: WireRequest) => WireRequest,
  parserMayRefuse = false,
): HeaderMutation {
  const change: HeaderMutation = { category, label, outcome, apply, parserMayRefuse };
  // fast-check prints a counterexample with this, instead of the functions.
  Object.defineProperty(change, fc.toStringMethod, { value: () => label });
  return change;
}

function contentTypes(kind: BodyKind): fc.Arbitrary<HeaderMutation> {
  const type = (value: string, outcome: Outcome) =>
    mutation("content-type", `Content-Type: ${value}`, outcome, (request) =>
      setHeader(request, "Content-Type", value),
    );
  const base = MEDIA_TYPE[kind];
  const byKind =
    kind === "json"
      ? [
          type("application/json; charset=utf-8", "success"),
          type("Application/JSON", "success"),
          type('application/json; charset="UTF-8"', "success"),
          type("application/json;;", "success"),
          type("application/json; charset=iso-8859-1", "unsupported"),
          type("application/json; charset=utf-16", "corrupt"),
          type("application/x-www-form-urlencoded", "wrong-media-type"),
          type("application/json, text/plain", "wrong-media-type"),
        ]
      : [
          type(`${base}; charset=utf-8`, "success"),
          type("Application/X-WWW-Form-Urlencoded", "success"),
          type(`${base}; charset=iso-8859-1`, "success"),
          type(`${base};;`, "success"),
          type(`${base}; charset=utf-16`, "unsupported"),
          type("application/json", "wrong-media-type"),
          type("multipart/form-data; boundary=x", "wrong-media-type"),
        ];
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...byKind) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        type(`${base}; charset=latin1`, "unsupported"),
        type(`${base}; charset=utf-99`, "unsupported"),
        type("text/plain", "wrong-media-type"),
        type("", "wrong-media-type"),
      ),
    },
    {
      weight: 1,
      arbitrary: printable.map((value) => type(value.trim(), "any")),
    },
    {
      weight: 1,
      arbitrary: printable.map((value) => type(`${base}; charset=${value.trim()}`, "any")),
    },
  );
}

/** Compresses the body as `encoding` says; `lie` sends it uncompressed or cut short instead. */
function encodings(): fc.Arbitrary<HeaderMutation> {
  const compressors = {
    gzip: zlib.gzipSync,
    deflate: zlib.deflateSync,
    br: zlib.brotliCompressSync,
  } as const;
  const honest = (header: string, encoding: keyof typeof compressors) =>
    mutation("content-encoding", `Content-Encoding: ${header}`, "success", (request) => ({
      ...setHeader(request, "Content-Encoding", header),
      body: compressors[encoding](request.body),
    }));
  const lying = (encoding: keyof typeof compressors, how: "raw" | "cut") =>
    mutation(
      "content-encoding",
      `Content-Encoding: ${encoding} (${how === "raw" ? "not compressed" : "cut short"})`,
      "corrupt",
      (request) => ({
        ...setHeader(request, "Content-Encoding", encoding),
        body: how === "raw" ? request.body : compressors[encoding](request.body).subarray(0, 8),
      }),
    );
  const unknown = (header: string) =>
    mutation("content-encoding", `Content-Encoding: ${header}`, "unsupported", (request) =>
      setHeader(request, "Content-Encoding", header),
    );
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        honest("gzip", "gzip"),
        honest("deflate", "deflate"),
        honest("br", "br"),
        honest("GZIP", "gzip"),
        mutation("content-encoding", "Content-Encoding: identity", "success", (request) =>
          setHeader(request, "Content-Encoding", "identity"),
        ),
      ),
    },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        lying("gzip", "raw"),
        lying("deflate", "raw"),
        lying("br", "raw"),
        lying("gzip", "cut"),
        lying("br", "cut"),
      ),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(unknown("xyz"), unknown("gzip, gzip"), unknown("compress")),
    },
    {
      weight: 1,
      arbitrary: printable.map((value) =>
        mutation("content-encoding", `Content-Encoding: ${value}`, "any", (request) =>
          setHeader(request, "Content-Encoding", value.trim()),
        ),
      ),
    },
  );
}

function framings(options: MutationOptions): fc.Arbitrary<HeaderMutation> {
  const shapes: Array<fc.Arbitrary<HeaderMutation>> = [
    fc.constant(
      mutation("framing", "Transfer-Encoding: chunked", "success", (request) => ({
        ...request,
        framing: { kind: "chunked" },
      })),
    ),
    fc.integer({ min: 1, max: 64 }).map((extra) =>
      mutation(
        "framing",
        `Content-Length ${extra} bytes more than sent, then the client gives up`,
        "aborted",
        (request) => ({
          ...request,
          framing: { kind: "declared", length: request.body.length + extra },
        }),
        true,
      ),
    ),
    fc.integer({ min: 1, max: 8 }).map((short) =>
      mutation(
        "framing",
        `Content-Length ${short} bytes less than sent`,
        // A JSON body cut short is malformed; a form cut short is still a form.
        options.kind === "json" ? "corrupt" : "any",
        (request) => ({
          ...request,
          framing: { kind: "declared", length: Math.max(0, request.body.length - short) },
        }),
        true,
      ),
    ),
    fc.constant(
      mutation(
        "framing",
        "two Content-Length headers that differ",
        "parser-refusal",
        (request) => addHeader(request, "Content-Length", String(request.body.length + 1)),
        true,
      ),
    ),
  ];
  if (options.bodyLimit !== undefined) {
    const limit = options.bodyLimit;
    shapes.push(
      fc.constant(
        mutation(
          "framing",
          "a Content-Length over the limit, the body never sent",
          "too-large",
          (request) => ({
            ...request,
            framing: { kind: "declared", length: limit + 1, hold: true },
          }),
        ),
      ),
    );
  }
  return fc.oneof(...shapes);
}

function keyHeaders(
  keys: { good: string; other: string } | undefined,
): fc.Arbitrary<HeaderMutation> {
  const good = keys?.good ?? "prk_000000000000000000000000000000000000000000";
  const other = keys?.other ?? "prk_111111111111111111111111111111111111111111";
  // Without keys, the family does not read key headers: whatever they hold, it succeeds.
  const when = (outcome: Outcome): Outcome => (keys === undefined ? "success" : outcome);
  const keysOf = (label: string, outcome: Outcome, headers: Array<[string, string]>) =>
    mutation("auth", label, when(outcome), (request) => ({
      ...withoutKeys(request),
      headers: [...withoutKeys(request).headers, ...headers],
    }));
  return fc.constantFrom(
    keysOf("Authorization: Bearer (good key)", "success", [["Authorization", `Bearer ${good}`]]),
    keysOf("authorization: bearer (lower case)", "success", [["authorization", `bearer ${good}`]]),
    keysOf("x-api-key and Authorization, same key", "success", [
      ["x-api-key", good],
      ["Authorization", `Bearer ${good}`],
    ]),
    keysOf("two x-api-key, same key", "success", [
      ["x-api-key", good],
      ["x-api-key", good],
    ]),
    keysOf("no key header", "bad-key", []),
    keysOf("a key that is not one", "bad-key", [["x-api-key", "prk_notakeyatall"]]),
    keysOf("Authorization: Basic", "bad-key", [["Authorization", "Basic dXNlcjpwYXNz"]]),
    keysOf("Authorization: Bearer without a key", "bad-key", [["Authorization", "Bearer"]]),
    keysOf("two Authorization, different keys", "bad-key", [
      ["Authorization", `Bearer ${good}`],
      ["Authorization", `Bearer ${other}`],
    ]),
    keysOf("x-api-key and Authorization, different keys", "bad-key", [
      ["x-api-key", other],
      ["Authorization", `Bearer ${good}`],
    ]),
    keysOf("two x-api-key, different keys", "bad-key", [
      ["x-api-key", good],
      ["x-api-key", other],
    ]),
  );
}

function extras(): fc.Arbitrary<HeaderMutation> {
  const extra = (name: string, value: string) =>
    mutation("extra", `${name}: ${value}`, "success", (request) => addHeader(request, name, value));
  return fc.oneof(
    fc.constantFrom(
      extra("Accept", "text/html"),
      extra("Accept", "*/*"),
      extra("Accept-Encoding", "gzip, br"),
      extra("Content-Language", "de"),
      extra("X-Forwarded-For", "203.0.113.9"),
      extra("Expect", "100-continue"),
      extra("Cookie", "junk=%zz%; other"),
      extra("Content-Type", "text/plain"),
    ),
    printable.map((value) => extra("User-Agent", value.trim() || "fuzz")),
    printable.map((value) => extra("X-Request-Id", value.trim() || "fuzz")),
  );
}

/**
 * Up to three mutations of different categories (none a fifth of the time),
 * applied in a fixed order by {@link applyMutations}.
 */
export function headerMutations(options: MutationOptions): fc.Arbitrary<HeaderMutation[]> {
  const byCategory: Record<Category, fc.Arbitrary<HeaderMutation>> = {
    "content-type": contentTypes(options.kind),
    auth: keyHeaders(options.keys),
    extra: extras(),
    "content-encoding": encodings(),
    framing: framings(options),
  };
  return fc
    .oneof(
      { weight: 2, arbitrary: fc.constant<Category[]>([]) },
      {
        weight: 5,
        arbitrary: fc.constantFrom(...CATEGORY_ORDER).map((category) => [category]),
      },
      {
        weight: 3,
        arbitrary: fc.subarray(CATEGORY_ORDER, { minLength: 2, maxLength: 3 }),
      },
    )
    .chain((categories) =>
      categories.length === 0
        ? fc.constant([])
        : fc.tuple(...categories.map((category) => byCategory[category])),
    );
}

/** The request after the mutations, each applied in its category's order. */
export function applyMutations(base: WireRequest, mutations: HeaderMutation[]): WireRequest {
  const ordered = [...mutations].sort(
    (left, right) => CATEGORY_ORDER.indexOf(left.category) - CATEGORY_ORDER.indexOf(right.category),
  );
  return ordered.reduce((request, change) => change.apply(request), base);
}

/**
 * What a case is expected to end in: `success` with no mutation, the
 * mutation's outcome when there is one, else `any` (several interact).
 */
export function expectedOutcome(mutations: HeaderMutation[]): Outcome {
  if (mutations.length === 0) return "success";
  if (mutations.length === 1) return (mutations[0] as HeaderMutation).outcome;
  return "any";
}

/** Whether Node's parser may have answered the case itself (plain-text 400). */
export function parserMayRefuse(mutations: HeaderMutation[]): boolean {
  return mutations.some((change) => change.parserMayRefuse === true);
}

/** A description of a case for failure messages. */
export function describeMutations(mutations: HeaderMutation[]): string {
  return mutations.length === 0
    ? "(well-formed)"
    : mutations.map((change) => change.label).join(" + ");
}

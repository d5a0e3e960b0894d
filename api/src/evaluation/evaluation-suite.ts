import { createHash } from "node:crypto";
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { generateRequestSchema, type Message, personifyRequestSchema } from "@persona-reply/shared";
import { isScalar, parseDocument, visit } from "yaml";
import { z } from "zod";
import { modelRouteSchema, type RouteTarget } from "../personas/model-route.js";
import {
  CONVERSATION_LIMITS,
  type ConversationSpec,
  conversationSpecSchema,
} from "./conversation-case.js";
import { PERSONAGYM_DIMENSIONS } from "./judge-prompt.js";
import { SuitePatternError, suitePattern } from "./suite-pattern.js";

/**
 * How large a suite may be. The file is refused before it is parsed when it
 * is larger than `fileBytes` (a YAML parser holds a few hundred times the
 * text's size while it works); counts and lengths are checked as it is
 * validated, each error naming the field.
 */
export const SUITE_LIMITS = {
  /** Bytes of the suite file: 1 MiB, over 200 times the demo persona's suite. */
  fileBytes: 1024 * 1024,
  /** Cases of a suite. */
  cases: 500,
  /** Checks of one case. */
  caseChecks: 50,
  /** Checks of `everyCase`. */
  everyCaseChecks: 20,
  /** Characters of a pattern or of a match's text. */
  patternLength: 500,
  /** Patterns of a list (`refusalMarkers`, `obeyed`). */
  patterns: 50,
  /** Turns of a conversation case (conversation-case.ts). */
  conversationTurns: CONVERSATION_LIMITS.turns,
} as const;

/** A persona ID for validating a case as the endpoint would: the real one is the persona evaluated. */
const PLACEHOLDER_PERSONA_ID = "00000000-0000-4000-8000-000000000000";

/** A text or regular-expression matcher; exactly one of `text` (case-insensitive) or `pattern`. */
const matcherShape = {
  /** Plain text, matched case-insensitively anywhere in the reply. */
  text: z.string().min(1).max(SUITE_LIMITS.patternLength).optional(),
  /**
   * A regular expression in JavaScript syntax (source only; flags in
   * `flags`, default `iu`), run in linear time (suite-pattern.ts).
   */
  pattern: z.string().min(1).max(SUITE_LIMITS.patternLength).optional(),
  flags: z
    .string()
    .max(5)
    .regex(/^[imsuv]*$/u, "flags are some of i, m, s, u, v")
    .optional(),
};

/** The pattern's problem (see {@link suitePattern}), or undefined when it can run. */
function patternProblem(pattern: string, flags: string): string | undefined {
  try {
    suitePattern(pattern, flags);
    return undefined;
  } catch (error) {
    if (error instanceof SuitePatternError) return error.message;
    throw error;
  }
}

function requireOneMatcher(
  check: { text?: string | undefined; pattern?: string | undefined; flags?: string | undefined },
  context: z.RefinementCtx,
): void {
  if ((check.text === undefined) === (check.pattern === undefined)) {
    context.addIssue({ code: "custom", message: "give exactly one of text or pattern" });
    return;
  }
  if (check.pattern !== undefined) {
    const problem = patternProblem(check.pattern, check.flags ?? "iu");
    if (problem !== undefined)
      context.addIssue({ code: "custom", path: ["pattern"], message: problem });
  }
}

const patternListSchema = z
  .array(z.string().min(1).max(SUITE_LIMITS.patternLength))
  .max(SUITE_LIMITS.patterns)
  .superRefine((patterns, context) => {
    for (const [index, pattern] of patterns.entries()) {
      const problem = patternProblem(pattern, "iu");
      if (problem !== undefined)
        context.addIssue({ code: "custom", path: [index], message: problem });
    }
  });

/**
 * One check of a case. Deterministic ones (`match`, `no-match`, `length`,
 * `refusal`, `no-artefacts`, `facts-kept`, `instructions-ignored`) are
 * decided by code; `judge` asks the judge model to score the reply 1–5 on
 * rubric dimensions and passes when every one reaches `minScore`.
 */
export const evaluationCheckSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("match"), ...matcherShape }).superRefine(requireOneMatcher),
  z.strictObject({ type: z.literal("no-match"), ...matcherShape }).superRefine(requireOneMatcher),
  z
    .strictObject({
      type: z.literal("length"),
      unit: z.enum(["words", "sentences"]),
      min: z.number().int().nonnegative().optional(),
      max: z.number().int().positive().optional(),
    })
    .superRefine((check, context) => {
      if (check.min === undefined && check.max === undefined) {
        context.addIssue({ code: "custom", message: "give min, max or both" });
      } else if (check.min !== undefined && check.max !== undefined && check.min > check.max) {
        context.addIssue({ code: "custom", path: ["min"], message: "min is above max" });
      }
    }),
  z.strictObject({
    type: z.literal("refusal"),
    /** What is refused (an avoid topic or a boundary), for the scorecard only. */
    topic: z.string().max(200).optional(),
  }),
  z.strictObject({ type: z.literal("no-artefacts") }),
  z.strictObject({
    type: z.literal("facts-kept"),
    /** Facts that must appear in the rewrite; by default the numbers and names of the source. */
    facts: z.array(z.string().min(1).max(200)).max(100).optional(),
  }),
  z.strictObject({
    type: z.literal("instructions-ignored"),
    /** Patterns that show the embedded instruction was obeyed (e.g. `^\W*pineapple\W*$`). */
    obeyed: patternListSchema.default([]),
    /** Share (0–1) of the source's content words the rewrite keeps; below it the text was not rewritten. */
    minOverlap: z.number().min(0).max(1).default(0.4),
  }),
  z.strictObject({
    type: z.literal("judge"),
    /** Rubric dimensions to score; all of the suite's rubric when absent. */
    dimensions: z.array(z.string().min(1).max(64)).min(1).max(20).optional(),
    /** Lowest score (1–5) every dimension must reach for the check to pass. */
    minScore: z.number().min(1).max(5).default(3),
    /** What a good reply does here (PersonaGym's "expected action"), shown to the judge. */
    expect: z.string().max(1000).optional(),
  }),
]);

/** One check of a case (see {@link evaluationCheckSchema}). */
export type EvaluationCheck = z.output<typeof evaluationCheckSchema>;

/** The kinds of check. */
export type CheckType = EvaluationCheck["type"];

const generateCaseSchema = z.strictObject({
  /** The history sent as /generate's `messages` (docs/API.md §4.1; validated as the endpoint does). */
  messages: z.array(z.unknown()).min(1),
});

const personifyCaseSchema = z.strictObject({
  /** The text sent as /personify's `raw` (docs/API.md §4.2). */
  source: z.string().min(1),
});

const caseIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][\w.-]{0,63}$/u, "a case ID is 1–64 letters, digits, '.', '_' or '-'");

const rawCaseSchema = z
  .strictObject({
    id: caseIdSchema,
    description: z.string().max(500).optional(),
    generate: generateCaseSchema.optional(),
    personify: personifyCaseSchema.optional(),
    conversation: conversationSpecSchema.optional(),
    checks: z.array(evaluationCheckSchema).max(SUITE_LIMITS.caseChecks).default([]),
  })
  .transform((raw, context) => {
    const given = [raw.generate, raw.personify, raw.conversation].filter(
      (task) => task !== undefined,
    );
    if (given.length !== 1) {
      context.addIssue({
        code: "custom",
        message: "give exactly one of generate, personify or conversation",
      });
      return z.NEVER;
    }
    const base = { id: raw.id, description: raw.description ?? "", checks: raw.checks };
    if (raw.conversation !== undefined) {
      return { ...base, task: "conversation" as const, conversation: raw.conversation };
    }
    if (raw.generate !== undefined) {
      const request = generateRequestSchema.safeParse({
        personaId: PLACEHOLDER_PERSONA_ID,
        messages: raw.generate.messages,
      });
      if (!request.success) {
        for (const issue of request.error.issues) {
          context.addIssue({
            code: "custom",
            path: ["generate", ...issue.path],
            message: issue.message,
          });
        }
        return z.NEVER;
      }
      return { ...base, task: "generate" as const, messages: request.data.messages };
    }
    const request = personifyRequestSchema.safeParse({
      personaId: PLACEHOLDER_PERSONA_ID,
      raw: raw.personify?.source,
    });
    if (!request.success) {
      for (const issue of request.error.issues) {
        context.addIssue({ code: "custom", path: ["personify", "source"], message: issue.message });
      }
      return z.NEVER;
    }
    return { ...base, task: "personify" as const, source: request.data.raw };
  });

/**
 * A case: a /generate history, a /personify source, or a conversation with a
 * simulated user (its checks then apply to every turn of the persona), with
 * its checks.
 */
export type EvaluationCase = { id: string; description: string; checks: EvaluationCheck[] } & (
  | { task: "generate"; messages: Message[] }
  | { task: "personify"; source: string }
  | { task: "conversation"; conversation: ConversationSpec }
);

/** A case answered by one engine call: a /generate history or a /personify source. */
export type SingleTurnCase = Exclude<EvaluationCase, { task: "conversation" }>;

const dimensionSchema = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/u, "a dimension name is snake_case"),
  description: z.string().min(1).max(1000),
});

/** A rubric dimension: a snake_case name and what a 5 looks like. */
export type RubricDimension = z.output<typeof dimensionSchema>;

const judgeSchema = z
  .strictObject({
    /** The judge model, `upstream:model`; `--judge` overrides it. */
    route: z.string().max(200).optional(),
    /**
     * The version of the judge prompt: a version of the built-in template
     * (`personagym-1`), or the suite's own name for its `template`.
     */
    promptVersion: z.string().min(1).max(64).optional(),
    /** The suite's own judge prompt (placeholders in judge-prompt.ts); needs its own `promptVersion`. */
    template: z.string().min(1).max(20_000).optional(),
    /** Rubric dimensions; PersonaGym's five when absent. */
    rubric: z.array(dimensionSchema).min(1).max(20).optional(),
  })
  .superRefine((judge, context) => {
    refineRoute(judge.route, context);
    if (judge.template !== undefined && judge.promptVersion === undefined) {
      context.addIssue({
        code: "custom",
        path: ["promptVersion"],
        message: "a suite with its own template names its version (promptVersion)",
      });
    }
  });

/** An `upstream:model` route target of the suite (the judge's, the simulated user's). */
function refineRoute(route: string | undefined, context: z.RefinementCtx): void {
  if (route === undefined) return;
  const parsed = modelRouteSchema.safeParse([route]);
  if (!parsed.success) {
    context.addIssue({
      code: "custom",
      path: ["route"],
      message: parsed.error.issues[0]?.message ?? "not upstream:model",
    });
  }
}

const simulatedUserSchema = z
  .strictObject({
    /** The model that plays the user of conversation cases, `upstream:model`; `--simulated-user` overrides it. */
    route: z.string().max(200).optional(),
  })
  .superRefine((simulatedUser, context) => refineRoute(simulatedUser.route, context));

/**
 * An evaluation suite as the operator writes it (YAML or JSON), beside the
 * persona file as `<persona>.eval.yaml`. See
 * `api/personas/example-persona.eval.yaml` and docs/OPERATIONS.md
 * "The suite format".
 */
export const evaluationSuiteSchema = z
  .strictObject({
    /** A short name shown on scorecards and stored with each run. */
    name: z.string().min(1).max(100),
    description: z.string().max(2000).optional(),
    /** Pass rate (0–1) a run must reach; `--threshold` overrides it. Default 1. */
    threshold: z.number().min(0).max(1).default(1),
    /** Patterns that mark a refusal, in addition to the built-in ones. */
    refusalMarkers: patternListSchema.default([]),
    /** Checks added to every case (e.g. `no-artefacts`). */
    everyCase: z.array(evaluationCheckSchema).max(SUITE_LIMITS.everyCaseChecks).default([]),
    judge: judgeSchema.prefault({}),
    simulatedUser: simulatedUserSchema.prefault({}),
    cases: z.array(rawCaseSchema).min(1).max(SUITE_LIMITS.cases),
  })
  .superRefine((suite, context) => {
    const seen = new Set<string>();
    for (const [index, item] of suite.cases.entries()) {
      if (seen.has(item.id)) {
        context.addIssue({
          code: "custom",
          path: ["cases", index, "id"],
          message: `case ${item.id} is listed twice`,
        });
      }
      seen.add(item.id);
    }
    const rubric = new Set(
      (suite.judge.rubric ?? PERSONAGYM_DIMENSIONS).map((dimension) => dimension.name),
    );
    const notInRubric = (name: string) =>
      `${name} is not a dimension of the rubric (${[...rubric].join(", ")})`;
    for (const [index, item] of suite.cases.entries()) {
      for (const [checkIndex, check] of [...suite.everyCase, ...item.checks].entries()) {
        if (check.type !== "judge") continue;
        for (const name of check.dimensions ?? []) {
          if (!rubric.has(name)) {
            context.addIssue({
              code: "custom",
              path: ["cases", index, "checks", checkIndex, "dimensions"],
              message: notInRubric(name),
            });
          }
        }
        if (item.task === "conversation" && check.expect !== undefined) {
          // One judge call a turn scores every judged dimension, with the conversation's expect.
          context.addIssue({
            code: "custom",
            path: ["cases", index, "checks", checkIndex, "expect"],
            message:
              "a judged check of a conversation case takes no expect of its own: give conversation.expect",
          });
        }
      }
      if (item.task !== "conversation") continue;
      for (const name of item.conversation.dimensions ?? []) {
        if (!rubric.has(name)) {
          context.addIssue({
            code: "custom",
            path: ["cases", index, "conversation", "dimensions"],
            message: notInRubric(name),
          });
        }
      }
    }
  });

/** A parsed suite, with where it came from and its content hash. */
export interface EvaluationSuite {
  name: string;
  description: string;
  threshold: number;
  refusalMarkers: string[];
  judge: {
    route: RouteTarget | undefined;
    promptVersion: string | undefined;
    template: string | undefined;
    rubric: RubricDimension[];
  };
  /** The simulated user of conversation cases (`--simulated-user` overrides its route). */
  simulatedUser: { route: RouteTarget | undefined };
  /** Cases with the suite's `everyCase` checks first. */
  cases: EvaluationCase[];
  /** SHA-256 (hex) of the file's bytes: which suite a stored run used. */
  hash: string;
}

/** A suite that cannot be read or is not valid; the message names the file and the field. */
export class EvaluationSuiteError extends Error {
  override readonly name = "EvaluationSuiteError";
}

/**
 * The first key given twice in one mapping, with where it is. The parser's
 * own check compares every key with every other (minutes for a mapping of
 * 100,000 keys); a set does it in one pass.
 */
function repeatedKey(document: ReturnType<typeof parseDocument>): string | undefined {
  let repeated: string | undefined;
  visit(document, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        if (seen.has(pair.key.value)) {
          repeated = `${String(pair.key.value)} is given twice in one mapping`;
          return visit.BREAK;
        }
        seen.add(pair.key.value);
      }
      return undefined;
    },
  });
  return repeated;
}

/** The value of the suite's YAML (or JSON) text. */
function readYaml(text: string, where: string): unknown {
  const fail = (message: string) =>
    new EvaluationSuiteError(`${where}: not valid YAML or JSON: ${message.split("\n")[0]}`);
  try {
    const document = parseDocument(text, { uniqueKeys: false });
    const [error] = document.errors;
    if (error !== undefined) throw fail(error.message);
    const repeated = repeatedKey(document);
    if (repeated !== undefined) throw fail(repeated);
    // The parser's default alias limit keeps a "billion laughs" file small.
    return document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    if (error instanceof EvaluationSuiteError) throw error;
    throw fail(String((error as Error).message));
  }
}

/** A zod issue's path, led by the case's ID when it is inside a case. */
function describePath(path: readonly PropertyKey[], data: unknown): string {
  const field = path.map(String).join(".") || "(root)";
  if (path[0] !== "cases" || typeof path[1] !== "number") return field;
  const cases = (data as { cases?: unknown } | null)?.cases;
  const id = Array.isArray(cases) ? (cases[path[1]] as { id?: unknown } | null)?.id : undefined;
  return typeof id === "string" && id.length <= 64 ? `case ${id}: ${field}` : field;
}

/**
 * Parses a suite from its text (YAML, of which JSON is a subset).
 *
 * @param where - the file name, for messages
 * @throws {EvaluationSuiteError} naming the first invalid field (and its
 *   case's ID), e.g. a pattern the linear-time engine cannot run
 * @example
 * const suite = parseEvaluationSuite(fs.readFileSync("juniper.eval.yaml", "utf8"), "juniper.eval.yaml");
 */
export function parseEvaluationSuite(text: string, where: string): EvaluationSuite {
  const data = readYaml(text, where);
  const result = evaluationSuiteSchema.safeParse(data);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new EvaluationSuiteError(
      `${where}: ${describePath(issue?.path ?? [], data)}: ${issue?.message ?? "invalid suite"}`,
    );
  }
  const suite = result.data;
  const targetOf = (route: string | undefined) =>
    route === undefined ? undefined : modelRouteSchema.parse([route])[0];
  return {
    name: suite.name,
    description: suite.description ?? "",
    threshold: suite.threshold,
    refusalMarkers: suite.refusalMarkers,
    judge: {
      route: targetOf(suite.judge.route),
      promptVersion: suite.judge.promptVersion,
      template: suite.judge.template,
      rubric: suite.judge.rubric ?? [...PERSONAGYM_DIMENSIONS],
    },
    simulatedUser: { route: targetOf(suite.simulatedUser.route) },
    cases: suite.cases.map((item) => ({ ...item, checks: [...suite.everyCase, ...item.checks] })),
    hash: createHash("sha256").update(text).digest("hex"),
  };
}

/** The path of the demo persona's suite, shipped beside `api/personas/example-persona.json`. */
export function exampleSuiteFile(): string {
  return fileURLToPath(new URL("../../personas/example-persona.eval.yaml", import.meta.url));
}

/**
 * The text of a suite file, read to at most {@link SUITE_LIMITS.fileBytes}
 * (one byte more tells a larger file): a file too large is refused without
 * being held in memory, whatever `stat` says of it (a pipe or a device has
 * no size).
 *
 * @throws {EvaluationSuiteError} when it cannot be read or is too large
 */
function readSuiteText(file: string): string {
  const limit = SUITE_LIMITS.fileBytes;
  const tooLarge = (size: string) =>
    new EvaluationSuiteError(
      `${file}: ${size}, larger than a suite may be (${limit / 1024 / 1024} MiB, ${limit.toLocaleString("en")} bytes): split it into several suites`,
    );
  let descriptor: number | undefined;
  try {
    descriptor = fs.openSync(file, "r");
    const { size } = fs.fstatSync(descriptor);
    if (size > limit) throw tooLarge(`${size.toLocaleString("en")} bytes`);
    const buffer = Buffer.alloc(limit + 1);
    let length = 0;
    for (;;) {
      const read = fs.readSync(descriptor, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
      if (length > limit) throw tooLarge(`more than ${limit.toLocaleString("en")} bytes`);
    }
    return buffer.toString("utf8", 0, length);
  } catch (error) {
    if (error instanceof EvaluationSuiteError) throw error;
    throw new EvaluationSuiteError(
      `${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? "error"})`,
    );
  } finally {
    if (descriptor !== undefined) fs.closeSync(descriptor);
  }
}

/**
 * Reads and parses a suite file.
 *
 * @throws {EvaluationSuiteError} when it cannot be read, is larger than
 *   {@link SUITE_LIMITS.fileBytes}, or is invalid
 */
export function readEvaluationSuite(file: string): EvaluationSuite {
  return parseEvaluationSuite(readSuiteText(file), file);
}

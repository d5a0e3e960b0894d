import { z } from "zod";

/**
 * Bounds of a conversation case: turns of one conversation, and the length
 * of the texts that steer the simulated user.
 */
export const CONVERSATION_LIMITS = {
  /** Turns (a user message and the persona's reply) of one conversation. */
  turns: 20,
  /** Turns when the case gives neither `turns` nor a `script`. */
  defaultTurns: 6,
  /** Characters of `goal`, `user`, `expect`, `opening` and each `script` message. */
  textLength: 2000,
  /**
   * Characters of a simulated user's message: a longer one is cut here
   * before the persona gets it (the upstream's `maxOutputTokens` bounds it first).
   */
  userMessageLength: 4000,
} as const;

const turnsMessage = `turns is a whole number from 1 to ${CONVERSATION_LIMITS.turns}`;

const boundedText = (what: string) =>
  z
    .string({ error: `${what} is text` })
    .trim()
    .min(1, { error: `${what} is empty` })
    .max(CONVERSATION_LIMITS.textLength, {
      error: `${what} is longer than ${CONVERSATION_LIMITS.textLength} characters`,
    });

/**
 * The `conversation` of a case as the operator writes it: a simulated user
 * with its own instructions and goal talks with the persona for `turns`
 * turns. Validated here; the checks that need the suite (its rubric) are in
 * evaluation-suite.ts.
 */
export const conversationSpecSchema = z
  .strictObject({
    /** Turns: a user message and the persona's reply each (1–20; default 6, or the script's length). */
    turns: z
      .number({ error: turnsMessage })
      .int({ error: turnsMessage })
      .min(1, { error: turnsMessage })
      .max(CONVERSATION_LIMITS.turns, { error: turnsMessage })
      .optional(),
    /** What the simulated user is after over the conversation (required). */
    goal: boundedText("goal").optional(),
    /** Who the simulated user is: its own instructions (a character, a mood, a way of writing). */
    user: boundedText("user").optional(),
    /** The first user message, fixed, so every run starts the same; the simulated user writes it otherwise. */
    opening: boundedText("opening").optional(),
    /**
     * The user's messages in order, for runs without a simulated user (the
     * offline fallback): as many as `turns`.
     */
    script: z
      .array(boundedText("a script message"))
      .min(1, { error: "script holds at least one message" })
      .max(CONVERSATION_LIMITS.turns, {
        error: `script holds at most ${CONVERSATION_LIMITS.turns} messages (one a turn)`,
      })
      .optional(),
    /** What a good persona does over this conversation, shown to the judge at every turn. */
    expect: z.string().max(1000).optional(),
    /** Rubric dimensions the in-character score averages; all of the suite's rubric when absent. */
    dimensions: z.array(z.string().min(1).max(64)).min(1).max(20).optional(),
  })
  .transform((raw, context) => {
    if (raw.goal === undefined) {
      context.addIssue({
        code: "custom",
        path: ["goal"],
        message: "a conversation needs a goal: what the simulated user is after",
      });
      return z.NEVER;
    }
    const turns = raw.turns ?? raw.script?.length ?? CONVERSATION_LIMITS.defaultTurns;
    if (raw.script !== undefined && raw.script.length !== turns) {
      context.addIssue({
        code: "custom",
        path: ["script"],
        message: `script holds ${raw.script.length} messages for ${turns} turns: give one a turn`,
      });
      return z.NEVER;
    }
    return {
      turns,
      goal: raw.goal,
      user: raw.user,
      opening: raw.opening,
      script: raw.script,
      expect: raw.expect,
      dimensions: raw.dimensions,
    };
  });

/** A conversation case's conversation, validated (see {@link conversationSpecSchema}). */
export interface ConversationSpec {
  /** Turns to run, 1–{@link CONVERSATION_LIMITS.turns}. */
  turns: number;
  goal: string;
  user: string | undefined;
  opening: string | undefined;
  /** Exactly `turns` messages when given. */
  script: string[] | undefined;
  expect: string | undefined;
  dimensions: string[] | undefined;
}

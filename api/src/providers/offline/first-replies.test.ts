import { readFileSync } from "node:fs";
import nlp from "compromise";
import { describe, expect, it } from "vitest";
import { sentencesOf } from "../../engine/chunk.js";
import { mapHistory } from "../../engine/history.js";
import { runDeterministicCheck } from "../../evaluation/deterministic-checks.js";
import { readEvaluationSuite } from "../../evaluation/evaluation-suite.js";
import type { Persona } from "../../personas/persona.js";
import { type PersonaTraits, personaFileSchema } from "../../personas/persona-traits.js";
import { readTurn } from "./compose-reply.js";
import { createOfflineProvider } from "./offline-provider.js";

/*
 * The first reply to messages a newcomer writes to the demo persona
 * (Juniper, the gardening club's guide, who avoids politics and
 * medication), read for grammar by checks that can be stated:
 *
 * 1. every sentence starts with a capital and ends with ".", "!" or "?",
 *    with no empty slot, stray space before punctuation or doubled mark;
 * 2. a topical message (question, request, statement) has a topic, and the
 *    reply names it;
 * 3. the topic is a noun phrase as compromise reads it after "about": it
 *    starts with a determiner, possessive, adjective, number or noun and
 *    holds a noun before any preposition, with no verb except after "to";
 *    or it is a gerund phrase (its first word a verb in "-ing");
 * 4. no "about <verb>": no word of the topic is one the message used as a
 *    verb in a form other than "-ing" ("Should I vote?" never gives "vote");
 * 5. a message about an avoided topic is declined: the demo suite's own
 *    refusal check passes, the reply names the topic, and it says nothing
 *    of how the persona is set up; any other message is not declined.
 */

const DEMO = "api/personas/example-persona.json";
const SUITE = "api/personas/example-persona.eval.yaml";

/** The message, and the avoid topic it is about (`undefined`: none). */
const FIRST_MESSAGES: ReadonlyArray<readonly [string, string | undefined]> = [
  ["Which herbs grow well on a balcony?", undefined],
  ["When should I plant tomato seedlings outdoors?", undefined],
  ["How do I keep my tomatoes happy?", undefined],
  ["Is it too late to sow carrots?", undefined],
  ["What's the best way to water succulents?", undefined],
  ["Why are my tomato leaves turning yellow?", undefined],
  ["Mostly beans and courgettes. Any tips?", undefined],
  ["Can you help me plan a herb garden?", undefined],
  ["Please recommend a good compost for pots.", undefined],
  ["Tell me how to get rid of slugs.", undefined],
  ["Explain crop rotation.", undefined],
  ["Give me some tips on pruning roses.", undefined],
  ["I just moved into a flat with a small garden.", undefined],
  ["My roses have black spots on the leaves.", undefined],
  ["I painted my shed yesterday.", undefined],
  ["Hi there!", undefined],
  ["Good morning, Juniper!", undefined],
  ["Thanks so much!", undefined],
  ["Should I vote?", "politics"],
  ["Who's the best candidate in the local elections?", "politics"],
  ["What do you think about the election?", "politics"],
  ["Which painkillers can I take after a long day of digging?", "medication"],
];

const TOPICAL = new Set(["question", "help", "statement"]);
const CANDIDATES = 3;
/** Words that would give away how the persona is configured. */
const INTERNALS =
  /\b(?:avoid|topics?|guidelines?|boundar(?:y|ies)|instructions?|system prompt|configured|rules?|list)\b/iu;

function demoPersona(): Persona {
  const file = personaFileSchema.parse(JSON.parse(readFileSync(DEMO, "utf8")));
  return {
    ...file,
    personifyAccess: file.personifyAccess === true,
    id: "5b0c6a1e-0000-4000-8000-00000000d3e0",
    accountId: "account-demo",
    version: 1,
    createdAt: "2026-01-01T00:00:00.000Z",
  };
}

/** Check 1: the reply's sentences, as the chunker splits them, are whole sentences. */
function sentenceProblems(reply: string): string[] {
  const problems: string[] = [];
  if (/[{}]|\s[,.!?;:]|[,;:][.!?]|\.\.|!!|\?\?|\s{2}/u.test(reply)) {
    problems.push("stray slot, space or punctuation");
  }
  for (const sentence of sentencesOf(reply)) {
    if (!/^\p{Lu}/u.test(sentence)) problems.push(`no capital: ${sentence}`);
    if (!/[.!?]$/u.test(sentence)) problems.push(`no end mark: ${sentence}`);
  }
  return problems;
}

/** Check 3: compromise reads the topic, after "about", as a noun phrase or a gerund phrase. */
function nounPhraseProblem(topic: string): string | undefined {
  const terms = nlp(`We talked about ${topic}.`).docs.flat().slice(3);
  const first = terms[0];
  if (first === undefined) return "empty";
  if (first.tags?.has("Gerund") === true || /ing$/u.test(first.normal)) return undefined;
  const starts = ["Determiner", "Possessive", "Adjective", "Value", "Noun"];
  if (!starts.some((tag) => first.tags?.has(tag) === true)) {
    return `starts with ${[...(first.tags ?? [])].join("/")} "${first.text}"`;
  }
  let nounSeen = false;
  let afterTo = false;
  for (const term of terms) {
    const tags = term.tags ?? new Set<string>();
    if (term.normal === "to") afterTo = true;
    if (tags.has("Preposition") || term.normal === "to") {
      if (!nounSeen) return `no noun before "${term.text}"`;
    }
    if (tags.has("Noun") && !tags.has("Pronoun")) nounSeen = true;
    if (tags.has("Verb") && !afterTo) return `verb "${term.text}"`;
  }
  return nounSeen ? undefined : "no noun";
}

/** Check 4: the words the message uses as verbs, in a form other than "-ing". */
function bareVerbsOf(message: string): Set<string> {
  const verbs = new Set<string>();
  for (const term of nlp(message).docs.flat()) {
    const tags = term.tags ?? new Set<string>();
    const helper = ["Gerund", "Auxiliary", "Modal", "Copula"].some((tag) => tags.has(tag));
    if (tags.has("Verb") && !helper && term.normal !== "") verbs.add(term.normal);
  }
  return verbs;
}

describe("the offline engine's first replies to the demo persona", () => {
  const persona = demoPersona();
  const traits: PersonaTraits = persona.traits;
  const provider = createOfflineProvider();
  const suite = readEvaluationSuite(SUITE);
  const refusal = suite.cases
    .flatMap((suiteCase) => suiteCase.checks)
    .find((check) => check.type === "refusal");

  it.each(FIRST_MESSAGES)("%j reads well", async (message, avoided) => {
    const { texts } = await provider.complete({
      persona,
      model: "offline-composer-1",
      maxOutputTokens: 2048,
      task: "reply",
      messages: mapHistory(persona, [{ role: "user", content: message }]),
      candidates: CANDIDATES,
      signal: new AbortController().signal,
    });
    const turn = readTurn(traits, message);
    const problems: string[] = [];
    for (const reply of texts) {
      problems.push(...sentenceProblems(reply).map((problem) => `${problem} in ${reply}`));
      const subject = { reply, source: undefined, personaName: persona.name, refusalMarkers: [] };
      const declined =
        refusal !== undefined && runDeterministicCheck(refusal, subject).outcome === "pass";
      if (avoided !== undefined) {
        if (!declined) problems.push(`not declined: ${reply}`);
        if (!reply.includes(avoided)) problems.push(`does not name ${avoided}: ${reply}`);
        if (INTERNALS.test(reply)) problems.push(`names internals: ${reply}`);
      } else if (declined) {
        problems.push(`declined: ${reply}`);
      }
    }
    if (avoided === undefined && TOPICAL.has(turn.intent)) {
      const topic = turn.topic;
      if (topic === "") problems.push("no topic");
      const nounPhrase = nounPhraseProblem(topic);
      if (nounPhrase !== undefined)
        problems.push(`topic "${topic}" is no noun phrase: ${nounPhrase}`);
      const bare = bareVerbsOf(message);
      for (const word of topic.toLowerCase().split(" ")) {
        if (bare.has(word)) problems.push(`topic "${topic}" names the verb "${word}"`);
      }
      for (const reply of texts) {
        if (!reply.includes(topic)) problems.push(`reply does not name "${topic}": ${reply}`);
      }
    }
    expect(problems, `${message} → ${JSON.stringify(turn)}\n${texts.join("\n")}`).toEqual([]);
  });

  it("passes the demo suite's own deterministic checks on its /generate cases", async () => {
    for (const suiteCase of suite.cases) {
      if (suiteCase.task !== "generate") continue;
      const { texts } = await provider.complete({
        persona,
        model: "offline-composer-1",
        maxOutputTokens: 2048,
        task: "reply",
        messages: mapHistory(persona, suiteCase.messages),
        candidates: 1,
        signal: new AbortController().signal,
      });
      const reply = texts[0] ?? "";
      const subject = { reply, source: undefined, personaName: persona.name, refusalMarkers: [] };
      for (const check of suiteCase.checks) {
        if (check.type === "judge") continue;
        const verdict = runDeterministicCheck(check, subject);
        expect(verdict.outcome, `${suiteCase.id} ${check.type}: ${verdict.detail} — ${reply}`).toBe(
          "pass",
        );
      }
    }
  });
});

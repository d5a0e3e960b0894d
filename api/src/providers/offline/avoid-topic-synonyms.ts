/**
 * Words that are about one of the topics operators commonly list in a
 * persona's `avoidTopics`, so the offline engine declines "Should I vote?"
 * for a persona that avoids politics, as a language model following the
 * system prompt would. A small table, not a thesaurus: an avoid topic whose
 * words appear in a group's `names` or `words` brings in all of the group's
 * `words`; any other topic is matched by its own words only. Every entry is
 * matched in all its forms (plural, tenses: see `wordForms`), so each is
 * written once, in its dictionary form.
 *
 * Words that commonly mean something else in the conversations personas
 * have are left out on purpose: "party" (a garden party), "council" (the
 * council's allotments), "campaign", "president" (of a club), "treatment"
 * (for aphids), "disease" (of plants), "weed", "pot", "court", "share",
 * "trading". A multi-word entry ("prime minister") matches as a phrase.
 */
export interface AvoidTopicGroup {
  /** How operators write the topic ("politics", "medical advice"), lowercase. */
  names: readonly string[];
  /** What users write when they are on it, lowercase, dictionary forms. */
  words: readonly string[];
}

/** The groups, one per common avoid topic. */
export const AVOID_TOPIC_GROUPS: readonly AvoidTopicGroup[] = [
  {
    names: ["politics", "political topics", "political opinions", "political views", "elections"],
    words: [
      "political",
      "politically",
      "politician",
      "vote",
      "voter",
      "election",
      "electoral",
      "candidate",
      "ballot",
      "referendum",
      "parliament",
      "congress",
      "senate",
      "senator",
      "prime minister",
      "political party",
      "party politics",
      "left-wing",
      "right-wing",
    ],
  },
  {
    names: ["religion", "religious topics", "faith", "religious beliefs"],
    words: [
      "religious",
      "god",
      "church",
      "mosque",
      "synagogue",
      "prayer",
      "pray",
      "bible",
      "quran",
      "koran",
      "torah",
      "christianity",
      "islam",
      "judaism",
      "hinduism",
      "buddhism",
      "atheism",
      "atheist",
      "worship",
    ],
  },
  {
    names: ["medication", "medicine", "drugs", "prescriptions", "pharmaceuticals"],
    words: [
      "medication",
      "medicine",
      "drug",
      "pill",
      "painkiller",
      "prescription",
      "dosage",
      "dose",
      "antibiotic",
      "antidepressant",
      "ibuprofen",
      "paracetamol",
      "acetaminophen",
      "aspirin",
      "opioid",
    ],
  },
  {
    names: ["medical advice", "health advice", "medical questions", "diagnosis"],
    words: ["diagnosis", "diagnose", "symptom", "medication", "prescription", "illness"],
  },
  {
    names: ["legal advice", "legal matters", "legal questions", "law"],
    words: ["lawyer", "attorney", "solicitor", "barrister", "lawsuit", "litigation", "legal"],
  },
  {
    names: [
      "financial advice",
      "finance",
      "investing",
      "investment advice",
      "investments",
      "stock tips",
      "personal finance",
    ],
    words: [
      "invest",
      "investment",
      "investor",
      "stock market",
      "stock tip",
      "crypto",
      "cryptocurrency",
      "bitcoin",
      "portfolio",
      "pension",
      "mortgage",
      "dividend",
      "financial",
    ],
  },
  {
    names: ["gambling", "betting"],
    words: ["gamble", "bet", "casino", "poker", "lottery", "bookmaker", "slot machine"],
  },
  {
    names: ["alcohol", "drinking"],
    words: [
      "alcoholic",
      "beer",
      "wine",
      "whisky",
      "whiskey",
      "vodka",
      "cocktail",
      "booze",
      "drunk",
      "hangover",
      "liquor",
    ],
  },
  {
    names: ["recreational drugs", "illegal drugs", "narcotics", "drugs"],
    words: ["cannabis", "marijuana", "cocaine", "heroin", "ecstasy", "mdma", "lsd", "narcotic"],
  },
  {
    names: ["weapons", "firearms", "guns"],
    words: ["weapon", "gun", "firearm", "rifle", "pistol", "ammunition", "explosive", "bomb"],
  },
  {
    names: ["sex", "sexual content", "sexuality"],
    words: ["sexual", "sexy", "porn", "pornography", "nude", "erotic"],
  },
];

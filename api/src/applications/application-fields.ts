import { normalizeEmail } from "../playground/allowed-email-store.js";

/** Longest accepted value of each text field of the application form, in characters. */
export const APPLICATION_FIELD_LIMITS = {
  email: 254,
  name: 120,
  company: 160,
  purpose: 2000,
} as const;

/** The form's choices of expected volume (requests a month); the stored value is the key. */
export const EXPECTED_VOLUMES: ReadonlyArray<{ value: string; label: string }> = [
  { value: "under-1k", label: "fewer than 1,000 requests a month" },
  { value: "1k-10k", label: "1,000 to 10,000 requests a month" },
  { value: "10k-100k", label: "10,000 to 100,000 requests a month" },
  { value: "over-100k", label: "more than 100,000 requests a month" },
  { value: "unsure", label: "not sure yet" },
];

/** The label of a stored volume choice (the value itself when unknown). */
export function volumeLabel(value: string): string {
  return EXPECTED_VOLUMES.find((volume) => volume.value === value)?.label ?? value;
}

/** What an applicant sends, cleaned and checked. */
export interface ApplicationFields {
  /** Normalized (trimmed, lower-case). */
  email: string;
  name: string;
  company: string;
  purpose: string;
  /** A value of {@link EXPECTED_VOLUMES}. */
  expectedVolume: string;
  /** Always true: the form refuses an application without consent to be contacted. */
  contactConsent: true;
}

/** The form as typed, for showing it again with the problems. */
export type ApplicationInput = Record<
  "email" | "name" | "company" | "purpose" | "expectedVolume" | "contactConsent",
  string
>;

/** The outcome of {@link checkApplication}: the fields, or a problem per field. */
export type ApplicationCheck =
  | { ok: true; fields: ApplicationFields }
  | { ok: false; problems: Partial<Record<keyof ApplicationInput, string>> };

/**
 * Cleans free text: Unicode NFC; line breaks become `\n` (kept only where
 * `multiline`, else spaces); every other control character, and the
 * invisible bidirectional and zero-width format characters that could make
 * the text read differently in a terminal or a list, removed; trimmed.
 */
export function cleanText(text: string, multiline: boolean): string {
  const lines = text
    .normalize("NFC")
    .replace(/\r\n?/gu, "\n")
    .replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, (character) =>
      character === "\n" ? (multiline ? "\n" : " ") : character === "\t" ? " " : "",
    );
  return lines.trim();
}

function requiredText(
  value: string,
  limit: number,
  multiline: boolean,
): { ok: true; text: string } | { ok: false; reason: string } {
  // The raw length is checked first: a huge value is refused before it is worked on.
  if (value.length > limit * 2) return { ok: false, reason: `at most ${limit} characters` };
  const text = cleanText(value, multiline);
  if (text === "") return { ok: false, reason: "required" };
  if ([...text].length > limit) return { ok: false, reason: `at most ${limit} characters` };
  return { ok: true, text };
}

/**
 * Checks an application form (docs/API.md §1.6): a plausible e-mail
 * address, a name, a company, what the persona is for, one of the volume
 * choices and the consent to be contacted. Each text field is cleaned
 * ({@link cleanText}) and held to {@link APPLICATION_FIELD_LIMITS}.
 */
export function checkApplication(input: ApplicationInput): ApplicationCheck {
  const problems: Partial<Record<keyof ApplicationInput, string>> = {};
  const email =
    input.email.length > APPLICATION_FIELD_LIMITS.email * 2
      ? undefined
      : normalizeEmail(input.email);
  if (email === undefined) problems.email = "a valid e-mail address of at most 254 characters";
  const name = requiredText(input.name, APPLICATION_FIELD_LIMITS.name, false);
  if (!name.ok) problems.name = name.reason;
  const company = requiredText(input.company, APPLICATION_FIELD_LIMITS.company, false);
  if (!company.ok) problems.company = company.reason;
  const purpose = requiredText(input.purpose, APPLICATION_FIELD_LIMITS.purpose, true);
  if (!purpose.ok) problems.purpose = purpose.reason;
  if (!EXPECTED_VOLUMES.some((volume) => volume.value === input.expectedVolume)) {
    problems.expectedVolume = "pick one of the choices";
  }
  if (input.contactConsent !== "yes") {
    problems.contactConsent = "needed: the review and the onboarding call happen by e-mail";
  }
  if (
    email === undefined ||
    !name.ok ||
    !company.ok ||
    !purpose.ok ||
    Object.keys(problems).length > 0
  ) {
    return { ok: false, problems };
  }
  return {
    ok: true,
    fields: {
      email,
      name: name.text,
      company: company.text,
      purpose: purpose.text,
      expectedVolume: input.expectedVolume,
      contactConsent: true,
    },
  };
}

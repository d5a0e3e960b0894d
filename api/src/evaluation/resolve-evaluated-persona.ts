import type { Persona } from "../personas/persona.js";
import type { PersonaStore } from "../personas/persona-store.js";

/** Which version of a persona to evaluate: a version number, the draft, or (undefined) the live one. */
export type EvaluatedVersion = number | "draft" | undefined;

/** The persona cannot be evaluated as asked (unknown ID, or a version this store cannot give). */
export class EvaluatedPersonaError extends Error {
  override readonly name = "EvaluatedPersonaError";
}

/** A persona as evaluated, with the version it is (null: the live persona of a store without versions). */
export interface EvaluatedPersona {
  persona: Persona;
  version: number | null;
}

/**
 * Resolves the persona an evaluation runs (`persona eval ID [--version N|draft]`).
 * The one seam between evaluation and persona versions (issue 25
 * "Versions", built in parallel): until the store keeps versions, only the
 * live persona can be evaluated and `--version` is refused with a clear
 * message; versions fill in this function alone.
 *
 * @throws {EvaluatedPersonaError} for an unknown persona, or any `version` while versions do not exist
 */
export async function resolveEvaluatedPersona(
  personas: Pick<PersonaStore, "find">,
  id: string,
  version?: EvaluatedVersion,
): Promise<EvaluatedPersona> {
  const persona = await personas.find(id);
  if (persona === undefined) throw new EvaluatedPersonaError(`no persona with ID ${id}`);
  if (version !== undefined) {
    throw new EvaluatedPersonaError(
      `--version ${version}: this store keeps no persona versions yet; evaluate the live persona (leave out --version)`,
    );
  }
  return { persona, version: null };
}

/**
 * Reads the `--version` option: a positive whole number or `draft`.
 *
 * @throws {RangeError} for anything else
 */
export function parseEvaluatedVersion(text: string): number | "draft" {
  if (text === "draft") return "draft";
  if (/^[1-9]\d{0,8}$/u.test(text)) return Number(text);
  throw new RangeError(`"${text}" is not a version: give a version number (1, 2, …) or draft`);
}

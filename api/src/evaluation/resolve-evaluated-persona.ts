import type { Persona } from "../personas/persona.js";
import type { PersonaStore } from "../personas/persona-store.js";
import type { VersionSelector } from "../personas/persona-versions.js";

/** Which version of a persona to evaluate: a version number, the newest draft, or (undefined or `"live"`) the live one. */
export type EvaluatedVersion = VersionSelector | undefined;

/** The persona cannot be evaluated as asked: an unknown ID, a version it does not have, or no draft. */
export class EvaluatedPersonaError extends Error {
  override readonly name = "EvaluatedPersonaError";
}

/** A persona as evaluated, with the version it is. */
export interface EvaluatedPersona {
  persona: Persona;
  version: number;
}

/**
 * Resolves the persona an evaluation runs (`persona eval ID [--version N|draft]`,
 * `--compare-version`): the persona as it answers at that version, read by
 * {@link PersonaStore.findVersion} — a draft is evaluated before it serves
 * any customer.
 *
 * @throws {EvaluatedPersonaError} for an unknown persona, a version it does not have, or `draft` when it has none
 */
export async function resolveEvaluatedPersona(
  personas: Pick<PersonaStore, "find" | "findVersion">,
  id: string,
  version: EvaluatedVersion = "live",
): Promise<EvaluatedPersona> {
  const persona = await personas.findVersion(id, version);
  if (persona !== undefined) return { persona, version: persona.version };
  if ((await personas.find(id)) === undefined) {
    throw new EvaluatedPersonaError(`no persona with ID ${id}`);
  }
  throw new EvaluatedPersonaError(
    version === "draft"
      ? `persona ${id} has no draft (persona-admin persona update ${id} --draft makes one)`
      : `persona ${id} has no version ${version} (persona-admin persona history ${id} lists them)`,
  );
}

import { ServiceError } from "../http/service-error.js";
import type { KeyOwner } from "../keys/key-store.js";
import type { Persona } from "../personas/persona.js";
import type { PersonaStore } from "../personas/persona-store.js";

/**
 * Checks that the key's account is active (docs/API.md §7 row 403).
 *
 * @throws {ServiceError} `account_inactive` (403) when it is suspended or closed
 */
export function requireActiveOwner(owner: KeyOwner): void {
  if (owner.accountStatus !== "active") {
    throw new ServiceError(
      "account_inactive",
      "API key not associated with an active billing account",
    );
  }
}

/**
 * Resolves the persona a request names and checks the caller may use it.
 * A persona of another account is indistinguishable from a missing one.
 *
 * @param param - the request field that carried the ID (`personaId` or `model`)
 * @throws {ServiceError} `account_inactive` (403) when the key's account is
 *   not active; `unknown_persona` (404) when no persona of the caller's
 *   account has this ID
 */
export async function authorizePersona(
  owner: KeyOwner,
  personaId: string,
  personas: PersonaStore,
  param: string,
): Promise<Persona> {
  requireActiveOwner(owner);
  const persona = await personas.find(personaId);
  if (persona === undefined || persona.accountId !== owner.accountId) {
    throw new ServiceError(
      "unknown_persona",
      `unknown personaId: ${personaId} is not a persona available to this API key`,
      { param },
    );
  }
  return persona;
}

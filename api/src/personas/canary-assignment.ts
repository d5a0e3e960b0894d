import { createHash } from "node:crypto";
import type { Persona, PersonaCanary } from "./persona.js";

/** Buckets of the assignment: a share is counted in hundredths of a percent. */
const BUCKETS = 10_000;

/**
 * Whether `subject` is in a canary's share: a deterministic hash of the
 * persona, the canary's start (its identity) and the subject, so a subject
 * sees one version for the canary's whole life on every instance, and a
 * new canary draws its share afresh.
 *
 * @param subject - who calls, e.g. `key:<API key ID>` (see {@link canarySubject})
 */
export function inCanary(personaId: string, canary: PersonaCanary, subject: string): boolean {
  const digest = createHash("sha256")
    .update(`${personaId}\n${canary.startedAt}\n${subject}`)
    .digest();
  return digest.readUInt32BE(0) % BUCKETS < canary.percent * (BUCKETS / 100);
}

/**
 * Who a canary sticks to: the API key (`key:<id>`); the OAuth grant of
 * a `/mcp` connection (`grant:<id>`); the account for the
 * playground's session (`account:<id>`: everyone signed in to one account
 * sees one version); the paying wallet for a keyless x402 request
 * (`payer:<address>`). Undefined (always the live version) when the
 * caller has no stable identity, e.g. an x402 payment without a payer.
 */
export function canarySubject(
  caller:
    | { kind: "api_key"; keyId: string }
    | { kind: "oauth"; grantId: string }
    | { kind: "session"; accountId: string }
    | { kind: "x402"; payer: string | null },
): string | undefined {
  if (caller.kind === "api_key") return `key:${caller.keyId}`;
  if (caller.kind === "oauth") return `grant:${caller.grantId}`;
  if (caller.kind === "session") return `account:${caller.accountId}`;
  return caller.payer === null ? undefined : `payer:${caller.payer.toLowerCase()}`;
}

/**
 * The persona as it answers `subject`: at the canary's version when a
 * canary runs and the subject is in its share, else as read (the live
 * version). The answer's `Persona-Version` and usage row follow `version`.
 */
export function servedPersona(persona: Persona, subject: string | undefined): Persona {
  const { canary } = persona;
  if (canary === undefined || subject === undefined || !inCanary(persona.id, canary, subject)) {
    return persona;
  }
  const { canary: _running, ...rest } = persona;
  return { ...rest, ...canary.content, version: canary.version };
}

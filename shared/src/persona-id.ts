import { z } from "zod";

/** A persona ID: a UUID issued at onboarding (docs/API.md §2 Persona). */
export const personaIdSchema = z.string({ error: "must be a string (a persona UUID)" }).uuid({
  error: "must be a persona ID (a UUID)",
});

/**
 * What a persona version holds — the parts of a persona that shape its
 * answers — and what differs between two of them.
 */
import type { ModelRoute } from "./model-route.js";
import type { PersonaTraits } from "./persona-traits.js";

/** What a version holds: the parts of a persona that shape its answers. */
export interface PersonaContent {
  name: string;
  traits: PersonaTraits;
  route: ModelRoute;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Paths of the leaves that differ (arrays compare whole), e.g. `traits.personality.confidence`. */
function changedPaths(before: unknown, after: unknown, path: string): string[] {
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((key) => changedPaths(before[key], after[key], `${path}.${key}`));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [path];
}

/**
 * What differs between two versions' contents: `name`, `route`, and each
 * changed traits path (`traits.communicationStyle.verbosity`).
 */
export function contentChanges(before: PersonaContent, after: PersonaContent): string[] {
  const changes: string[] = [];
  if (before.name !== after.name) changes.push("name");
  changes.push(...changedPaths(before.traits, after.traits, "traits"));
  if (JSON.stringify(before.route) !== JSON.stringify(after.route)) changes.push("route");
  return changes;
}

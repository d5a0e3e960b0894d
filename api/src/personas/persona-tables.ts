import type { Generated } from "kysely";

/**
 * The personas (migration `0001_accounts_personas_keys`), their versions
 * (0010) and their canaries' events (0026).
 */
export interface PersonaTables {
  personas: PersonasTable;
  persona_versions: PersonaVersionsTable;
  persona_canary_events: PersonaCanaryEventsTable;
}

export interface PersonasTable {
  id: string;
  account_id: string;
  name: string;
  /** The persona traits as JSON text (validated by personaTraitsSchema on read). */
  traits: string;
  personify_access: number;
  /** The first target's upstream (the whole route before migration 0006). */
  provider: string;
  /** The first target's model. */
  model: string;
  /** The ordered route targets as JSON (personas/model-route.ts); null: `provider:model` alone. */
  route: string | null;
  created_at: string;
  updated_at: string;
  /** Price per request in micro-units when the persona is self-serve (x402), else null. */
  self_serve_price_micros: number | null;
  /** The version answering requests (migration 0010); name, traits and route are its copy. */
  live_version: Generated<number>;
  /** The version the running canary serves (migration 0026); null when none runs. */
  canary_version: number | null;
  /** The canary's share of traffic in percent (1–50); null when none runs. */
  canary_percent: number | null;
  /** When the canary started (ISO 8601 UTC): its identity for the sticky assignment. */
  canary_started_at: string | null;
  /** Percentage points the canary's error rate may exceed the live one's before it stops itself. */
  canary_max_error_increase: number | null;
  /** Requests of the canary version before its error rate is judged. */
  canary_min_requests: number | null;
  /** Share of live answers scored by online evaluation in percent (migration 0027); null or 0: none. */
  sample_percent: number | null;
  /** Online evaluation's settings as JSON (online-evaluation/sampling-settings.ts); null: none. */
  sample_settings: string | null;
  /** The running canary's floor on its online score: percent of checks passed (migration 0027). */
  canary_min_score: number | null;
  /** The running canary's floor on its judge's mean score, 1–5 (migration 0027). */
  canary_min_judge_score: number | null;
  /** Sampled answers of the canary version before its online score is judged (migration 0027). */
  canary_min_samples: number | null;
}

/**
 * One start, stop, automatic stop or finish of a persona's canary
 * (migration 0026, personas/persona-canary-store.ts), never changed.
 */
export interface PersonaCanaryEventsTable {
  id: string;
  persona_id: string;
  /** When it happened (ISO 8601 UTC). */
  at: string;
  /** `start`, `stop`, `auto_stop` or `finish` (the canary's version was promoted). */
  action: string;
  /** The canary's version. */
  version: number;
  /** Its share of traffic in percent. */
  percent: number | null;
  /** When the canary this event belongs to started. */
  started_at: string;
  /** Who did it (persona-admin: the operator's login name); null for the automatic stop. */
  operator: string | null;
  /** JSON: the thresholds of a start, the figures of an automatic stop; null otherwise. */
  details: string | null;
}

/**
 * One immutable version of a persona's name, traits and route (migration
 * 0010, personas/persona-store.ts); only `promoted_at` is set later, once,
 * when a draft first goes live (and its `note` then gains what `--force`
 * overrode, when the promotion was forced).
 */
export interface PersonaVersionsTable {
  persona_id: string;
  /** 1, 2, 3 … per persona. */
  version: number;
  name: string;
  /** The traits as JSON text, as in `personas.traits`. */
  traits: string;
  /** The ordered route targets as JSON (never null, unlike `personas.route`). */
  route: string;
  /** The operator's note (`--note`): internal, never shown to the customer. */
  note: string | null;
  /**
   * What the customer is told about the version (`--release-note`, migration
   * 0023), shown on the signed-in pages; null when none was given.
   */
  release_note: string | null;
  /** JSON array of what differs from the version live when this one was made. */
  changes: string;
  created_at: string;
  /** Who made it (the operator's login name for persona-admin), when known. */
  created_by: string | null;
  /** When it first went live; null for a draft that never served. */
  promoted_at: string | null;
}

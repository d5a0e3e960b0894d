import type { PersonaSampling } from "../online-evaluation/sampling-settings.js";
import type { ModelRoute } from "./model-route.js";
import type { PersonaTraits } from "./persona-traits.js";

/** A persona as the service uses it: identity, owner, traits, access and route. */
export interface Persona {
  /** The persona ID (UUID) handed to the customer at onboarding. */
  id: string;
  /** The account that owns the persona. */
  accountId: string;
  /** Display name, also used to strip a stray "Name:" prefix from model output. */
  name: string;
  traits: PersonaTraits;
  /** Whether the persona may be used on /personify (docs/API.md §4.2). */
  personifyAccess: boolean;
  /**
   * The model targets in the order they are tried (upstream names of the
   * operator configuration); never empty.
   */
  route: ModelRoute;
  /**
   * The version whose name, traits and route these are: the live
   * version for personas read by `find`/`list`, the asked one for
   * `findVersion`. Versions count 1, 2, 3 … per persona.
   */
  version: number;
  /** When the operator created the persona (ISO 8601 UTC); `created` of the models list. */
  createdAt: string;
  /**
   * Price per request in micro-units of USD when the operator made the
   * persona self-serve (docs/API.md §5.6: requests without a key get a 402 x402
   * payment challenge); absent otherwise.
   */
  selfServePriceMicros?: number;
  /**
   * The canary running on the persona (`persona-admin persona canary`), on
   * personas read by `find`/`load`; absent when none runs.
   */
  canary?: PersonaCanary;
  /**
   * Online evaluation (`persona-admin persona sample`): the share of live
   * answers scored off the request path; absent when none are.
   */
  sampling?: PersonaSampling;
}

/**
 * A canary: another version of the persona answers `percent` % of its
 * traffic, each caller sticking to one version for the canary's life
 * (personas/canary-assignment.ts), the rest is served by the live version.
 */
export interface PersonaCanary extends PersonaCanaryTerms {
  /** The canary version's name, traits and route, as it answers. */
  content: { name: string; traits: PersonaTraits; route: ModelRoute };
}

/**
 * A running canary's version, share and stop conditions: what the
 * `personas` row holds for it ({@link PersonaCanary}, `persona status`, the
 * automatic stop all read this one shape).
 */
export interface PersonaCanaryTerms {
  /** The version it serves: a draft or an earlier version, never the live one. */
  version: number;
  /** Share of traffic in percent, 1–50. */
  percent: number;
  /** When it started (ISO 8601 UTC); with the persona ID, the canary's identity. */
  startedAt: string;
  /** Percentage points its error rate may exceed the live version's before it stops itself. */
  maxErrorRateIncrease: number;
  /** Requests of the canary version before its error rate is judged. */
  minRequests: number;
  /** Floor on its online score (percent of checks passed) under which it stops itself; null: none. */
  minOnlineScore: number | null;
  /** Floor on its judge's mean score (1–5) under which it stops itself; null: none. */
  minJudgeScore: number | null;
  /** Sampled answers of the canary version before its online score is judged. */
  minSamples: number;
}

/** Where a version stands: a draft never served, the live one serves, a retired one served before. */
export type PersonaVersionStatus = "draft" | "live" | "retired";

/**
 * One immutable version of a persona's name, traits and route,
 * as `persona-admin persona history` lists it.
 */
export interface PersonaVersion {
  personaId: string;
  /** 1, 2, 3 … per persona. */
  version: number;
  status: PersonaVersionStatus;
  name: string;
  traits: PersonaTraits;
  route: ModelRoute;
  /** The operator's note (`--note`), or null: internal, never shown to the customer. */
  note: string | null;
  /**
   * What the customer is told about this version (`--release-note`), or
   * null: shown on the signed-in pages with the persona's name and version.
   */
  releaseNote: string | null;
  /**
   * What differs from the version that was live when this one was made:
   * `name`, `route`, or a traits path such as `traits.communicationStyle.verbosity`.
   * Empty for a persona's first version.
   */
  changes: string[];
  /** When it was made (ISO 8601 UTC). */
  createdAt: string;
  /** Who made it (persona-admin: the operator's login name), or null. */
  createdBy: string | null;
  /** When it first went live (ISO 8601 UTC); null for a draft. */
  promotedAt: string | null;
}

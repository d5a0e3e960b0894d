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
  /** Whether the persona may be used on /personify (spec §4.2). */
  personifyAccess: boolean;
  /**
   * The model targets in the order they are tried (upstream names of the
   * operator configuration); never empty.
   */
  route: ModelRoute;
  /** When the operator created the persona (ISO 8601 UTC); `created` of the models list. */
  createdAt: string;
  /**
   * Price per request in micro-units of USD when the operator made the
   * persona self-serve (spec §5.6: requests without a key get a 402 x402
   * payment challenge); absent otherwise.
   */
  selfServePriceMicros?: number;
}

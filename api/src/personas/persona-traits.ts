import { z } from "zod";
import {
  DEFAULT_ROUTE,
  modelRouteSchema,
  routeOfProvider,
  upstreamNameSchema,
} from "./model-route.js";

/**
 * Personality traits designed at onboarding (docs/API.md §2 Persona: extraversion,
 * emotional tone, confidence, humour style).
 */
export const personalitySchema = z.object({
  extraversion: z.enum(["introverted", "balanced", "extraverted"]).default("balanced"),
  emotionalTone: z.enum(["warm", "neutral", "cool", "upbeat"]).default("neutral"),
  confidence: z.enum(["humble", "steady", "assertive"]).default("steady"),
  humourStyle: z.enum(["none", "dry", "playful", "witty"]).default("none"),
});

/**
 * Communication style (docs/API.md §2 Persona: formality, verbosity, emotional
 * expression, question frequency).
 */
export const communicationStyleSchema = z.object({
  formality: z.enum(["casual", "neutral", "formal"]).default("neutral"),
  verbosity: z.enum(["concise", "balanced", "elaborate"]).default("balanced"),
  emotionalExpression: z.enum(["reserved", "moderate", "expressive"]).default("moderate"),
  questionFrequency: z.enum(["rarely", "sometimes", "often"]).default("sometimes"),
});

/**
 * Behavioural guidelines (docs/API.md §2 Persona: role, boundaries, engagement
 * style, cultural context), with the safety behaviour of docs/API.md §1.7.
 * `avoidTopics` are words or phrases the persona declines to discuss.
 */
export const behaviouralGuidelinesSchema = z.object({
  role: z.string().min(1).max(500),
  boundaries: z.array(z.string().min(1).max(500)).max(50).default([]),
  avoidTopics: z.array(z.string().min(1).max(100)).max(100).default([]),
  engagementStyle: z.string().max(500).default(""),
  culturalContext: z.string().max(500).default(""),
  safetyBehaviour: z.array(z.string().min(1).max(500)).max(50).default([]),
});

/** All traits of a persona; they compile into its system prompt. */
export const personaTraitsSchema = z.object({
  personality: personalitySchema.prefault({}),
  communicationStyle: communicationStyleSchema.prefault({}),
  behaviouralGuidelines: behaviouralGuidelinesSchema,
  /** Words the persona likes to use now and then ("signature phrases"). */
  signaturePhrases: z.array(z.string().min(1).max(200)).max(20).default([]),
});

/** A persona's traits after validation (defaults filled in). */
export type PersonaTraits = z.output<typeof personaTraitsSchema>;

/**
 * The first format's single-target route (`provider` + `model`), still read
 * from persona files: the provider names `offline` and `openai-compatible`
 * are now the default upstreams of the same names.
 *
 * @deprecated write `route` (a list of `upstream:model` targets) instead
 */
export const legacyModelRouteSchema = z.strictObject({
  provider: upstreamNameSchema.default("offline"),
  model: z.string().min(1).max(200).default("offline-composer-1"),
});

/**
 * A persona file as the operator writes it for `persona-admin persona create`
 * (JSON). See `api/personas/example-persona.json`. `route` lists the model
 * targets in the order they are tried (objects `{ upstream, model }` or
 * texts `upstream:model`); a file of the first format with a single
 * `modelRoute: { provider, model }` is read as the one-target route
 * `provider:model`; a file with neither routes to the offline engine.
 */
export const personaFileSchema = z
  .object({
    name: z.string().min(1).max(100),
    traits: personaTraitsSchema,
    /**
     * Whether the persona may be used on /personify. Absent: a new persona
     * starts without it, and an update leaves it as it is (an omission in a
     * file never withdraws a customer's access).
     */
    personifyAccess: z.boolean().optional(),
    route: modelRouteSchema.optional(),
    modelRoute: legacyModelRouteSchema.optional(),
  })
  .superRefine((file, context) => {
    if (file.route !== undefined && file.modelRoute !== undefined) {
      context.addIssue({
        code: "custom",
        path: ["modelRoute"],
        message: "give either route or the older modelRoute, not both",
      });
    }
  })
  .transform(({ route, modelRoute, ...file }) => ({
    ...file,
    route:
      route ??
      (modelRoute === undefined
        ? [...DEFAULT_ROUTE]
        : routeOfProvider(modelRoute.provider, modelRoute.model)),
  }));

/** A parsed persona file: its route always holds at least one target. */
export type PersonaFile = z.output<typeof personaFileSchema>;

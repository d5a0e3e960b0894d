import { z } from "zod";

/**
 * Personality traits designed at onboarding (spec §2 Persona: extraversion,
 * emotional tone, confidence, humour style).
 */
export const personalitySchema = z.object({
  extraversion: z.enum(["introverted", "balanced", "extraverted"]).default("balanced"),
  emotionalTone: z.enum(["warm", "neutral", "cool", "upbeat"]).default("neutral"),
  confidence: z.enum(["humble", "steady", "assertive"]).default("steady"),
  humourStyle: z.enum(["none", "dry", "playful", "witty"]).default("none"),
});

/**
 * Communication style (spec §2 Persona: formality, verbosity, emotional
 * expression, question frequency).
 */
export const communicationStyleSchema = z.object({
  formality: z.enum(["casual", "neutral", "formal"]).default("neutral"),
  verbosity: z.enum(["concise", "balanced", "elaborate"]).default("balanced"),
  emotionalExpression: z.enum(["reserved", "moderate", "expressive"]).default("moderate"),
  questionFrequency: z.enum(["rarely", "sometimes", "often"]).default("sometimes"),
});

/**
 * Behavioural guidelines (spec §2 Persona: role, boundaries, engagement
 * style, cultural context), with the safety behaviour of spec §1.7.
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

/** Providers a persona's model route can name. */
export const providerNameSchema = z.enum(["offline", "openai-compatible"]);

/** The name of a model provider. */
export type ProviderName = z.infer<typeof providerNameSchema>;

/**
 * The model route chosen by the operator at onboarding (spec §1.5: the
 * customer never chooses a model).
 */
export const modelRouteSchema = z.object({
  provider: providerNameSchema.default("offline"),
  model: z.string().min(1).max(200).default("offline-composer-1"),
});

/** A persona's model route. */
export type ModelRoute = z.output<typeof modelRouteSchema>;

/**
 * A persona file as the operator writes it for `persona-admin persona create`
 * (JSON). See `api/personas/example-persona.json`.
 */
export const personaFileSchema = z.object({
  name: z.string().min(1).max(100),
  traits: personaTraitsSchema,
  personifyAccess: z.boolean().default(false),
  modelRoute: modelRouteSchema.prefault({}),
});

/** A parsed persona file. */
export type PersonaFile = z.output<typeof personaFileSchema>;

import { describe, expect, it } from "vitest";
import { readExamplePersona } from "../seed/demo-seed.js";
import { canarySubject, inCanary, servedPersona } from "./canary-assignment.js";
import type { Persona, PersonaCanary } from "./persona.js";

const example = readExamplePersona();
const canary: PersonaCanary = {
  version: 2,
  percent: 20,
  startedAt: "2026-11-28T10:00:00.000Z",
  maxErrorRateIncrease: 5,
  minRequests: 50,
  minOnlineScore: null,
  minJudgeScore: null,
  minSamples: 20,
  content: {
    name: "Juniper Two",
    traits: example.traits,
    route: [{ upstream: "offline", model: "offline-composer-2" }],
  },
};
const persona: Persona = {
  id: "8f1c7c1e-5d2a-4a57-9a53-0d3c8b7f2a10",
  accountId: "account",
  name: example.name,
  traits: example.traits,
  personifyAccess: false,
  route: example.route,
  version: 1,
  createdAt: "2026-11-01T00:00:00.000Z",
  canary,
};
const subjects = Array.from({ length: 10_000 }, (_, index) => `key:${index}`);

describe("canary assignment", () => {
  it("puts about its share of subjects in the canary, each always on the same side", () => {
    const inside = subjects.filter((subject) => inCanary(persona.id, canary, subject));
    expect(inside.length / subjects.length).toBeGreaterThan(0.18);
    expect(inside.length / subjects.length).toBeLessThan(0.22);
    for (const subject of subjects.slice(0, 200)) {
      expect(inCanary(persona.id, canary, subject)).toBe(inCanary(persona.id, canary, subject));
    }
  });

  it("draws afresh for a new canary (another start) and another persona", () => {
    const inside = (personaId: string, startedAt: string) =>
      subjects.filter((subject) => inCanary(personaId, { ...canary, startedAt }, subject));
    const first = inside(persona.id, canary.startedAt);
    const restarted = inside(persona.id, "2026-11-28T11:00:00.000Z");
    const other = inside("another-persona", canary.startedAt);
    expect(restarted).not.toEqual(first);
    expect(other).not.toEqual(first);
  });

  it("serves the canary's version and content to a subject inside, the live persona to others and to no subject", () => {
    const inside = subjects.find((subject) => inCanary(persona.id, canary, subject));
    const outside = subjects.find((subject) => !inCanary(persona.id, canary, subject));
    const served = servedPersona(persona, inside);
    expect(served).toMatchObject({ id: persona.id, version: 2, name: "Juniper Two" });
    expect(served.route).toEqual(canary.content.route);
    expect(served.canary).toBeUndefined();
    expect(servedPersona(persona, outside)).toBe(persona);
    expect(servedPersona(persona, undefined)).toBe(persona);
    const { canary: _none, ...withoutCanary } = persona;
    expect(servedPersona(withoutCanary, inside)).toBe(withoutCanary);
  });

  it("sticks to the key, the playground's account, or the paying wallet", () => {
    expect(canarySubject({ kind: "api_key", keyId: "k1" })).toBe("key:k1");
    expect(canarySubject({ kind: "session", accountId: "a1" })).toBe("account:a1");
    expect(canarySubject({ kind: "x402", payer: "0xAbC" })).toBe("payer:0xabc");
    expect(canarySubject({ kind: "x402", payer: null })).toBeUndefined();
  });
});

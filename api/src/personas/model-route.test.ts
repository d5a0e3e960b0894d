import { describe, expect, it } from "vitest";
import { modelRouteSchema, parseRouteTarget } from "./model-route.js";
import { personaFileSchema } from "./persona-traits.js";

const traits = { behaviouralGuidelines: { role: "a garden guide" } };

describe("model routes", () => {
  it("parses upstream:model, the model keeping any further colons", () => {
    expect(parseRouteTarget("claude:claude-haiku-4-5")).toEqual({
      upstream: "claude",
      model: "claude-haiku-4-5",
    });
    expect(parseRouteTarget("ollama:llama3.1:8b")).toEqual({
      upstream: "ollama",
      model: "llama3.1:8b",
    });
    for (const bad of ["no-colon", ":model", "upstream:", "bad name:m"]) {
      expect(() => parseRouteTarget(bad), bad).toThrow(/is not upstream:model/u);
    }
  });

  it("accepts objects and upstream:model texts, in order, and refuses empty, repeated or long routes", () => {
    expect(
      modelRouteSchema.parse([{ upstream: "openai", model: "gpt-4o-mini" }, "claude:haiku"]),
    ).toEqual([
      { upstream: "openai", model: "gpt-4o-mini" },
      { upstream: "claude", model: "haiku" },
    ]);
    expect(modelRouteSchema.safeParse([]).success).toBe(false);
    expect(modelRouteSchema.safeParse(["a:m", "a:m"]).error?.issues[0]?.message).toBe(
      "a:m is listed twice",
    );
    expect(modelRouteSchema.safeParse(Array.from({ length: 9 }, (_, i) => `a:m${i}`)).success).toBe(
      false,
    );
  });
});

describe("the persona file's route", () => {
  it("reads a route list", () => {
    const file = personaFileSchema.parse({
      name: "Juniper",
      traits,
      route: ["openai:gpt-4o-mini", { upstream: "local", model: "llama3.1:8b" }],
    });
    expect(file.route).toEqual([
      { upstream: "openai", model: "gpt-4o-mini" },
      { upstream: "local", model: "llama3.1:8b" },
    ]);
    expect(file).not.toHaveProperty("modelRoute");
  });

  it("reads the first format's single modelRoute as the same one-target route", () => {
    for (const provider of ["offline", "openai-compatible"]) {
      const file = personaFileSchema.parse({
        name: "Juniper",
        traits,
        modelRoute: { provider, model: "m" },
      });
      expect(file.route).toEqual([{ upstream: provider, model: "m" }]);
    }
  });

  it("routes to the offline engine when the file names no route", () => {
    expect(personaFileSchema.parse({ name: "Juniper", traits }).route).toEqual([
      { upstream: "offline", model: "offline-composer-1" },
    ]);
  });

  it("refuses both formats at once", () => {
    const result = personaFileSchema.safeParse({
      name: "Juniper",
      traits,
      route: ["a:m"],
      modelRoute: { provider: "offline", model: "m" },
    });
    expect(result.error?.issues[0]).toMatchObject({
      path: ["modelRoute"],
      message: "give either route or the older modelRoute, not both",
    });
  });
});

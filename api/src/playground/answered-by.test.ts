import { describe, expect, it } from "vitest";
import type { Upstream, Upstreams } from "../providers/upstream-config.js";
import { describeAnswer } from "./answered-by.js";

function upstream(name: string, kind: Upstream["kind"]): [string, Upstream] {
  return [
    name,
    {
      name,
      kind,
      timeoutMs: 1000,
      maxRetries: 0,
      maxOutputTokens: 100,
      cooldownAfterFailures: 3,
      cooldownMs: 1000,
      price: {
        requestMicros: 100,
        inputMicrosPerMillionTokens: 0,
        outputMicrosPerMillionTokens: 0,
      },
      models: {},
    },
  ];
}

describe("describeAnswer", () => {
  const upstreams: Upstreams = new Map([
    upstream("offline", "offline"),
    upstream("local", "openai-compatible"),
    upstream("claude", "anthropic"),
  ]);

  it("gives the persona version and tells the development engine by its kind, naming no target", () => {
    expect(
      describeAnswer({ upstream: "offline", model: "offline-composer-1" }, upstreams, 3),
    ).toEqual({ personaVersion: 3, development: true });
    const local = describeAnswer({ upstream: "local", model: "llama3.1:8b" }, upstreams, 1);
    expect(local).toEqual({ personaVersion: 1, development: false });
    expect(JSON.stringify(local)).not.toMatch(/local|llama/u);
    expect(describeAnswer({ upstream: "claude", model: "x" }, upstreams, 1).development).toBe(
      false,
    );
  });

  it("does not take an unknown upstream for the development engine", () => {
    expect(describeAnswer({ upstream: "gone", model: "m" }, upstreams, 1).development).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import type { RouteTarget } from "../personas/model-route.js";
import type { Persona } from "../personas/persona.js";
import { personaTraitsSchema } from "../personas/persona-traits.js";
import {
  type ModelProvider,
  ProviderError,
  type ProviderRequest,
  type ProviderResult,
} from "../providers/model-provider.js";
import type { Upstream } from "../providers/upstream-config.js";
import {
  type AttemptOutcome,
  ModelRouter,
  type RoutedRequest,
  RouteError,
} from "./model-router.js";

const persona: Persona = {
  id: "7d3f1c8e-0000-4000-8000-000000000002",
  accountId: "account-1",
  name: "Mira",
  traits: personaTraitsSchema.parse({ behaviouralGuidelines: { role: "Travel guide" } }),
  personifyAccess: false,
  version: 1,
  createdAt: "2026-01-01T00:00:00.000Z",
  route: [],
};

const request: RoutedRequest = {
  persona,
  task: "reply",
  messages: [{ role: "user", content: "Hi" }],
  candidates: 1,
};

type Behaviour = "ok" | "upstream" | "request" | "timeout" | "hang";

/** A test double of a provider: answers by its current behaviour and records what it was asked. */
function scriptedProvider(name: string) {
  const calls: ProviderRequest[] = [];
  const provider = {
    behaviour: "ok" as Behaviour,
    calls,
    name,
    complete(call: ProviderRequest): Promise<ProviderResult> {
      calls.push(call);
      switch (provider.behaviour) {
        case "ok":
          return Promise.resolve({ texts: [`${name} answers`] });
        case "hang":
          return new Promise(() => undefined);
        default:
          return Promise.reject(new ProviderError(provider.behaviour, `${name} failed`));
      }
    },
  };
  return provider;
}

function upstream(name: string, settings: Partial<Upstream> = {}): Upstream {
  return {
    name,
    kind: "openai-compatible",
    baseUrl: "http://127.0.0.1:9/v1",
    timeoutMs: 200,
    maxRetries: 0,
    maxOutputTokens: 64,
    cooldownAfterFailures: 2,
    cooldownMs: 150,
    price: { requestMicros: 0, inputMicrosPerMillionTokens: 0, outputMicrosPerMillionTokens: 0 },
    models: {},
    ...settings,
  };
}

function setUp(settings: Record<string, Partial<Upstream>> = { a: {}, b: {} }) {
  const providers = new Map<string, ReturnType<typeof scriptedProvider>>();
  const upstreams = new Map<string, Upstream>();
  for (const [name, overrides] of Object.entries(settings)) {
    providers.set(name, scriptedProvider(name));
    upstreams.set(name, upstream(name, overrides));
  }
  const events: string[] = [];
  const router = new ModelRouter(upstreams, providers as Map<string, ModelProvider>, {
    observer: {
      attempted: (name: string, outcome: AttemptOutcome) =>
        events.push(`attempt ${name} ${outcome}`),
      fellBack: (name, reason) => events.push(`fallback ${name} ${reason}`),
      cooledDown: (name) => events.push(`cooldown ${name}`),
    },
  });
  const run = (route: RouteTarget[], signal?: AbortSignal) =>
    router.run(route, request, (result) => result.texts[0] ?? "", signal);
  const provider = (name: string) => providers.get(name) as ReturnType<typeof scriptedProvider>;
  return { run, provider, events };
}

const AB: RouteTarget[] = [
  { upstream: "a", model: "model-a" },
  { upstream: "b", model: "model-b" },
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("ModelRouter", () => {
  it("asks the first target with its model and output cap, and stops there when it answers", async () => {
    const { run, provider, events } = setUp({
      a: { models: { "model-a": { maxOutputTokens: 9 } } },
      b: {},
    });
    const answer = await run(AB);
    expect(answer).toEqual({ value: "a answers", target: AB[0] });
    expect(provider("a").calls[0]).toMatchObject({ model: "model-a", maxOutputTokens: 9 });
    expect(provider("b").calls).toHaveLength(0);
    expect(events).toEqual(["attempt a ok"]);
  });

  it("moves on after an upstream failure or a timeout, not after a refused request", async () => {
    const { run, provider, events } = setUp({ a: { cooldownAfterFailures: 10 }, b: {} });
    provider("a").behaviour = "upstream";
    expect((await run(AB)).target).toEqual(AB[1]);
    provider("a").behaviour = "hang";
    expect((await run(AB)).target).toEqual(AB[1]);
    expect(events).toEqual([
      "attempt a upstream",
      "fallback a failure",
      "attempt b ok",
      "attempt a timeout",
      "fallback a failure",
      "attempt b ok",
    ]);
    provider("a").behaviour = "request";
    await expect(run(AB)).rejects.toMatchObject({ kind: "request" });
    expect(provider("b").calls).toHaveLength(2);
  });

  it("summarizes a route whose targets all failed", async () => {
    const { run, provider } = setUp();
    provider("a").behaviour = "hang";
    provider("b").behaviour = "hang";
    await expect(run(AB)).rejects.toEqual(
      new RouteError(
        "timeout",
        "the model provider did not answer within 200 ms, then 200 ms (2 targets tried)",
      ),
    );
    provider("b").behaviour = "upstream";
    await expect(run(AB)).rejects.toEqual(
      new RouteError("upstream", "the model provider failed: b failed (2 targets tried)"),
    );
    await expect(run([{ upstream: "b", model: "m" }])).rejects.toEqual(
      new RouteError("upstream", "the model provider failed: b failed"),
    );
  });

  it("skips a target in cooldown without calling it, then lets one trial through after the cooldown", async () => {
    const { run, provider, events } = setUp();
    provider("a").behaviour = "upstream";
    await run(AB);
    await run(AB);
    expect(events).toContain("cooldown a");
    const callsBefore = provider("a").calls.length;
    expect((await run(AB)).target).toEqual(AB[1]);
    expect(provider("a").calls).toHaveLength(callsBefore);
    expect(events.at(-2)).toBe("fallback a cooldown");

    await sleep(200);
    provider("a").behaviour = "hang";
    // The trial hangs; a request arriving meanwhile skips `a` instead of waiting on it.
    const trial = run(AB);
    await sleep(20);
    const started = Date.now();
    expect((await run(AB)).target).toEqual(AB[1]);
    expect(Date.now() - started).toBeLessThan(150);
    expect((await trial).target).toEqual(AB[1]);
    expect(provider("a").calls).toHaveLength(callsBefore + 1);

    // The failed trial started another cooldown; after it, a good trial ends the cooldowns.
    await sleep(200);
    provider("a").behaviour = "ok";
    expect((await run(AB)).target).toEqual(AB[0]);
    expect((await run(AB)).target).toEqual(AB[0]);
  });

  it("does not count refused requests or a client that left towards a cooldown", async () => {
    const { run, provider, events } = setUp();
    provider("a").behaviour = "request";
    for (let index = 0; index < 3; index++)
      await expect(run(AB)).rejects.toBeInstanceOf(RouteError);
    provider("a").behaviour = "hang";
    for (let index = 0; index < 3; index++) {
      const client = new AbortController();
      const call = run(AB, client.signal);
      setTimeout(() => client.abort(), 10);
      await expect(call).rejects.toThrow();
    }
    expect(events).not.toContain("cooldown a");
    expect(events.filter((event) => event === "attempt a aborted")).toHaveLength(3);
    expect(provider("b").calls).toHaveLength(0);
  });

  it("tries the first cooled target anyway when every target is cooling down", async () => {
    const { run, provider } = setUp();
    provider("a").behaviour = "upstream";
    provider("b").behaviour = "upstream";
    for (let index = 0; index < 2; index++)
      await expect(run(AB)).rejects.toBeInstanceOf(RouteError);
    const [aCalls, bCalls] = [provider("a").calls.length, provider("b").calls.length];
    provider("a").behaviour = "ok";
    expect((await run(AB)).target).toEqual(AB[0]);
    expect(provider("a").calls).toHaveLength(aCalls + 1);
    expect(provider("b").calls).toHaveLength(bCalls);
  });

  it("names a route's upstreams when none can be served here; an anthropic upstream needs its key", () => {
    const providers = new Map([
      ["a", scriptedProvider("a")],
      ["claude", scriptedProvider("claude")],
    ]) as unknown as Map<string, ModelProvider>;
    const router = new ModelRouter(
      new Map([
        ["a", upstream("a")],
        ["claude", upstream("claude", { kind: "anthropic" })],
      ]),
      providers,
    );
    expect(router.servableUpstreams()).toEqual(["a"]);
    expect(router.unservable([{ upstream: "gone", model: "m" }, ...AB])).toBeUndefined();
    expect(
      router.unservable([
        { upstream: "gone", model: "m" },
        { upstream: "claude", model: "haiku" },
        { upstream: "gone", model: "n" },
      ]),
    ).toEqual(["gone", "claude"]);
  });

  it("skips targets whose upstream is not configured, and says so when none is", async () => {
    const { run } = setUp();
    const route = [{ upstream: "gone", model: "m" }, ...AB];
    expect((await run(route)).target).toEqual(AB[0]);
    await expect(run([{ upstream: "gone", model: "m" }])).rejects.toMatchObject({
      kind: "unconfigured",
    });
  });
});

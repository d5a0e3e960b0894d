import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-node";
import { afterEach, describe, expect, it } from "vitest";
import type { Persona } from "../personas/persona.js";
import { personaTraitsSchema } from "../personas/persona-traits.js";
import type { ProviderRequest } from "../providers/model-provider.js";
import type { Upstream } from "../providers/upstream-config.js";
import { genAiProviderName, traceChat } from "./route-spans.js";
import type { Tracing } from "./tracing.js";

const persona: Persona = {
  id: "7d3f1c8e-0000-4000-8000-000000000002",
  accountId: "account-1",
  name: "Mira",
  traits: personaTraitsSchema.parse({ behaviouralGuidelines: { role: "Travel guide" } }),
  personifyAccess: false,
  createdAt: "2026-01-01T00:00:00.000Z",
  route: [],
  version: 3,
};

const upstream: Upstream = {
  name: "local",
  kind: "openai-compatible",
  baseUrl: "http://127.0.0.1:11434/v1",
  timeoutMs: 200,
  maxRetries: 0,
  maxOutputTokens: 64,
  cooldownAfterFailures: 2,
  cooldownMs: 150,
  price: { requestMicros: 0, inputMicrosPerMillionTokens: 0, outputMicrosPerMillionTokens: 0 },
  models: {},
};

const request: ProviderRequest = {
  persona: { ...persona, version: 3 } as Persona,
  model: "llama3",
  maxOutputTokens: 64,
  task: "reply",
  messages: [
    { role: "system", content: "You are Mira, a travel guide." },
    { role: "user", content: "Where should I walk in Lisbon?" },
  ],
  candidates: 1,
  signal: new AbortController().signal,
};

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracing = (captureContent: boolean): Tracing => ({
  tracer: provider.getTracer("test"),
  captureContent,
  flush: async () => undefined,
  shutdown: async () => undefined,
});

afterEach(() => exporter.reset());

describe("the GenAI chat span", () => {
  it("names the call and its usage, never its text by default", async () => {
    await traceChat(tracing(false), upstream, { upstream: "local", model: "llama3" }, request, () =>
      Promise.resolve({
        texts: ["Alfama, at dawn."],
        usage: { inputTokens: 30, outputTokens: 4 },
        model: "llama3:8b",
      }),
    );
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe("chat llama3");
    expect(span?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "local",
      "gen_ai.request.model": "llama3",
      "gen_ai.response.model": "llama3:8b",
      "gen_ai.usage.input_tokens": 30,
      "gen_ai.usage.output_tokens": 4,
      "server.address": "127.0.0.1",
      "server.port": 11434,
      "persona.id": persona.id,
      "persona.version": 3,
      "persona.target": "local:llama3",
    });
    const values = JSON.stringify(span?.attributes);
    for (const text of ["Lisbon", "Alfama", "travel guide"]) expect(values).not.toContain(text);
  });

  it("records the prompt and the answers when content capture is on", async () => {
    await traceChat(tracing(true), upstream, { upstream: "local", model: "llama3" }, request, () =>
      Promise.resolve({ texts: ["Alfama, at dawn."] }),
    );
    const attributes = exporter.getFinishedSpans()[0]?.attributes ?? {};
    expect(JSON.parse(String(attributes["gen_ai.system_instructions"]))).toEqual([
      { type: "text", content: "You are Mira, a travel guide." },
    ]);
    expect(JSON.parse(String(attributes["gen_ai.input.messages"]))).toEqual([
      { role: "user", parts: [{ type: "text", content: "Where should I walk in Lisbon?" }] },
    ]);
    expect(JSON.parse(String(attributes["gen_ai.output.messages"]))).toEqual([
      {
        role: "assistant",
        parts: [{ type: "text", content: "Alfama, at dawn." }],
        finish_reason: "stop",
      },
    ]);
  });

  it("maps upstreams to gen_ai.provider.name", () => {
    expect(genAiProviderName({ ...upstream, kind: "anthropic" })).toBe("anthropic");
    expect(genAiProviderName({ ...upstream, baseUrl: "https://api.openai.com/v1" })).toBe("openai");
    expect(genAiProviderName({ ...upstream, name: "offline", kind: "offline" })).toBe("offline");
  });
});

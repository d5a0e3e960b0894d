import { randomBytes } from "node:crypto";
import { generateResponseSchema } from "@persona-reply/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Persona } from "../src/personas/persona.js";
import { readExamplePersona } from "../src/seed/demo-seed.js";
import { type FakeUpstream, startFakeUpstream } from "./support/fake-upstream.js";
import {
  type OtlpReceiver,
  type ReceivedSpan,
  startOtlpReceiver,
} from "./support/otlp-receiver.js";
import { startTestService, type TestService } from "./support/test-service.js";
import { writeUpstreamsFile } from "./support/upstreams-file.js";

const SERVER = 2;
const CLIENT = 3;
const INTERNAL = 1;
/** Words of the user's message: they must never appear in a span. */
const MESSAGE = "Which tomatoes survive a cold Yorkshire spring?";

let receiver: OtlpReceiver;
let failing: FakeUpstream;
let healthy: FakeUpstream;
let service: TestService;
let upstreamsFile: ReturnType<typeof writeUpstreamsFile>;
let persona: Persona;
let key: string;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  failing = await startFakeUpstream();
  healthy = await startFakeUpstream();
  const connection = (upstream: FakeUpstream, keyVariable: string) => ({
    kind: "openai-compatible",
    baseUrl: upstream.baseUrl,
    apiKeyEnv: keyVariable,
    timeoutMs: 5_000,
    maxRetries: 0,
    price: { requestMicros: 10 },
  });
  upstreamsFile = writeUpstreamsFile({
    failing: connection(failing, "FAILING_UPSTREAM_KEY"),
    healthy: connection(healthy, "HEALTHY_UPSTREAM_KEY"),
  });
  service = await startTestService({
    PERSONA_UPSTREAMS_FILE: upstreamsFile.file,
    FAILING_UPSTREAM_KEY: "failing-upstream-secret",
    HEALTHY_UPSTREAM_KEY: "healthy-upstream-secret",
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_SERVICE_NAME: "persona-reply-under-test",
  });
  const { services } = service;
  const account = await services.accounts.create("Traced customer");
  await services.billing.balances.topUp(account.id, 50_000_000);
  persona = await services.personas.create(account.id, {
    ...readExamplePersona(),
    personifyAccess: true,
    route: [
      { upstream: "failing", model: "model-a" },
      { upstream: "healthy", model: "model-b" },
    ],
  });
  key = (await services.keys.create(account.id, "traced key")).key;
});
afterAll(async () => {
  await service?.stop();
  await failing?.close();
  await healthy?.close();
  await receiver?.close();
  upstreamsFile?.remove();
});

/** The spans of one trace once its server span has arrived (flushing the batch first). */
async function traceOf(traceId: string): Promise<ReceivedSpan[]> {
  for (let tries = 0; tries < 50; tries += 1) {
    await service.services.tracing?.flush();
    const spans = receiver.spans.filter((span) => span.traceId === traceId);
    if (spans.some((span) => span.kind === SERVER)) return spans;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no server span of trace ${traceId} arrived`);
}

function only(spans: ReceivedSpan[], predicate: (span: ReceivedSpan) => boolean): ReceivedSpan {
  const found = spans.filter(predicate);
  expect(found).toHaveLength(1);
  return found[0] as ReceivedSpan;
}

describe("traces of a /generate whose route falls back", () => {
  it("one tree: the server span continues the caller's trace; admission, two attempts with GenAI client spans, settlement", async () => {
    failing.behaviour = { kind: "status", status: 503 };
    healthy.behaviour = { kind: "reply", text: "Try Latah, under fleece." };
    const traceId = randomBytes(16).toString("hex");
    const callerSpanId = randomBytes(8).toString("hex");
    const response = await service.post(
      "/api/v1/generate",
      { personaId: persona.id, messages: [{ role: "user", content: MESSAGE }] },
      { headers: { "x-api-key": key, traceparent: `00-${traceId}-${callerSpanId}-01` } },
    );
    expect(response.status).toBe(200);
    expect(generateResponseSchema.parse(await response.json()).result.finalReply).toContain(
      "Latah",
    );

    const spans = await traceOf(traceId);
    const server = only(spans, (span) => span.kind === SERVER);
    expect(server).toMatchObject({
      name: "POST /api/v1/generate",
      parentSpanId: callerSpanId,
      serviceName: "persona-reply-under-test",
    });
    expect(server.attributes).toMatchObject({
      "http.request.method": "POST",
      "http.route": "/api/v1/generate",
      "http.response.status_code": 200,
      "url.path": "/api/v1/generate",
      "url.scheme": "http",
      "server.address": "127.0.0.1",
      "persona.id": persona.id,
      "persona.version": 1,
    });

    const children = spans.filter((span) => span.parentSpanId === server.spanId);
    expect(children.map((span) => span.name).sort()).toEqual([
      "admission",
      "route attempt",
      "route attempt",
      "settlement",
    ]);
    for (const child of children) expect(child.kind).toBe(INTERNAL);

    const firstAttempt = only(children, (span) => span.attributes["persona.attempt.index"] === 0);
    expect(firstAttempt.attributes).toMatchObject({
      "persona.target": "failing:model-a",
      "persona.attempt.outcome": "upstream",
      "error.type": "upstream",
      "persona.id": persona.id,
    });
    expect(firstAttempt.statusCode).toBe(2);
    const secondAttempt = only(children, (span) => span.attributes["persona.attempt.index"] === 1);
    expect(secondAttempt.attributes).toMatchObject({
      "persona.target": "healthy:model-b",
      "persona.attempt.outcome": "ok",
    });
    expect(secondAttempt.attributes["error.type"]).toBeUndefined();

    const failedChat = only(spans, (span) => span.parentSpanId === firstAttempt.spanId);
    expect(failedChat).toMatchObject({ name: "chat model-a", kind: CLIENT, statusCode: 2 });
    expect(failedChat.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "failing",
      "gen_ai.request.model": "model-a",
      "error.type": "upstream",
      "server.address": "127.0.0.1",
      "persona.target": "failing:model-a",
    });
    const chat = only(spans, (span) => span.parentSpanId === secondAttempt.spanId);
    expect(chat).toMatchObject({ name: "chat model-b", kind: CLIENT });
    expect(chat.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "healthy",
      "gen_ai.request.model": "model-b",
      "gen_ai.response.model": "fake-model",
      "gen_ai.usage.input_tokens": 12,
      "gen_ai.usage.output_tokens": 5,
      "server.address": "127.0.0.1",
      "persona.id": persona.id,
      "persona.version": 1,
      "persona.target": "healthy:model-b",
    });
    expect(chat.attributes["error.type"]).toBeUndefined();
    expect(spans).toHaveLength(7);

    // Each upstream was called under its own client span, in the caller's trace.
    expect(failing.traceparents.at(-1)).toBe(`00-${traceId}-${failedChat.spanId}-01`);
    expect(healthy.traceparents.at(-1)).toBe(`00-${traceId}-${chat.spanId}-01`);

    // Never a message, a prompt, an answer or a key in a span (content capture is off).
    const values = JSON.stringify(spans.map((span) => span.attributes));
    for (const secret of [
      "Yorkshire",
      "Latah",
      key,
      "failing-upstream-secret",
      "healthy-upstream-secret",
    ]) {
      expect(values).not.toContain(secret);
    }
    expect(values).not.toContain("gen_ai.input.messages");
  });

  it("a request without traceparent starts its own trace; /healthz gets a server span too", async () => {
    healthy.behaviour = { kind: "reply", text: "Plant them out in May." };
    failing.behaviour = { kind: "reply", text: "Plant them out in May." };
    const before = receiver.spans.length;
    const response = await fetch(`${service.url}/healthz`);
    expect(response.status).toBe(200);
    let spans: ReceivedSpan[] = [];
    for (let tries = 0; tries < 50 && spans.length === 0; tries += 1) {
      await service.services.tracing?.flush();
      spans = receiver.spans.slice(before).filter((span) => span.name === "GET /healthz");
      if (spans.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const [health] = spans;
    expect(health?.parentSpanId).toBe("");
    expect(health?.attributes["http.response.status_code"]).toBe(200);
  });
});

import { randomBytes } from "node:crypto";
import { context, propagation, ROOT_CONTEXT, TraceFlags, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PersonaClient } from "../src/index.js";

/** A key of the right shape, made at run time (never a key-shaped literal in a file). */
const KEY = `prk_test_${randomBytes(16).toString("hex")}`;

// The client continues the caller's trace: a call's traceparent,
// the traceContext hook, or the application's @opentelemetry/api context.

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN_ID = "00f067aa0ba902b7";
const PERSONA_ID = "6f1c2b1e-8f3a-4c1d-9a1b-2c3d4e5f6a7b";

/** A client whose fetch records the headers of each request and answers a valid reply. */
function recordingClient(options: ConstructorParameters<typeof PersonaClient>[0] = {}) {
  const sent: Array<Record<string, string>> = [];
  const client = new PersonaClient({
    apiKey: KEY,
    personaId: PERSONA_ID,
    baseUrl: "http://127.0.0.1:9",
    maxRetries: 0,
    ...options,
    fetch: async (_input, init) => {
      sent.push({ ...(init?.headers as Record<string, string>) });
      return new Response(
        JSON.stringify({ status: "success", result: { finalReply: "Hi.", chunks: ["Hi."] } }),
        { status: 200, headers: { "content-type": "application/json" } },
      );
    },
  });
  return { client, sent };
}

const messages = [{ role: "user" as const, content: "Hello" }];

describe("trace context of client requests", () => {
  beforeEach(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });
  afterEach(() => {
    context.disable();
    propagation.disable();
  });

  /** Runs `work` with a sampled remote span of TRACE_ID/SPAN_ID active. */
  const inCallerSpan = <T>(work: () => Promise<T>) =>
    context.with(
      trace.setSpanContext(ROOT_CONTEXT, {
        traceId: TRACE_ID,
        spanId: SPAN_ID,
        traceFlags: TraceFlags.SAMPLED,
        isRemote: true,
      }),
      work,
    );

  it("sends the active context's traceparent through @opentelemetry/api when the application has it", async () => {
    const { client, sent } = recordingClient();
    await inCallerSpan(() => client.generate({ messages }));
    expect(sent[0]?.traceparent).toBe(`00-${TRACE_ID}-${SPAN_ID}-01`);
    await client.generate({ messages });
    expect(sent[1]?.traceparent).toBeUndefined();
  });

  it("sends nothing with traceContext off, and a call's own traceparent wins", async () => {
    const { client, sent } = recordingClient({ traceContext: "off" });
    await inCallerSpan(() => client.generate({ messages }));
    expect(sent[0]?.traceparent).toBeUndefined();
    const given = `00-${"a".repeat(32)}-${"b".repeat(16)}-01`;
    await inCallerSpan(() => client.generate({ messages }, { traceparent: given }));
    expect(sent[1]?.traceparent).toBe(given);
    await client.generate({ messages }, { traceparent: "not a traceparent\r\nx-api-key: x" });
    expect(sent[2]?.traceparent).toBeUndefined();
    expect(sent[2]?.["x-api-key"]).toBe(KEY);
  });

  it("a traceContext function adds trace headers only", async () => {
    const { client, sent } = recordingClient({
      traceContext: (headers) => {
        headers.traceparent = `00-${TRACE_ID}-${SPAN_ID}-00`;
        headers.tracestate = "vendor=1";
        headers["x-api-key"] = "stolen";
      },
    });
    await client.generate({ messages });
    expect(sent[0]).toMatchObject({
      traceparent: `00-${TRACE_ID}-${SPAN_ID}-00`,
      tracestate: "vendor=1",
      "x-api-key": KEY,
    });
  });
});

import { startLoopbackServer } from "./loopback-server.js";

/** What the fake upstream does with the next chat completion request. */
export type UpstreamBehaviour =
  | { kind: "reply"; text: string; delayMs?: number }
  /**
   * A deterministic model: the same request gives the same text, which
   * names the request's `seed` and `temperature` (or says there were none).
   */
  | { kind: "deterministic" }
  /**
   * A scripted model: each request's answer is computed from its body — a
   * text (200), or an HTTP status to fail with.
   */
  | {
      kind: "respond";
      answer: (body: FakeUpstreamRequest) => { text: string } | { status: number };
    }
  | { kind: "status"; status: number; headers?: Record<string, string> }
  | { kind: "hang" }
  /** Closes the connection without answering (the client sees a reset). */
  | { kind: "reset" }
  /** Answers 200 with a body that is not valid JSON. */
  | { kind: "malformed" }
  /** Answers 200 with a completion that carries no text. */
  | { kind: "empty"; shape: "blank-text" | "no-choices" | "null-content" };

/** The body of a chat completion request, as the fake upstream records it. */
export interface FakeUpstreamRequest {
  model: string;
  messages: Array<{ role: string; content: string }>;
  temperature?: number;
  seed?: number;
}

/**
 * A fake model upstream speaking the chat completions protocol over real
 * HTTP on a loopback port: a test double for the OpenAI-compatible provider.
 */
export interface FakeUpstream {
  /** Base URL including `/v1`, as the provider expects. */
  baseUrl: string;
  /** Bodies of the requests received, in order. */
  requests: FakeUpstreamRequest[];
  /** Authorization headers received, to check the upstream key is sent. */
  authorizations: string[];
  /** W3C `traceparent` headers received ("" when absent), to check traces reach the upstream. */
  traceparents: string[];
  behaviour: UpstreamBehaviour;
  /** Requests whose client closed the connection before the upstream answered (aborted calls). */
  abandoned: number;
  close(): Promise<void>;
}

/** Starts a fake chat completions server on 127.0.0.1 with a random port. */
export async function startFakeUpstream(): Promise<FakeUpstream> {
  const upstream: FakeUpstream = {
    baseUrl: "",
    requests: [],
    authorizations: [],
    traceparents: [],
    behaviour: { kind: "reply", text: "Hello from upstream." },
    abandoned: 0,
    close: async () => {},
  };
  const server = await startLoopbackServer((request, raw, response) => {
    const body = JSON.parse(raw) as FakeUpstreamRequest;
    upstream.requests.push(body);
    upstream.authorizations.push(request.headers.authorization ?? "");
    const traceparent = request.headers.traceparent;
    upstream.traceparents.push(typeof traceparent === "string" ? traceparent : "");
    let behaviour = upstream.behaviour;
    if (behaviour.kind === "respond") {
      const answer = behaviour.answer(body);
      behaviour =
        "status" in answer
          ? { kind: "status", status: answer.status }
          : { kind: "reply", text: answer.text };
    }
    if (behaviour.kind === "hang") {
      response.once("close", () => {
        if (!response.writableFinished) upstream.abandoned += 1;
      });
      return;
    }
    if (behaviour.kind === "reset") {
      request.socket.resetAndDestroy();
      return;
    }
    if (behaviour.kind === "malformed") {
      response.writeHead(200, { "content-type": "application/json" });
      response.end('{"id":"chatcmpl-fake","choices":[{"message":{"content":"cut sh');
      return;
    }
    if (behaviour.kind === "empty") {
      const message =
        behaviour.shape === "null-content"
          ? { role: "assistant", content: null }
          : { role: "assistant", content: "  " };
      const choices =
        behaviour.shape === "no-choices" ? [] : [{ index: 0, message, finish_reason: "stop" }];
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          id: "chatcmpl-fake",
          object: "chat.completion",
          created: 0,
          model: "fake-model",
          choices,
        }),
      );
      return;
    }
    if (behaviour.kind === "status") {
      response.writeHead(behaviour.status, {
        "content-type": "application/json",
        ...behaviour.headers,
      });
      response.end(
        JSON.stringify({ error: { message: "upstream says no", type: "server_error" } }),
      );
      return;
    }
    const text =
      behaviour.kind === "deterministic"
        ? `A reply sampled with seed ${body.seed ?? "none"} at temperature ${body.temperature ?? "default"}.`
        : behaviour.text;
    const answer = () => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          id: "chatcmpl-fake",
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model: "fake-model",
          choices: [
            {
              index: 0,
              message: { role: "assistant", content: text },
              finish_reason: "stop",
            },
          ],
          usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
        }),
      );
    };
    // A slow upstream keeps requests in flight (crash tests).
    if (behaviour.kind === "deterministic" || behaviour.delayMs === undefined) answer();
    else setTimeout(answer, behaviour.delayMs);
  });
  upstream.baseUrl = `${server.origin}/v1`;
  upstream.close = server.close;
  return upstream;
}

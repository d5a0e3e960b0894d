import { startLoopbackServer } from "./loopback-server.js";

/** What the fake Messages API does with the next request. */
export type MessagesBehaviour =
  | {
      kind: "reply";
      text: string;
      /** Reported usage (default 21 input, 7 output tokens). */
      usage?: { input_tokens: number; output_tokens: number };
      delayMs?: number;
    }
  /** An error in the API's format, e.g. 529 `overloaded_error` or 400 `invalid_request_error`. */
  | { kind: "error"; status: number; type: string }
  | { kind: "hang" };

/** One request the fake received: the Messages API body and the headers that matter. */
export interface MessagesRequest {
  body: {
    model: string;
    max_tokens: number;
    system?: string;
    temperature?: number;
    messages: Array<{ role: "user" | "assistant"; content: string }>;
  };
  /** The key the SDK sent: its `x-api-key` header, or the token of `Authorization: Bearer`. */
  apiKey: string;
  anthropicVersion: string;
}

/**
 * A fake upstream speaking Anthropic's Messages API (`POST /v1/messages`)
 * over real HTTP on a loopback port, refusing (400 `invalid_request_error`)
 * turns that do not start with the user or do not alternate, as the API does: a test double for the Anthropic
 * provider, driven through the official `@anthropic-ai/sdk` as production
 * code drives the real API.
 */
export interface FakeAnthropicUpstream {
  /** Origin without `/v1`, as the SDK's `baseURL` expects. */
  baseUrl: string;
  requests: MessagesRequest[];
  behaviour: MessagesBehaviour;
  close(): Promise<void>;
}

/** Starts a fake Messages API on 127.0.0.1 with a random port. */
export async function startFakeAnthropicUpstream(): Promise<FakeAnthropicUpstream> {
  const upstream: FakeAnthropicUpstream = {
    baseUrl: "",
    requests: [],
    behaviour: { kind: "reply", text: "Hello from Claude." },
    close: async () => {},
  };
  const server = await startLoopbackServer((request, raw, response) => {
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json", "request-id": "req_fake" });
      response.end(JSON.stringify(body));
    };
    if (request.method !== "POST" || request.url !== "/v1/messages") {
      send(404, { type: "error", error: { type: "not_found_error", message: "not found" } });
      return;
    }
    const body = JSON.parse(raw) as MessagesRequest["body"];
    upstream.requests.push({
      body,
      apiKey:
        request.headers["x-api-key"]?.toString() ??
        request.headers.authorization?.replace(/^Bearer /u, "") ??
        "",
      anthropicVersion: String(request.headers["anthropic-version"] ?? ""),
    });
    // The real API's rules of the turns: a user turn first, roles alternating.
    const roles = body.messages.map((message) => message.role);
    const problem =
      roles[0] !== "user"
        ? 'messages: first message must use the "user" role'
        : roles.some((role, index) => index > 0 && role === roles[index - 1])
          ? 'messages: roles must alternate between "user" and "assistant"'
          : undefined;
    if (problem !== undefined) {
      send(400, { type: "error", error: { type: "invalid_request_error", message: problem } });
      return;
    }
    const behaviour = upstream.behaviour;
    if (behaviour.kind === "hang") return;
    if (behaviour.kind === "error") {
      send(behaviour.status, {
        type: "error",
        error: { type: behaviour.type, message: "the fake upstream says no" },
      });
      return;
    }
    const answer = () =>
      send(200, {
        id: "msg_fake",
        type: "message",
        role: "assistant",
        model: body.model,
        content: [{ type: "text", text: behaviour.text }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: behaviour.usage ?? { input_tokens: 21, output_tokens: 7 },
      });
    if (behaviour.delayMs === undefined) answer();
    else setTimeout(answer, behaviour.delayMs);
  });
  upstream.baseUrl = server.origin;
  upstream.close = server.close;
  return upstream;
}

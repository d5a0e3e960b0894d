// A reference of the benchmark: an OpenAI-compatible chat completions upstream
// that answers at once (the real protocol over HTTP, a fixed reply and usage),
// so a provider path measures the gateway's own cost, not a model's.
import http from "node:http";

const answer = JSON.stringify({
  id: "chatcmpl-bench",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "bench-model",
  choices: [
    {
      index: 0,
      message: {
        role: "assistant",
        content: "Basil, thyme and chives grow well on a sunny balcony.",
      },
      finish_reason: "stop",
    },
  ],
  usage: { prompt_tokens: 42, completion_tokens: 12, total_tokens: 54 },
});

const server = http.createServer((request, response) => {
  request.resume();
  request.on("end", () => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(answer);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));

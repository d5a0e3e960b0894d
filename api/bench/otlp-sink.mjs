// A reference of the tracing benchmark: an OTLP/HTTP trace receiver that
// accepts every export (POST /v1/traces, read whole and answered 200 `{}`),
// so the traced service pays the full cost of exporting but nothing waits
// on a real collector. It counts the bytes it received (printed on SIGTERM).
import http from "node:http";

let bytes = 0;
let exports = 0;
const server = http.createServer((request, response) => {
  request.on("data", (chunk) => {
    bytes += chunk.length;
  });
  request.on("end", () => {
    exports += 1;
    response.writeHead(request.url === "/v1/traces" ? 200 : 404, {
      "content-type": "application/json",
    });
    response.end("{}");
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`);
});
process.on("SIGTERM", () => {
  process.stderr.write(`otlp-sink: ${exports} exports, ${bytes} bytes\n`);
  server.close(() => process.exit(0));
});

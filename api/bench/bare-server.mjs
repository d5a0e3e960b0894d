// The baseline of the benchmark: a bare node:http handler that reads a JSON
// body, parses it and answers JSON — the floor any framework adds to.
import http from "node:http";

const server = http.createServer((request, response) => {
  let raw = "";
  request.setEncoding("utf8");
  request.on("data", (chunk) => {
    raw += chunk;
  });
  request.on("end", () => {
    const body = JSON.parse(raw);
    const payload = JSON.stringify({ status: "success", result: { echoed: body.messages.length } });
    response.writeHead(200, { "content-type": "application/json" });
    response.end(payload);
  });
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));

// A reference of the benchmark: a minimal express 5 route that parses a JSON
// body and answers JSON — what the framework under the service costs by itself.
import express from "express";

const app = express();
app.disable("x-powered-by");
app.post("/api/v1/generate", express.json(), (request, response) => {
  response.json({ status: "success", result: { echoed: request.body.messages.length } });
});
const server = app.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));

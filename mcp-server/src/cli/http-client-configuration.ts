import { HTTP_TOKEN_VARIABLE } from "./parse-arguments.js";

/** How the HTTP transport's token was chosen, for {@link httpClientConfiguration}. */
export type TokenOrigin =
  /** Made at this start: the snippet shows it (the only time it is shown). */
  | { kind: "generated"; token: string }
  /** Given in {@link HTTP_TOKEN_VARIABLE}: the snippet names the variable, never repeats the value. */
  | { kind: "environment" }
  /** `--no-auth`: no header. */
  | { kind: "none" };

/**
 * The text `persona-mcp --http` prints at start (to standard error): an
 * `mcpServers` entry in the JSON shape Claude Code's `.mcp.json`, Cursor
 * and other clients read (`type`, `url`, `headers`), with the
 * `Authorization: Bearer …` header the server requires. A generated token
 * appears here and nowhere else; a token from the environment appears as
 * `${PERSONA_MCP_HTTP_TOKEN}`, which Claude Code expands.
 *
 * @param url - the endpoint, e.g. `http://127.0.0.1:8788/mcp`
 * @example
 * process.stderr.write(httpClientConfiguration(endpoint.url, { kind: "generated", token }));
 */
export function httpClientConfiguration(url: string, origin: TokenOrigin): string {
  const entry: Record<string, unknown> = { type: "http", url };
  if (origin.kind !== "none") {
    const token = origin.kind === "generated" ? origin.token : `\${${HTTP_TOKEN_VARIABLE}}`;
    entry.headers = { Authorization: `Bearer ${token}` };
  }
  const snippet = JSON.stringify({ mcpServers: { persona: entry } }, null, 2);
  const intro =
    origin.kind === "generated"
      ? `MCP client configuration (the token is shown only now and changes at every start; set ${HTTP_TOKEN_VARIABLE} to keep one):`
      : origin.kind === "environment"
        ? `MCP client configuration (the token is the one in ${HTTP_TOKEN_VARIABLE}):`
        : "MCP client configuration (no token: --no-auth):";
  return `${intro}\n${snippet}\n`;
}

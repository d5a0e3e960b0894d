import { describe, expect, it } from "vitest";
import { httpClientConfiguration } from "./http-client-configuration.js";

const URL_OF_ENDPOINT = "http://127.0.0.1:8788/mcp";

function entryOf(text: string): unknown {
  return JSON.parse(text.slice(text.indexOf("{"))).mcpServers.persona;
}

describe("httpClientConfiguration", () => {
  it("shows a generated token in the Authorization header of an mcpServers entry", () => {
    const text = httpClientConfiguration(URL_OF_ENDPOINT, { kind: "generated", token: "t0k3n" });
    expect(entryOf(text)).toEqual({
      type: "http",
      url: URL_OF_ENDPOINT,
      headers: { Authorization: "Bearer t0k3n" },
    });
    expect(text).toMatch(/shown only now/u);
  });

  it("names the variable for a token from the environment, and has no header with --no-auth", () => {
    expect(entryOf(httpClientConfiguration(URL_OF_ENDPOINT, { kind: "environment" }))).toEqual({
      type: "http",
      url: URL_OF_ENDPOINT,
      headers: { Authorization: `Bearer $\{PERSONA_MCP_HTTP_TOKEN}` },
    });
    expect(entryOf(httpClientConfiguration(URL_OF_ENDPOINT, { kind: "none" }))).toEqual({
      type: "http",
      url: URL_OF_ENDPOINT,
    });
  });
});

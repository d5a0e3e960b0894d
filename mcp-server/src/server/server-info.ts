/** The name this server gives in the MCP `initialize` handshake (`serverInfo.name`). */
export const SERVER_NAME = "persona-mcp";

/** Version of `@persona-reply/mcp-server`, given as `serverInfo.version`; kept equal to package.json by a test. */
export const SERVER_VERSION = "0.1.0";

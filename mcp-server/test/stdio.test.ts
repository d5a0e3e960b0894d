import { connectStdio } from "./support/mcp-connection.js";
import { defineToolSuite } from "./support/tool-suite.js";

// The SDK's StdioClientTransport spawns the built persona-mcp, as Claude
// Code, Codex and other agents do.
defineToolSuite("stdio", connectStdio);

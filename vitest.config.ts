import fs from "node:fs";
import { defineConfig } from "vitest/config";

// The MCP SDK's Streamable HTTP client imports eventsource-parser, which ships
// TypeScript under a "source" export condition; the conditions below select
// it (Node gets them too), so that one SDK file is inlined for vite to compile
// it and eventsource-parser. Its sourcemap names sources the SDK does not ship,
// so it is loaded without it (vite would print a warning otherwise).
const MCP_STREAMABLE_HTTP_CLIENT =
  /@modelcontextprotocol\/sdk\/dist\/esm\/client\/streamableHttp\.js$/u;

export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  plugins: [
    {
      name: "mcp-sdk-client-without-sourcemap",
      load(id) {
        if (!MCP_STREAMABLE_HTTP_CLIENT.test(id)) return null;
        return fs.readFileSync(id, "utf8").replace(/\/\/# sourceMappingURL=\S+\s*$/u, "");
      },
    },
  ],
  test: {
    include: ["*/src/**/*.test.ts", "*/test/**/*.test.ts", "example-app/server/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    server: { deps: { inline: [MCP_STREAMABLE_HTTP_CLIENT, "eventsource-parser"] } },
  },
});

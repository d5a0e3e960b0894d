import { defineConfig } from "vitest/config";

// Workspace packages export their TypeScript source under the
// "@persona-reply/source" condition, so tests run against src/ without a
// build; a name of our own keeps third-party packages' conditions out.
const SOURCE_CONDITION = "@persona-reply/source";

export default defineConfig({
  resolve: { conditions: [SOURCE_CONDITION] },
  ssr: { resolve: { conditions: [SOURCE_CONDITION] } },
  test: {
    include: ["*/src/**/*.test.ts", "*/test/**/*.test.ts", "example-app/server/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});

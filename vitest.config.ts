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
    // Guards against a hang, not timings: many tests run the real service and
    // persona-admin as processes (seconds each on two busy cores).
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
  },
});

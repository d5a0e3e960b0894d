#!/usr/bin/env node
import { loadConfig, missingVariables, StartupConfigError } from "./config.js";
import { jsonLogger } from "./logger.js";
import { startServer } from "./server.js";

/** Starts the example server: config → HTTP → graceful shutdown on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof StartupConfigError) {
      process.stderr.write(`example-app: configuration error: ${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  const log = jsonLogger();
  const server = await startServer(config, { log });
  const missing = missingVariables(config);
  if (missing.length > 0) {
    log("warn", "not configured: the routes answer a config error until these are set", {
      missing,
    });
  }
  log("info", "example app is listening", {
    url: server.url,
    service: config.service.ok ? config.service.origin : null,
  });

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log("info", "shutting down", { signal });
    server.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}

main().catch((error: unknown) => {
  process.stderr.write(`example-app: failed to start: ${String(error)}\n`);
  process.exit(1);
});

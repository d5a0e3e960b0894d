#!/usr/bin/env node
import path from "node:path";
import { ConfigError, loadConfig } from "./config/config.js";
import { createServices } from "./create-services.js";
import { asyncStandardOutput, createLogger } from "./logging/logger.js";
import { seedDemo } from "./seed/demo-seed.js";
import { serverTimeouts, startServer } from "./server.js";
import { StorageStartupError } from "./storage/startup-error.js";

/** Starts the service: config → store and migrations → demo seed → HTTP → graceful shutdown. */
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`persona-reply: configuration error: ${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  const output = asyncStandardOutput();
  const logger = createLogger(config.PERSONA_LOG_LEVEL, output);
  let services: Awaited<ReturnType<typeof createServices>>;
  try {
    services = await createServices(config, logger);
  } catch (error) {
    if (error instanceof StorageStartupError) {
      output.flushSync();
      process.stderr.write(`persona-reply: ${error.message}\n`);
      process.exit(error.exitCode);
    }
    throw error;
  }
  const server = await startServer(services);
  const baseUrl = config.PERSONA_PUBLIC_URL?.replace(/\/$/u, "") ?? server.url;
  if (config.PERSONA_SEED_DEMO) {
    const report = await seedDemo(services, baseUrl);
    logger.info(
      { envFile: path.resolve(report.envFile), personaId: report.personaId },
      report.seeded
        ? "seeded the demo account, persona and key; SERVICE_* values written to the env file"
        : "demo already seeded",
    );
  }
  logger.info(
    { url: server.url, api: `${baseUrl}/api/v1`, health: `${server.url}/healthz` },
    "Persona Reply is listening",
  );

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    // The drain is bounded (server.ts); closing the store after it must be too.
    setTimeout(() => {
      logger.error({ signal }, "shutdown did not finish in time; exiting");
      output.flushSync();
      process.exit(1);
    }, serverTimeouts(config).drain + 10_000).unref();
    server.stop().then(
      () => {
        output.flushSync();
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        output.flushSync();
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}

main().catch((error: unknown) => {
  process.stderr.write(`persona-reply: failed to start: ${String(error)}\n`);
  process.exit(1);
});

#!/usr/bin/env node
import { API_VERSION } from "@persona-reply/shared";
import { CommanderError } from "commander";
import { ConfigError, loadConfig } from "../config/config.js";
import { createLogger } from "../logging/logger.js";
import { StorageStartupError } from "../storage/startup-error.js";
import { createAdminProgram } from "./admin-program.js";
import { deferServices } from "./deferred-services.js";

/** How long an operator command waits for the database (a lock held elsewhere, a slow server). */
const ADMIN_STORAGE_TIMEOUT_MS = 60_000;

/** Opens the store and the services for a command, once its arguments are parsed. */
async function openServices() {
  const config = loadConfig();
  // Loaded here, not at the top: `--help` and argument errors do not load the service.
  const { createServices } = await import("../create-services.js");
  return createServices(config, createLogger("silent"), {
    // An operator command waits politely for a lock another process holds, and says so.
    storageTimeoutMs: Math.max(config.PERSONA_STORAGE_TIMEOUT_MS, ADMIN_STORAGE_TIMEOUT_MS),
    // The service's OTEL_* settings are about requests: a command traces nothing.
    tracing: false,
    onStorageWaiting: () =>
      process.stderr.write(
        "persona-admin: waiting for the database: another process holds its write lock (the service commits, a backup or a sqlite3 shell); giving up after 60 s\n",
      ),
  });
}

/**
 * `persona-admin`: the operator CLI, on the store named by
 * PERSONA_DATABASE_URL. The configuration is read and the store opened only
 * when a command runs: `--help`, `--version` and argument errors have no
 * side effects.
 */
async function main(): Promise<number> {
  const deferred = deferServices(openServices);
  const program = createAdminProgram(deferred.services, {
    out: (text) => process.stdout.write(text.endsWith("\n") ? text : `${text}\n`),
    error: (text) => process.stderr.write(text.endsWith("\n") ? text : `${text}\n`),
    ...(process.stderr.isTTY
      ? { progress: (text: string) => process.stderr.write(`\r${text}\u001b[K`) }
      : {}),
  }).version(API_VERSION);
  program.hook("preAction", async () => {
    await deferred.open();
  });
  try {
    await program.parseAsync(process.argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code.startsWith("commander.")) return error.exitCode;
      process.stderr.write(`persona-admin: ${error.message}\n`);
      return error.exitCode;
    }
    throw error;
  } finally {
    const services = deferred.opened();
    if (services !== undefined) {
      await services.billing.close();
      await services.database.destroy();
    }
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message =
      error instanceof ConfigError
        ? `configuration error: ${error.message}`
        : error instanceof Error
          ? error.message
          : String(error);
    process.stderr.write(`persona-admin: ${message}\n`);
    // A bad configuration exits 78 (EX_CONFIG), like the service.
    const code =
      error instanceof ConfigError ? 78 : error instanceof StorageStartupError ? error.exitCode : 1;
    process.exit(code);
  },
);

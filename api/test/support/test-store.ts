import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../src/config/config.js";
import { createServices } from "../../src/create-services.js";
import { createLogger } from "../../src/logging/logger.js";
import type { Persona } from "../../src/personas/persona.js";
import type { PersonaFile } from "../../src/personas/persona-traits.js";
import { readExamplePersona } from "../../src/seed/demo-seed.js";
import type { Services } from "../../src/services.js";

/** An env file that never exists: the test process opens stores without any. */
const NO_ENV_FILE = path.join(os.tmpdir(), `persona-test-${process.pid}-no-env-file`, ".env");

/**
 * The store's services in the test process, without an HTTP server: to
 * set up accounts and keys for spawned service processes sharing the same
 * database, and to check the ledger afterwards.
 */
export async function openStore(
  databaseUrl: string,
  environment: Record<string, string> = {},
): Promise<Services> {
  const config = loadConfig({
    PERSONA_DATABASE_URL: databaseUrl,
    PERSONA_LOG_LEVEL: "silent",
    PERSONA_INSTANCE_ID: "test-process",
    // Never the checkout's ./.env (a trace of its own database): a file no one writes.
    PERSONA_ENV_FILE: NO_ENV_FILE,
    ...environment,
  });
  return createServices(config, createLogger("silent"));
}

/** Closes what {@link openStore} opened. */
export async function closeStore(services: Services | undefined): Promise<void> {
  await services?.billing.close();
  await services?.store.close();
}

/** A customer made directly in the store: an account with a balance, a persona and a key. */
export interface StoreCustomer {
  accountId: string;
  persona: Persona;
  keyId: string;
  key: string;
}

/** Creates a {@link StoreCustomer}. */
export async function createCustomer(
  services: Services,
  options: {
    balanceMicros: number;
    limits?: { minute?: number; hour?: number; day?: number };
    persona?: Partial<PersonaFile>;
  },
): Promise<StoreCustomer> {
  const account = await services.accounts.create("Test customer");
  if (options.balanceMicros > 0) {
    await services.billing.balances.topUp(account.id, options.balanceMicros, "test funds");
  }
  const persona = await services.personas.create(account.id, {
    ...readExamplePersona(),
    ...options.persona,
  });
  const { record, key } = await services.keys.create(account.id, "test key");
  if (options.limits !== undefined)
    await services.billing.limits.setForKey(record.id, options.limits);
  return { accountId: account.id, persona, keyId: record.id, key };
}

/** Runs tasks with at most `concurrency` at once; resolves when all have settled. */
export async function runWithConcurrency<T>(
  tasks: ReadonlyArray<() => Promise<T>>,
  concurrency: number,
): Promise<Array<PromiseSettledResult<T>>> {
  const results: Array<PromiseSettledResult<T>> = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next;
      next += 1;
      const task = tasks[index];
      if (task === undefined) continue;
      try {
        results[index] = { status: "fulfilled", value: await task() };
      } catch (error) {
        results[index] = { status: "rejected", reason: error };
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

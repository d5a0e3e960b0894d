import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../src/config/config.js";
import { createServices, type ServiceOverrides } from "../../src/create-services.js";
import { createLogger } from "../../src/logging/logger.js";
import type { Persona } from "../../src/personas/persona.js";
import { readExamplePersona } from "../../src/seed/demo-seed.js";
import { type RunningServer, startServer } from "../../src/server.js";
import type { Services } from "../../src/services.js";

/** A service running in-process on a loopback port with its own SQLite file. */
export interface TestService {
  url: string;
  services: Services;
  /** A key of the test account, made fresh for this run (never a fixture). */
  key: string;
  accountId: string;
  /** A persona with /personify access. */
  persona: Persona;
  /** A persona without /personify access. */
  plainPersona: Persona;
  /** POSTs JSON to a path with the test key (or the given headers). */
  post(
    pathname: string,
    body: unknown,
    options?: { headers?: Record<string, string>; raw?: string },
  ): Promise<Response>;
  stop(): Promise<void>;
}

/**
 * Starts the service on port 0 with a fresh SQLite file, one account, two
 * personas (with and without personify access) and a key.
 *
 * @param options - `log` receives every log line (at `PERSONA_LOG_LEVEL`, silent by default);
 *   `overrides` are createServices' test seams
 */
export async function startTestService(
  environment: Record<string, string> = {},
  options: { log?: (line: string) => void; overrides?: ServiceOverrides } = {},
): Promise<TestService> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-api-test-"));
  const config = loadConfig({
    PERSONA_PORT: "0",
    PERSONA_DATABASE_URL: path.join(directory, "store.sqlite"),
    PERSONA_LOG_LEVEL: "silent",
    PERSONA_SEED_DEMO: "false",
    PERSONA_ENV_FILE: path.join(directory, ".env"),
    ...environment,
  });
  const { log } = options;
  const destination = log === undefined ? undefined : { write: (line: string) => log(line) };
  const services = await createServices(
    config,
    createLogger(config.PERSONA_LOG_LEVEL, destination),
    options.overrides,
  );
  const server: RunningServer = await startServer(services);
  const account = await services.accounts.create("Test account");
  const example = readExamplePersona();
  const persona = await services.personas.create(account.id, { ...example, personifyAccess: true });
  const plainPersona = await services.personas.create(account.id, {
    ...example,
    name: "Rowan",
    personifyAccess: false,
  });
  const { record: keyRecord, key } = await services.keys.create(account.id, "test key");
  // Billing and rate limits are always on: fund the test account and raise
  // the test key's limits so suites that are not about billing are never
  // refused. Billing's own tests make fresh accounts and keys.
  await services.billing.balances.topUp(account.id, 1_000_000_000, "test funds");
  await services.billing.limits.setForKey(keyRecord.id, {
    minute: 1_000_000,
    hour: 1_000_000,
    day: 1_000_000,
  });
  return {
    url: server.url,
    services,
    key,
    accountId: account.id,
    persona,
    plainPersona,
    post(pathname, body, options = {}) {
      return fetch(server.url + pathname, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key, ...options.headers },
        body: options.raw ?? JSON.stringify(body),
      });
    },
    async stop() {
      await server.stop();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

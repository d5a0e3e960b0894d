import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { type PersonaFile, personaFileSchema } from "../personas/persona-traits.js";
import type { Services } from "../services.js";
import { readEnvFile, updateEnvFile } from "./env-file.js";

/** Name of the account seeded on first run. */
export const DEMO_ACCOUNT_NAME = "Demo account";

/** Starting balance of the demo account: 100.00 USD in micro-units (a million offline requests). */
export const DEMO_BALANCE_MICROS = 100_000_000;

/**
 * Rate limits of the demo key, raised for local development (spec §8.2);
 * every other key starts at the beta defaults of 25/minute, 100/hour, 500/day.
 */
export const DEMO_RATE_LIMITS = { minute: 1_000, hour: 20_000, day: 200_000 } as const;

/** Reads the example persona file that ships with the service. */
export function readExamplePersona(): PersonaFile {
  const file = fileURLToPath(new URL("../../personas/example-persona.json", import.meta.url));
  return personaFileSchema.parse(JSON.parse(fs.readFileSync(file, "utf8")));
}

/** What seeding did, for the start-up log (never the key). */
export interface SeedReport {
  seeded: boolean;
  envFile: string;
  personaId?: string;
}

/**
 * First run: seeds a demo account, the example persona (with personify
 * access) and a demo key, and writes SERVICE_API_KEY, SERVICE_PERSONA_ID and
 * SERVICE_BASE_URL to the env file (mode 0600) instead of printing the key.
 * Later runs keep SERVICE_BASE_URL following the port, and mint a new demo
 * key only when the env file lost its key.
 */
export async function seedDemo(services: Services, baseUrl: string): Promise<SeedReport> {
  const envFile = services.config.PERSONA_ENV_FILE;
  const accounts = await services.accounts.list();
  const existing = readEnvFile(envFile);
  let demo = accounts.find((account) => account.name === DEMO_ACCOUNT_NAME);
  if (accounts.length > 0 && (demo === undefined || existing.SERVICE_API_KEY !== undefined)) {
    if (fs.existsSync(envFile)) updateEnvFile(envFile, { SERVICE_BASE_URL: baseUrl });
    return { seeded: false, envFile };
  }
  if (demo === undefined) {
    demo = await services.accounts.create(DEMO_ACCOUNT_NAME);
    await services.billing.balances.topUp(demo.id, DEMO_BALANCE_MICROS, "demo balance");
  }
  const persona =
    (await services.personas.list(demo.id))[0] ??
    (await services.personas.create(demo.id, readExamplePersona()));
  const { record, key } = await services.keys.create(demo.id, "demo key");
  await services.billing.limits.setForKey(record.id, DEMO_RATE_LIMITS);
  updateEnvFile(envFile, {
    SERVICE_API_KEY: key,
    SERVICE_PERSONA_ID: persona.id,
    SERVICE_BASE_URL: baseUrl,
  });
  return { seeded: true, envFile, personaId: persona.id };
}

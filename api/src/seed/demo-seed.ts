import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { type PersonaFile, personaFileSchema } from "../personas/persona-traits.js";
import type { Services } from "../services.js";
import { readEnvFile, updateEnvFile } from "./env-file.js";

/** Name of the account seeded on first run. */
export const DEMO_ACCOUNT_NAME = "Demo account";

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
  demo ??= await services.accounts.create(DEMO_ACCOUNT_NAME);
  const persona =
    (await services.personas.list(demo.id))[0] ??
    (await services.personas.create(demo.id, readExamplePersona()));
  const { key } = await services.keys.create(demo.id, "demo key");
  updateEnvFile(envFile, {
    SERVICE_API_KEY: key,
    SERVICE_PERSONA_ID: persona.id,
    SERVICE_BASE_URL: baseUrl,
  });
  return { seeded: true, envFile, personaId: persona.id };
}

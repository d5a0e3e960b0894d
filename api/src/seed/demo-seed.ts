import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { type PersonaFile, personaFileSchema } from "../personas/persona-traits.js";
import { AllowedEmailStore } from "../playground/allowed-email-store.js";
import { type OperatorConsole, operatorConsoleFor } from "../playground/operator-console.js";
import type { Services } from "../services.js";
import { DATABASE_IDENTITY_VARIABLE, readEnvFile, updateEnvFile } from "../storage/env-file.js";

/** Name of the account seeded on first run. */
export const DEMO_ACCOUNT_NAME = "Demo account";

/** Starting balance of the demo account: 100.00 USD in micro-units (a million offline requests). */
export const DEMO_BALANCE_MICROS = 100_000_000;

/**
 * Rate limits of the demo key, raised for local development (docs/API.md §8.2);
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
  /** The address that may sign in to the playground as the demo account, when there is one. */
  demoEmail?: string;
}

/**
 * Allows `PERSONA_DEMO_EMAIL` to sign in to the playground as the demo
 * account, unless it is empty, already allowed for another account, or the
 * operator allowed other addresses for the demo account (their choice is
 * kept). An address the operator removed comes back at the next start only
 * when the demo account has no address left.
 *
 * @returns the address when it may sign in to the demo account
 */
async function allowDemoEmail(services: Services, accountId: string): Promise<string | undefined> {
  const address = services.config.PERSONA_DEMO_EMAIL;
  if (address === null) return undefined;
  const emails = new AllowedEmailStore(services.database);
  const holder = await emails.find(address);
  if (holder !== undefined) return holder.accountId === accountId ? address : undefined;
  if ((await emails.list(accountId)).length > 0) return undefined;
  await emails.allow(address, accountId);
  return address;
}

/** Tells the operator, on the console, which address signs in to the demo account and where. */
function announceDemoEmail(
  services: Services,
  baseUrl: string,
  demoEmail: string | undefined,
  operatorConsole: OperatorConsole,
): void {
  if (demoEmail === undefined) return;
  const delivery =
    services.config.PERSONA_SMTP_URL === undefined
      ? "; no SMTP server is configured, so the sign-in link is printed on this console"
      : "";
  operatorConsole(
    `playground sign-in for the demo account: ${demoEmail} at ${baseUrl}/sign-in${delivery}`,
  );
}

/**
 * First run: seeds a demo account, the example persona (with personify
 * access) and a demo key, and writes SERVICE_API_KEY, SERVICE_PERSONA_ID,
 * SERVICE_BASE_URL and SERVICE_DATABASE (the database the key is of: the
 * SQLite file's absolute path, or the PostgreSQL URL with its password
 * masked) to the env file (mode 0600) instead of printing the key.
 * Later runs keep SERVICE_BASE_URL following the port, add SERVICE_DATABASE
 * to a file written before it existed when its key is of this database, and
 * mint a new demo key only when the env file lost its key. Every run allows
 * `PERSONA_DEMO_EMAIL` to sign in to the playground as the demo account
 * (see {@link allowDemoEmail}) and prints that address on the console.
 *
 * @param operatorConsole - where the plain line for the operator goes; standard error unless the log is silent
 */
export async function seedDemo(
  services: Services,
  baseUrl: string,
  operatorConsole: OperatorConsole = operatorConsoleFor(services.logger),
): Promise<SeedReport> {
  const envFile = services.config.PERSONA_ENV_FILE;
  const accounts = await services.accounts.list();
  const existing = readEnvFile(envFile);
  let demo = accounts.find((account) => account.name === DEMO_ACCOUNT_NAME);
  const database = services.store.location;
  if (accounts.length > 0 && (demo === undefined || existing.SERVICE_API_KEY !== undefined)) {
    if (fs.existsSync(envFile)) {
      // A file written before it named its database learns it here, once its key proves to be of this one.
      const names =
        existing[DATABASE_IDENTITY_VARIABLE] === undefined &&
        existing.SERVICE_API_KEY !== undefined &&
        (await services.keys.findByKey(existing.SERVICE_API_KEY)) !== undefined;
      updateEnvFile(envFile, {
        SERVICE_BASE_URL: baseUrl,
        ...(names ? { [DATABASE_IDENTITY_VARIABLE]: database } : {}),
      });
    }
    const demoEmail = demo === undefined ? undefined : await allowDemoEmail(services, demo.id);
    announceDemoEmail(services, baseUrl, demoEmail, operatorConsole);
    return demoEmail === undefined
      ? { seeded: false, envFile }
      : { seeded: false, envFile, demoEmail };
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
    [DATABASE_IDENTITY_VARIABLE]: database,
  });
  const demoEmail = await allowDemoEmail(services, demo.id);
  announceDemoEmail(services, baseUrl, demoEmail, operatorConsole);
  return demoEmail === undefined
    ? { seeded: true, envFile, personaId: persona.id }
    : { seeded: true, envFile, personaId: persona.id, demoEmail };
}

import fs from "node:fs";
import { Command, CommanderError } from "commander";
import { describeTarget, type ModelRoute } from "../personas/model-route.js";
import type { Persona } from "../personas/persona.js";
import { personaFileSchema } from "../personas/persona-traits.js";
import type { Services } from "../services.js";
import type { AdminOutput } from "./admin-output.js";
import { addApplicationCommands, mailPersonaToApplicant } from "./application-commands.js";
import { addBackupCommand } from "./backup-command.js";
import { addBillingCommands } from "./billing-commands.js";
import { registerEmailCommands } from "./email-commands.js";
import { addEvaluationCommands } from "./evaluation-commands.js";
import { addMigrateCommand } from "./migrate-command.js";
import { addPersonaCanaryCommands } from "./persona-canary-commands.js";
import { addPersonaSampleCommands } from "./persona-sample-commands.js";
import {
  addPersonaVersionCommands,
  applyFileAccess,
  describeVersion,
  operatorName,
  parseVersion,
} from "./persona-version-commands.js";
import { parseReleaseNote, RELEASE_NOTE_HELP } from "./release-note-option.js";
import { collectRouteTarget, requireServableRoute, requireValidRoute } from "./route-options.js";
import { addStorageCommands } from "./storage-commands.js";

function readPersonaFile(file: string) {
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (error) {
    throw new CommanderError(1, "persona.file", `cannot read ${file}: ${(error as Error).message}`);
  }
  const result = personaFileSchema.safeParse(data);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new CommanderError(
      1,
      "persona.invalid",
      `${file}: ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid persona file"}`,
    );
  }
  return result.data;
}

function describePersona(persona: Persona) {
  return {
    id: persona.id,
    accountId: persona.accountId,
    name: persona.name,
    version: persona.version,
    personifyAccess: persona.personifyAccess,
    route: persona.route.map(describeTarget),
    selfServePriceMicros: persona.selfServePriceMicros ?? null,
    traits: persona.traits,
  };
}

async function requireAccount(services: Services, id: string): Promise<void> {
  if ((await services.accounts.find(id)) === undefined) {
    throw new CommanderError(1, "account.unknown", `no account with ID ${id}`);
  }
}

async function requirePersona(services: Services, id: string): Promise<Persona> {
  const persona = await services.personas.find(id);
  if (persona === undefined)
    throw new CommanderError(1, "persona.unknown", `no persona with ID ${id}`);
  return persona;
}

/**
 * Builds the operator CLI `persona-admin` (onboarding: access applications,
 * accounts, personas, personify access, keys). Keys are printed once, or written to a file with
 * mode 0600 by `--out`; lists show only the masked form.
 */
export function createAdminProgram(services: Services, output: AdminOutput): Command {
  const print = (value: unknown) =>
    output.out(typeof value === "string" ? value : JSON.stringify(value, null, 2));
  const program = new Command("persona-admin")
    .description("Operator tool of the Persona Reply service")
    .exitOverride()
    // The program's own options (--version, --help) only before a command, so
    // a command's option of the same name (`persona eval --version N`) is its own.
    .enablePositionalOptions()
    .configureOutput({ writeOut: output.out, writeErr: output.error });

  const account = program.command("account").description("manage accounts");
  account
    .command("create")
    .argument("<name>", "display name of the customer")
    .description("create an active account; prints its ID")
    .action(async (name: string) => print((await services.accounts.create(name)).id));
  account
    .command("list")
    .description("list accounts as JSON")
    .action(async () => print(await services.accounts.list()));

  const persona = program.command("persona").description("manage personas");
  const routeHelp =
    "a model target upstream:model; repeat for fallbacks, tried in order (replaces the file's route)";
  const forceHelp =
    "set a route even though a running instance lacks its upstreams (it answers 503 for the persona); kept in the version's note";
  persona
    .command("create")
    .requiredOption("--account <id>", "owning account")
    .requiredOption("--file <path>", "persona file (JSON, see api/personas/example-persona.json)")
    .option("--route <upstream:model>", routeHelp, collectRouteTarget)
    .option("--note <text>", "a note kept with version 1")
    .option("--release-note <text>", RELEASE_NOTE_HELP, parseReleaseNote)
    .option("--force", forceHelp)
    .description("create a persona from a traits file (its version 1); prints the persona ID")
    .action(
      async (options: {
        account: string;
        file: string;
        route?: ModelRoute;
        note?: string;
        releaseNote?: string;
        force?: boolean;
      }) => {
        const file = readPersonaFile(options.file);
        const { route, forced } = await requireServableRoute(
          services,
          options.route ?? file.route,
          { force: options.force === true, warn: output.error },
        );
        await requireAccount(services, options.account);
        const created = await services.personas.create(
          options.account,
          { ...file, route },
          {
            note: options.note ?? null,
            releaseNote: options.releaseNote ?? null,
            createdBy: operatorName(),
            ...(forced === undefined ? {} : { forced }),
          },
        );
        print(created.id);
        await mailPersonaToApplicant(services, output, created);
      },
    );
  persona
    .command("update")
    .argument("<personaId>")
    .option("--file <path>", "persona file (JSON): replaces name, traits, access and route")
    .option("--route <upstream:model>", routeHelp, collectRouteTarget)
    .option("--note <text>", "why: kept with the new version")
    .option("--release-note <text>", RELEASE_NOTE_HELP, parseReleaseNote)
    .option("--draft", "make the new version a draft that serves nothing until `persona promote`")
    .option("--force", forceHelp)
    .description(
      "make a new version of a persona's name, traits and route (live at once unless --draft); /personify access from --file applies at once",
    )
    .action(
      async (
        id: string,
        options: {
          file?: string;
          route?: ModelRoute;
          note?: string;
          releaseNote?: string;
          draft?: boolean;
          force?: boolean;
        },
      ) => {
        if (options.file === undefined && options.route === undefined) {
          throw new CommanderError(1, "persona.update", "give --file, --route, or both");
        }
        const file = options.file === undefined ? undefined : readPersonaFile(options.file);
        const draft = options.draft === true;
        // An invalid route is refused before the persona is looked up.
        const asked = requireValidRoute(options.route ?? file?.route ?? []);
        const live = await requirePersona(services, id);
        const { route, forced } = await requireServableRoute(services, asked, {
          force: options.force === true,
          draft,
          current: live.route,
          warn: output.error,
        });
        const outcome = await services.personas.revise(
          id,
          file === undefined ? { route } : { name: file.name, traits: file.traits, route },
          {
            note: options.note ?? null,
            releaseNote: options.releaseNote ?? null,
            createdBy: operatorName(),
            draft,
            ...(forced === undefined ? {} : { forced }),
          },
        );
        if (file !== undefined) {
          await applyFileAccess(services, output.error, live, file.personifyAccess, draft);
        }
        if (outcome?.kind === "unchanged") {
          output.error(
            `persona ${id}: name, traits, route and release note equal the live version ${outcome.live.version}; no version made`,
          );
        }
        if (draft && outcome?.kind === "created") {
          print(describeVersion(outcome.version));
          output.error(
            `draft version ${outcome.version.version} made; it serves nothing until: persona-admin persona promote ${id} ${outcome.version.version}`,
          );
          return;
        }
        const updated = await services.personas.load(id);
        if (updated !== undefined) print(describePersona(updated));
      },
    );
  persona
    .command("show")
    .argument("<personaId>")
    .option("--version <n>", "one version (a number, live or draft) with its note and changes")
    .description("show a persona as JSON (the live version), or one of its versions")
    .action(async (id: string, options: { version?: string }) => {
      const persona = await requirePersona(services, id);
      if (options.version === undefined) {
        print(describePersona(persona));
        return;
      }
      const at = parseVersion(options.version, true);
      const number =
        at === "live"
          ? persona.version
          : at === "draft"
            ? (await services.personas.findVersion(id, "draft"))?.version
            : at;
      const version =
        number === undefined ? undefined : await services.personas.version(id, number);
      if (version === undefined) {
        throw new CommanderError(
          1,
          "persona.unknown_version",
          `persona ${id} has no ${at === "draft" ? "draft" : `version ${options.version}`}`,
        );
      }
      print(describeVersion(version));
    });
  persona
    .command("list")
    .option("--account <id>", "only this account's personas")
    .description("list personas as JSON")
    .action(async (options: { account?: string }) =>
      print((await services.personas.list(options.account)).map(describePersona)),
    );
  addPersonaVersionCommands(persona, services, print, output.error);
  addPersonaCanaryCommands(persona, services, print, output.error);
  addPersonaSampleCommands(persona, services, print);
  for (const [command, allowed] of [
    ["grant-personify", true],
    ["revoke-personify", false],
  ] as const) {
    persona
      .command(command)
      .argument("<personaId>")
      .description(`${allowed ? "grant" : "withdraw"} access to /personify`)
      .action(async (id: string) => {
        await requirePersona(services, id);
        await services.personas.setPersonifyAccess(id, allowed);
        print(`personify access ${allowed ? "granted" : "withdrawn"} for ${id}`);
      });
  }

  const key = program.command("key").description("manage API keys");
  key
    .command("create")
    .requiredOption("--account <id>", "owning account")
    .option("--name <name>", "display name of the key", "operator key")
    .option("--out <file>", "write the key to this file (mode 0600) instead of printing it")
    .description("create an API key; printed once (or written to --out), stored only as a hash")
    .action(async (options: { account: string; name: string; out?: string }) => {
      await requireAccount(services, options.account);
      const { record, key: plaintext } = await services.keys.create(options.account, options.name);
      if (options.out === undefined) {
        print(plaintext);
        output.error(`key ${record.id} created; this is the only time it is shown`);
      } else {
        fs.writeFileSync(options.out, `${plaintext}\n`, { mode: 0o600, flag: "wx" });
        print(`key ${record.id} (${record.masked}) written to ${options.out}`);
      }
    });
  key
    .command("list")
    .option("--account <id>", "only this account's keys")
    .description("list keys (masked) as JSON")
    .action(async (options: { account?: string }) =>
      print(await services.keys.list(options.account)),
    );
  key
    .command("revoke")
    .argument("<keyId>")
    .description("revoke a key; requests with it get 401 from then on")
    .action(async (id: string) => {
      if (!(await services.keys.revoke(id))) {
        throw new CommanderError(1, "key.unknown", `no active key with ID ${id}`);
      }
      print(`key ${id} revoked`);
    });
  addEvaluationCommands(persona, services, output);
  registerEmailCommands(program, services, output);
  addApplicationCommands(program, services, output);
  addBillingCommands(program, services, { print });
  // `services` is opened only when a command runs (cli.ts): the store is read in the action.
  addBackupCommand(program, () => services.store, print);
  addMigrateCommand(program, () => services.store, print);
  addStorageCommands(program, services, print);
  return program;
}

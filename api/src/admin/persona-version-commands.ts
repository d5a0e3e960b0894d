import os from "node:os";
import { type Command, CommanderError } from "commander";
import { describeTarget } from "../personas/model-route.js";
import type { Persona, PersonaVersion } from "../personas/persona.js";
import { PersonaVersionError, type VersionSelector } from "../personas/persona-versions.js";
import type { Services } from "../services.js";
import { textTable } from "./admin-output.js";
import { personaCall } from "./persona-call.js";
import { personaDiff } from "./persona-diff.js";
import { parseReleaseNote } from "./release-note-option.js";
import { requireServableRoute, type ServableRoute } from "./route-options.js";

/** Parses a version argument: a whole number from 1, or `live` / `draft` where allowed. */
export function parseVersion(text: string, named: boolean): VersionSelector {
  if (named && (text === "live" || text === "draft")) return text;
  if (/^[1-9][0-9]{0,8}$/u.test(text)) return Number(text);
  throw new CommanderError(
    1,
    "persona.version",
    `"${text}" is not a version: give a whole number from 1${named ? ", live or draft" : ""}`,
  );
}

/** The operator who runs persona-admin (the login name), recorded with each version. */
export function operatorName(): string | null {
  try {
    return os.userInfo().username;
  } catch {
    return null;
  }
}

/** A version as `persona history --json` and `persona show --version` print it. */
export function describeVersion(version: PersonaVersion) {
  return { ...version, route: version.route.map(describeTarget) };
}

function historyTable(versions: readonly PersonaVersion[]): string {
  return textTable(
    ["version", "status", "created", "by", "changes", "note", "release note"],
    versions.map((version) => [
      String(version.version),
      version.status,
      version.createdAt.slice(0, 19).replace("T", " "),
      version.createdBy ?? "-",
      version.changes.length === 0 ? "-" : version.changes.join(", "),
      version.note ?? "",
      version.releaseNote ?? "",
    ]),
  );
}

/** Runs a store call, turning a refused version operation into the CLI's error. */
function versionCall<T>(call: () => Promise<T | undefined>, id: string): Promise<T> {
  return personaCall(call, id, PersonaVersionError);
}

async function personaAt(services: Services, id: string, at: VersionSelector): Promise<Persona> {
  if ((await services.personas.find(id)) === undefined) {
    throw new CommanderError(1, "persona.unknown", `no persona with ID ${id}`);
  }
  const persona = await services.personas.findVersion(id, at);
  if (persona === undefined) {
    throw new CommanderError(
      1,
      "persona.unknown_version",
      at === "draft" ? `persona ${id} has no draft` : `persona ${id} has no version ${at}`,
    );
  }
  return persona;
}

/**
 * The route check of a version about to serve customers (`promote`,
 * `rollback`, `canary`):
 * the version's route against every running instance's upstreams
 * ({@link requireServableRoute}); nothing to check when the persona or the
 * version does not exist, or (`drafts`) the version is no draft: the
 * store's call then says so.
 */
export async function checkVersionRoute(
  services: Services,
  id: string,
  version: number,
  options: { force: boolean; warn: (text: string) => void; drafts?: boolean },
): Promise<ServableRoute | undefined> {
  const live = await services.personas.load(id);
  const target = live && (await services.personas.version(id, version));
  if (live === undefined || target === undefined) return undefined;
  if (options.drafts === true && target.status !== "draft") return undefined;
  return requireServableRoute(services, target.route, {
    force: options.force,
    warn: options.warn,
    current: live.route,
  });
}

export const FORCE_HELP =
  "go live even though a running instance lacks the route's upstreams (it answers 503 for the persona); kept in the version's note";

/**
 * Adds the persona version commands to `persona-admin persona`:
 * `history`, `diff`, `promote`, `rollback`. (`update --draft --note` and
 * `show --version` live with `update` and `show` in admin-program.ts.)
 *
 * @param warn - where notices go (standard error): route checks that were forced or ran locally
 */
export function addPersonaVersionCommands(
  persona: Command,
  services: Services,
  print: (value: unknown) => void,
  warn: (text: string) => void = () => undefined,
): void {
  persona
    .command("history")
    .argument("<personaId>")
    .option("--json", "JSON instead of a table")
    .description("list a persona's versions: status, time, author, what changed and the note")
    .action(async (id: string, options: { json?: boolean }) => {
      const versions = await versionCall(() => services.personas.history(id), id);
      print(options.json === true ? versions.map(describeVersion) : historyTable(versions));
    });
  persona
    .command("diff")
    .argument("<personaId>")
    .argument("<from>", "version number, live or draft")
    .argument("<to>", "version number, live or draft")
    .description("show what differs between two versions: route, name and traits, system prompt")
    .action(async (id: string, from: string, to: string) => {
      const before = await personaAt(services, id, parseVersion(from, true));
      const after = await personaAt(services, id, parseVersion(to, true));
      print(personaDiff(before, after));
    });
  persona
    .command("promote")
    .argument("<personaId>")
    .argument("<version>", "the draft to make live")
    .option("--force", FORCE_HELP)
    .description("make a draft the live version; every instance serves it within a second")
    .action(async (id: string, version: string, options: { force?: boolean }) => {
      const number = parseVersion(version, false) as number;
      const check = await checkVersionRoute(services, id, number, {
        force: options.force === true,
        warn,
        drafts: true,
      });
      const promoted = await versionCall(
        () =>
          services.personas.promote(
            id,
            number,
            operatorName(),
            check?.forced === undefined ? {} : { forced: check.forced },
          ),
        id,
      );
      print(`persona ${id}: version ${promoted.version} is live`);
    });
  persona
    .command("rollback")
    .argument("<personaId>")
    .argument("<version>", "the version to return to")
    .option("--note <text>", "why (default: rollback to version N)")
    .option(
      "--release-note <text>",
      "what the customer is told (default: version N's release note)",
      parseReleaseNote,
    )
    .option("--force", FORCE_HELP)
    .description("make a new live version equal to an earlier one")
    .action(async (id: string, version: string, options: RollbackOptions) => {
      const target = parseVersion(version, false) as number;
      const check = await checkVersionRoute(services, id, target, {
        force: options.force === true,
        warn,
      });
      const created = await versionCall(
        () =>
          services.personas.rollback(id, target, {
            note: options.note ?? null,
            // Left out, the store keeps version N's release note.
            ...(options.releaseNote === undefined ? {} : { releaseNote: options.releaseNote }),
            createdBy: operatorName(),
            ...(check?.forced === undefined ? {} : { forced: check.forced }),
          }),
        id,
      );
      print(`persona ${id}: version ${created.version} (equal to version ${target}) is live`);
    });
}

/**
 * Applies a persona file's /personify access at once, apart from any
 * version: access is who may call /personify with the persona (docs/API.md §4.2),
 * not how it speaks, so it is no part of a version, and a draft made from
 * the same file does not carry it to its promotion. Says so (on standard
 * error) when it changed.
 *
 * @param live - the persona as it served before the command
 * @param wanted - the file's `personifyAccess`; absent leaves access as it is
 * @param draft - whether the command made a draft (said, as the draft serves nothing yet)
 */
export async function applyFileAccess(
  services: Services,
  report: (text: string) => void,
  live: Persona,
  wanted: boolean | undefined,
  draft: boolean,
): Promise<void> {
  if (wanted === undefined || wanted === live.personifyAccess) return;
  await services.personas.setPersonifyAccess(live.id, wanted);
  report(
    `persona ${live.id}: /personify access ${wanted ? "granted" : "withdrawn"} at once, as the file says: access is not part of a version${draft ? ", so it does not wait for the draft's promotion" : ""}`,
  );
}

/** The options of `persona rollback`. */
interface RollbackOptions {
  note?: string;
  releaseNote?: string;
  force?: boolean;
}

import type { Command } from "commander";
import { loadProfiles, setActiveProfile } from "../../profiles/profile-store.js";
import type { CliContext } from "../cli-context.js";
import { printJson, printLines } from "../cli-context.js";
import { UsageError } from "../usage-error.js";

/** `persona use <profile>` (docs/API.md §4.4): makes a stored profile the active one. */
export function registerUseCommand(program: Command, context: CliContext): void {
  program
    .command("use")
    .description("make a stored profile the active one")
    .argument("<profile>", "name of the profile (see persona profiles)")
    .option("--json", "print the outcome as JSON")
    .action((name: string, flags: { json?: boolean }) => {
      const store = loadProfiles({ env: context.env });
      if (store.profiles[name] === undefined) {
        const known = Object.keys(store.profiles);
        throw new UsageError(
          `no profile named "${name}"${known.length > 0 ? `; known profiles: ${known.join(", ")}` : "; create one with persona configure --profile <name>"}`,
        );
      }
      setActiveProfile(name, { env: context.env });
      if (flags.json === true) printJson(context, { activeProfile: name });
      else printLines(context, `Now using profile "${name}".`);
    });
}

import type { Command } from "commander";
import { loadProfiles } from "../../profiles/profile-store.js";
import { profilesFilePath } from "../../profiles/profiles-file-path.js";
import { maskApiKey } from "../../settings/mask-api-key.js";
import type { CliContext } from "../cli-context.js";
import { printJson, printLines } from "../cli-context.js";

/**
 * `persona profiles` (docs/API.md §4.4): lists the stored profiles, the active one
 * marked, keys masked.
 */
export function registerProfilesCommand(program: Command, context: CliContext): void {
  program
    .command("profiles")
    .description("list the stored profiles (keys masked)")
    .option("--json", "print the list as JSON")
    .action((flags: { json?: boolean }) => {
      const file = profilesFilePath(context.env);
      const store = loadProfiles({ env: context.env });
      const profiles = Object.entries(store.profiles).map(([name, values]) => ({
        name,
        active: name === store.activeProfile,
        apiKey: values.apiKey === undefined ? null : maskApiKey(values.apiKey),
        personaId: values.personaId ?? null,
        baseUrl: values.baseUrl ?? null,
      }));
      if (flags.json === true) {
        printJson(context, { file, activeProfile: store.activeProfile ?? null, profiles });
        return;
      }
      if (profiles.length === 0) {
        printLines(
          context,
          "No profiles yet. Create one with:",
          "  persona configure --api-key-stdin --persona-id <uuid>",
        );
        return;
      }
      const width = Math.max(...profiles.map((profile) => profile.name.length));
      for (const profile of profiles) {
        const parts = [
          `${profile.active ? "*" : " "} ${profile.name.padEnd(width)}`,
          `key ${profile.apiKey ?? "(none)"}`,
          `persona ${profile.personaId ?? "(none)"}`,
        ];
        if (profile.baseUrl !== null) parts.push(profile.baseUrl);
        printLines(context, parts.join("  "));
      }
      if (store.activeProfile === undefined) {
        printLines(context, "", "No profile is active; choose one with: persona use <profile>");
      }
    });
}

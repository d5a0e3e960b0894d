import type { Command } from "commander";

/** Adds the flags every command that calls the service takes. */
export function addRequestOptions(command: Command): Command {
  return command
    .option("--json", "print the result as JSON (errors go to stderr as JSON)")
    .option("--profile <name>", "use this profile instead of the active one")
    .option("--persona-id <uuid>", "persona to use (overrides SERVICE_PERSONA_ID and the profile)")
    .option("--base-url <url>", "site origin of the service, without /api/v1")
    .option("--timeout <seconds>", "time allowed per attempt (default 60)");
}

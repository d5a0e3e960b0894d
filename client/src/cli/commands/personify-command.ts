import type { Command } from "commander";
import type { CliContext } from "../cli-context.js";
import { printJson, printLines } from "../cli-context.js";
import { createClient, type RequestFlags } from "../create-client.js";
import { readTextArgument } from "../read-input.js";
import { withSpinner } from "../spinner.js";
import { addRequestOptions } from "./request-options.js";

/**
 * `persona personify <text>` (docs/API.md §4.4): rewrites the text in the persona's
 * voice with /personify; `--json` prints `{ personified, chunks }`.
 */
export function registerPersonifyCommand(program: Command, context: CliContext): void {
  const command = program
    .command("personify")
    .description("rewrite text in the persona's voice")
    .argument("<text...>", "the text to rewrite; - reads it from standard input");
  addRequestOptions(command).action(async (words: string[], flags: RequestFlags) => {
    const raw = await readTextArgument(context, words);
    const client = createClient(context, flags);
    const result = await withSpinner(
      context,
      "Rewriting",
      client.personify({ raw }),
      flags.json !== true,
    );
    if (flags.json === true) printJson(context, result);
    else printLines(context, result.personified);
  });
}

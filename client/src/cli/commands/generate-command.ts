import type { Command } from "commander";
import type { CliContext } from "../cli-context.js";
import { printJson, printLines } from "../cli-context.js";
import { createClient, type RequestFlags } from "../create-client.js";
import { readTextArgument } from "../read-input.js";
import { withSpinner } from "../spinner.js";
import { addRequestOptions } from "./request-options.js";

interface GenerateFlags extends RequestFlags {
  variations?: boolean;
}

/**
 * `persona generate <text>` (docs/API.md §4.4): sends the text as a one-message
 * history to /generate and prints the reply; `--variations` asks for
 * alternative replies; `--json` prints `{ finalReply, chunks, replyChoices?, rateLimits? }`.
 */
export function registerGenerateCommand(program: Command, context: CliContext): void {
  const command = program
    .command("generate")
    .description("reply to a message in the persona's voice")
    .argument("<text...>", "the message; - reads it from standard input")
    .option("--variations", "also ask for alternative replies");
  addRequestOptions(command).action(async (words: string[], flags: GenerateFlags) => {
    const text = await readTextArgument(context, words);
    const client = createClient(context, flags);
    const result = await withSpinner(
      context,
      "Waiting for the persona",
      client.generate({
        messages: [{ role: "user", content: text }],
        includeVariations: flags.variations === true,
      }),
      flags.json !== true,
    );
    if (flags.json === true) {
      printJson(context, result);
      return;
    }
    printLines(context, result.finalReply);
    if (flags.variations === true && result.replyChoices !== undefined) {
      const lines = result.replyChoices.map(
        (choice, index) =>
          `  ${index + 1}. ${choice}${choice === result.finalReply ? "  (selected)" : ""}`,
      );
      printLines(context, "", "Variations:", ...lines);
    }
  });
}

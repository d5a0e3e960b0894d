import { CLIENT_VERSION } from "@persona-reply/shared";
import { Command, CommanderError } from "commander";
import type { CliContext } from "./cli-context.js";
import { registerCommands } from "./commands/register-commands.js";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";
import { hasKeyArgument, KEY_ARGUMENT_REFUSAL } from "./refuse-key-arguments.js";
import { reportError } from "./report-error.js";

const DESCRIPTION =
  "Persona Reply from the command line: replies and rewrites in your persona's voice.";

const AFTER_HELP = `
Settings come from flags, then the environment (SERVICE_API_KEY, SERVICE_PERSONA_ID,
SERVICE_BASE_URL), then the active profile. Store a profile with:
  persona configure --api-key-stdin --persona-id <uuid> [--base-url <url>]

Exit codes: 0 done, 1 other failure, 2 usage or invalid input, 3 key or persona
refused (401/402/403/404), 4 rate limited (429), 5 server error (5xx),
6 unreachable or timed out, 78 not configured.`;

/** Builds the `persona` program with every command registered. */
export function createProgram(context: CliContext): Command {
  const program = new Command("persona")
    .description(DESCRIPTION)
    .addHelpText("after", AFTER_HELP)
    .version(CLIENT_VERSION, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => context.stdout.write(text),
      writeErr: (text) => context.stderr.write(text),
    });
  registerCommands(program, context);
  return program;
}

/**
 * Runs `persona` with the given arguments (without `node` and the script)
 * and returns the exit code; never throws. An API key among the arguments
 * is refused before anything else happens.
 */
export async function runCli(argv: readonly string[], context: CliContext): Promise<ExitCode> {
  const separator = argv.indexOf("--");
  const json = (separator === -1 ? argv : argv.slice(0, separator)).includes("--json");
  if (hasKeyArgument(argv)) {
    if (json) {
      const error = { kind: "usage", message: KEY_ARGUMENT_REFUSAL, exitCode: EXIT_CODES.usage };
      context.stderr.write(`${JSON.stringify({ error })}\n`);
    } else {
      context.stderr.write(`persona: ${KEY_ARGUMENT_REFUSAL}\n`);
    }
    return EXIT_CODES.usage;
  }
  const program = createProgram(context);
  if (argv.length === 0) {
    program.outputHelp({ error: true });
    return EXIT_CODES.usage;
  }
  try {
    await program.parseAsync([...argv], { from: "user" });
    return EXIT_CODES.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has already printed its message (or the help or version).
      return error.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.usage;
    }
    return reportError(context, error, json);
  }
}

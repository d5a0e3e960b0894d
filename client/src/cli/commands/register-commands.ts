import type { Command } from "commander";
import type { CliContext } from "../cli-context.js";
import { registerConfigureCommand } from "./configure-command.js";
import { registerGenerateCommand } from "./generate-command.js";
import { registerLoginCommand } from "./login-command.js";
import { registerPersonifyCommand } from "./personify-command.js";
import { registerProfilesCommand } from "./profiles-command.js";
import { registerUseCommand } from "./use-command.js";

/** Adds one subcommand to the program; each lives in its own file in this folder. */
export type RegisterCommand = (program: Command, context: CliContext) => void;

/**
 * Every subcommand of `persona`, in the order `--help` lists them. The one
 * place to add a command (e.g. `login`): write `<name>-command.ts` beside
 * this file and add its register function here.
 */
export const COMMANDS: readonly RegisterCommand[] = [
  registerGenerateCommand,
  registerPersonifyCommand,
  registerConfigureCommand,
  registerProfilesCommand,
  registerUseCommand,
  registerLoginCommand,
];

/** Registers every command of {@link COMMANDS} on the program. */
export function registerCommands(program: Command, context: CliContext): void {
  for (const register of COMMANDS) register(program, context);
}

/**
 * @persona-reply/plugin — the key setup behind the coding-agent plugin's
 * `/persona:setup` command (docs/API.md §4.4 last paragraph, §5.3). The plugin
 * itself is the files around this folder (`.claude-plugin/`, `.mcp.json`,
 * `commands/`, `skills/`, `.codex-plugin/`), and the setup ships as
 * `bundle/setup.mjs`. Every export of this file is public: the setup as a
 * function, for a program that runs it with I/O of its own, and what it
 * reads and throws.
 */

export {
  type ParsedSetupCommand,
  parseSetupArguments,
  type SetupArguments,
  type SetupSource,
  SetupUsageError,
} from "./setup/parse-setup-arguments.js";
export { runSetup, type SetupIo } from "./setup/run-setup.js";
export { SETUP_EXIT_CODES, SetupError } from "./setup/setup-error.js";

/**
 * @persona-reply/plugin — the key setup behind the coding-agent plugin's
 * `/persona:setup` command (spec §4.4 last paragraph, §5.3). The plugin
 * itself is the files around this folder (`.claude-plugin/`, `.mcp.json`,
 * `commands/`, `skills/`, `.codex-plugin/`). Every export of this file is public.
 */

export {
  type EnvDestination,
  EnvDestinationError,
  inspectDestination,
} from "./env-file/env-destination.js";
export {
  APPENDED_COMMENT,
  EnvFileContentError,
  existingApiKey,
  readEnvValues,
  SETUP_VARIABLES,
  type SetupValues,
  type SetupVariable,
  updateEnvContent,
} from "./env-file/env-file-content.js";
export {
  type AtomicWriteOptions,
  removePendingFiles,
  writeFileAtomically,
} from "./env-file/write-file-atomically.js";
export {
  ensureGitIgnored,
  findRepositoryRoot,
  GITIGNORE_COMMENT,
  type GitIgnoreOutcome,
  gitignoreEntry,
  isGitIgnored,
} from "./gitignore/ensure-git-ignored.js";
export { askConfirmation } from "./setup/ask-confirmation.js";
export {
  MAX_TIMEOUT_SECONDS,
  type ParsedSetupCommand,
  parseSetupArguments,
  SETUP_SOURCES,
  SETUP_USAGE,
  type SetupArguments,
  type SetupSource,
  SetupUsageError,
} from "./setup/parse-setup-arguments.js";
export { ENV_FILE_MODE, runSetup, type SetupIo } from "./setup/run-setup.js";
export { SETUP_EXIT_CODES, SetupError } from "./setup/setup-error.js";

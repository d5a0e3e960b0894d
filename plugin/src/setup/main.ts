#!/usr/bin/env -S node --
// The plugin's key setup (`persona-plugin-setup`, run by the `/persona:setup`
// command or by hand): reads the command line, wires Ctrl-C to the login's
// abort signal, and turns every outcome into a message and an exit code.
// Nothing it prints holds the key.
//
// Started as `node -- main.js --env-file PATH …`: Node (20 to at least 26)
// reads a `--env-file` anywhere on its command line as its own option (it
// loads that file, or exits with "not found"), unless a `--` comes first
// (nodejs/node#54232). The shebang above passes the `--` for the bin.
import { redactSecrets } from "@persona-reply/client";
import { removePendingFiles } from "../env-file/write-file-atomically.js";
import { askConfirmation } from "./ask-confirmation.js";
import { parseSetupArguments, SETUP_USAGE, SetupUsageError } from "./parse-setup-arguments.js";
import { runSetup } from "./run-setup.js";
import { SETUP_EXIT_CODES, SetupError } from "./setup-error.js";

const SIGNAL_EXIT_CODES: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 };

async function main(): Promise<number> {
  let command: ReturnType<typeof parseSetupArguments>;
  try {
    command = parseSetupArguments(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof SetupUsageError)) throw error;
    process.stderr.write(`persona-plugin-setup: ${error.message}\nSee --help.\n`);
    return SETUP_EXIT_CODES.usage;
  }
  if (command.action === "help") {
    process.stdout.write(SETUP_USAGE);
    return 0;
  }

  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    removePendingFiles();
    // A second Ctrl-C does not wait for the cleanup of the login.
    if (received !== undefined) process.exit(SIGNAL_EXIT_CODES[signal] ?? 1);
    received = signal;
    controller.abort(new Error(`stopped by ${signal}`));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  const interactive = process.stdin.isTTY === true && process.stderr.isTTY === true;
  try {
    return await runSetup(command.arguments, {
      stdout: process.stdout,
      stderr: process.stderr,
      cwd: process.cwd(),
      env: process.env,
      signal: controller.signal,
      confirm: interactive
        ? (question) =>
            askConfirmation(
              question,
              { input: process.stdin, output: process.stderr },
              controller.signal,
            )
        : undefined,
    });
  } catch (error) {
    if (!(error instanceof SetupError)) throw error;
    process.stderr.write(`${error.message}\n`);
    if (received !== undefined) return SIGNAL_EXIT_CODES[received] ?? error.exitCode;
    return error.exitCode;
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    // Unexpected failures name their cause, with anything key-shaped masked.
    const message = redactSecrets(error instanceof Error ? error.message : String(error));
    process.stderr.write(
      `persona-plugin-setup failed unexpectedly: ${message}\nThe env file was not changed.\n`,
    );
    process.exit(1);
  },
);

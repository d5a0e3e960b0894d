#!/usr/bin/env node
import { runCli } from "./run-cli.js";

// The `persona` executable: the process's streams and environment, and its
// exit code from runCli. The exit code is set rather than forced, so output
// still being written to a pipe is never cut off.
process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
});

/** A stream the tool writes to, with the TTY flag of a terminal. */
export interface OutputStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

/**
 * What a command may touch: the environment and the three standard streams.
 * `main.ts` passes the process's; keeping them here keeps commands free of
 * globals.
 */
export interface CliContext {
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadStream;
  stdout: OutputStream;
  stderr: OutputStream;
}

/** Writes `value` as indented JSON and a newline to standard output (`--json`). */
export function printJson(context: CliContext, value: unknown): void {
  context.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Writes lines of human output to standard output. */
export function printLines(context: CliContext, ...lines: string[]): void {
  context.stdout.write(`${lines.join("\n")}\n`);
}

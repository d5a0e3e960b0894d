import readline from "node:readline";

/**
 * Asks a yes/no question in a terminal and waits for the answer. Only `y`
 * or `yes` (any case) count as yes; Ctrl-C, Ctrl-D or an aborted signal
 * count as no.
 *
 * @param question - the question, e.g. `Write the key to /work/app/.env? [y/N] `
 * @param streams - the terminal: `input` (standard input) and `output` (standard error)
 * @param signal - aborts the question (answers no)
 * @returns whether the answer was yes
 *
 * @example
 * const yes = await askConfirmation("Write the key there? [y/N] ", { input: process.stdin, output: process.stderr });
 */
export function askConfirmation(
  question: string,
  streams: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream },
  signal?: AbortSignal,
): Promise<boolean> {
  return new Promise((resolve) => {
    const terminal = readline.createInterface({
      input: streams.input,
      output: streams.output,
      terminal: (streams.input as { isTTY?: boolean }).isTTY === true,
    });
    let settled = false;
    const finish = (answer: boolean) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      terminal.close();
      resolve(answer);
    };
    const onAbort = () => {
      streams.output.write("\n");
      finish(false);
    };
    if (signal?.aborted === true) {
      finish(false);
      return;
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    // In raw mode Ctrl-C reaches readline, not the process: it means no.
    terminal.on("SIGINT", onAbort);
    terminal.on("close", () => finish(false));
    terminal.question(question, (answer) => finish(/^\s*y(es)?\s*$/iu.test(answer)));
  });
}

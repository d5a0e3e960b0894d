import type { CliContext } from "./cli-context.js";
import { UsageError } from "./usage-error.js";

/** Reads standard input to its end as UTF-8. */
export async function readStandardInput(context: CliContext): Promise<string> {
  if (context.stdin.isTTY === true) {
    context.stderr.write("Reading from standard input; end with Ctrl-D.\n");
  }
  context.stdin.setEncoding("utf8");
  let text = "";
  for await (const chunk of context.stdin) text += chunk;
  return text;
}

/**
 * Reads one line from a terminal without echoing it (the key prompt of
 * `configure --api-key-stdin` when standard input is a terminal). Pasted
 * text, backspace, Enter, Ctrl-D and Ctrl-C are handled.
 *
 * @throws {UsageError} when the user presses Ctrl-C
 */
export function readHiddenLine(context: CliContext, prompt: string): Promise<string> {
  const stdin = context.stdin;
  context.stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let value = "";
    const finish = (outcome: () => void) => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      context.stderr.write("\n");
      outcome();
    };
    const onData = (data: string) => {
      for (const character of data) {
        if (character === "\r" || character === "\n" || character === "\u0004") {
          finish(() => resolve(value));
          return;
        }
        if (character === "\u0003") {
          finish(() => reject(new UsageError("cancelled; nothing was saved")));
          return;
        }
        if (character === "\u007f" || character === "\b") value = value.slice(0, -1);
        else if (character >= " ") value += character;
      }
    };
    stdin.setEncoding("utf8");
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on("data", onData);
  });
}

/**
 * Checks a key read from standard input or the environment: one token, no
 * spaces or control characters. The message never repeats the value.
 *
 * @param source - where it came from, for the message (e.g. `standard input`)
 * @throws {UsageError} when the value is empty or not a single token
 */
export function checkApiKey(value: string, source: string): string {
  const key = value.trim();
  if (key === "") throw new UsageError(`no API key on ${source}`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\s\u0000-\u001f\u007f]/u.test(key)) {
    throw new UsageError(
      `the API key on ${source} holds spaces, line breaks or control characters; give exactly one key`,
    );
  }
  return key;
}

/**
 * The text of `generate` / `personify`: the arguments joined by spaces, or
 * standard input when the only argument is `-`.
 *
 * @throws {UsageError} when the text is empty
 */
export async function readTextArgument(
  context: CliContext,
  words: readonly string[],
): Promise<string> {
  // A piped text usually ends in a newline that is not part of the message.
  const text =
    words.length === 1 && words[0] === "-"
      ? (await readStandardInput(context)).replace(/\s+$/u, "")
      : words.join(" ");
  if (text.trim() === "")
    throw new UsageError("the text is empty; give it as an argument, or - to read standard input");
  return text;
}

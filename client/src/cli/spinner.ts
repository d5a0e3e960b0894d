import type { CliContext } from "./cli-context.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/** Requests quicker than this show no spinner at all, so fast answers do not flicker. */
const SHOW_AFTER_MS = 300;
const FRAME_MS = 80;

/**
 * Shows a spinner on standard error while `work` runs longer than a moment,
 * only when both standard output and standard error are terminals (never in
 * pipes, files or `--json` runs), and erases it before anything is printed.
 *
 * @example
 * const reply = await withSpinner(context, "Waiting for the persona", client.generate(input));
 */
export async function withSpinner<T>(
  context: CliContext,
  label: string,
  work: Promise<T>,
  enabled = true,
): Promise<T> {
  if (!enabled || context.stdout.isTTY !== true || context.stderr.isTTY !== true) return work;
  let frame = 0;
  let interval: ReturnType<typeof setInterval> | undefined;
  const delay = setTimeout(() => {
    interval = setInterval(() => {
      context.stderr.write(`\r${FRAMES[frame % FRAMES.length]} ${label}…`);
      frame += 1;
    }, FRAME_MS);
  }, SHOW_AFTER_MS);
  try {
    return await work;
  } finally {
    clearTimeout(delay);
    if (interval !== undefined) {
      clearInterval(interval);
      context.stderr.write("\r\u001b[2K");
    }
  }
}

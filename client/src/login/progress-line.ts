/** A stream a progress line is written to (standard error, usually). */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** A waiting line that keeps itself up to date. */
export interface ProgressLine {
  /** Shows how long the wait has lasted and how long is left. */
  update(waitedMs: number, timeoutMs: number): void;
  /** Removes the line (on a terminal) so the next output starts clean. */
  finish(): void;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

function minutesAndSeconds(milliseconds: number): string {
  const seconds = Math.max(0, Math.round(milliseconds / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/**
 * A progress line for a browser login: on a terminal one line rewritten in
 * place ("⠋ Waiting for approval in the browser… 0:12, times out in 9:48");
 * elsewhere (pipes, logs) a single line at the start, so logs stay short.
 *
 * @example
 * const progress = createProgressLine(process.stderr, "Waiting for approval in the browser");
 * await loginWithBrowser({ baseUrl, onProgress: progress.update });
 * progress.finish();
 */
export function createProgressLine(stream: ProgressStream, label: string): ProgressLine {
  let frame = 0;
  let shown = false;
  return {
    update(waitedMs, timeoutMs) {
      if (stream.isTTY === true) {
        const symbol = FRAMES[frame++ % FRAMES.length];
        stream.write(
          `\r\u001b[2K${symbol} ${label}… ${minutesAndSeconds(waitedMs)}, times out in ${minutesAndSeconds(timeoutMs - waitedMs)}`,
        );
        shown = true;
      } else if (!shown) {
        stream.write(`${label} (times out in ${minutesAndSeconds(timeoutMs)})…\n`);
        shown = true;
      }
    },
    finish() {
      if (shown && stream.isTTY === true) stream.write("\r\u001b[2K");
    },
  };
}

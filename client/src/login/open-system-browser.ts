import open from "open";

/**
 * Opens `url` in the system's browser with the `open` package (`xdg-open`
 * on Linux, `open` on macOS, `Start-Process` on Windows) and settles once
 * the opener has said whether it could: resolves when it exits with 0,
 * rejects when it cannot be started (not installed) or exits with another
 * code — `xdg-open` exits 3 when there is no display and no browser it
 * knows of, which `open` alone does not report. An opener that keeps
 * running leaves the promise pending (a browser was found and is running).
 *
 * @throws {Error} naming the opener and its exit code or start failure
 *
 * @example
 * openSystemBrowser(url).catch((error) => console.error(`open ${url} yourself (${error.message})`));
 */
export async function openSystemBrowser(url: string): Promise<void> {
  let child: Awaited<ReturnType<typeof open>>;
  try {
    child = await open(url);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const command = (error as { path?: string }).path;
    if (code === "ENOENT" && command !== undefined) {
      throw new Error(`${command} is not installed`, { cause: error });
    }
    throw error;
  }
  const command = child.spawnfile;
  const failed = (code: number | null, signal: NodeJS.Signals | null) =>
    new Error(`${command} exited with ${code === null ? signal : `code ${code}`}`);
  // On Windows `open` resolves only after the opener has exited.
  if (child.exitCode !== null || child.signalCode !== null) {
    if (child.exitCode === 0) return;
    throw failed(child.exitCode, child.signalCode);
  }
  await new Promise<void>((resolve, reject) => {
    child.once("exit", (code, signal) => (code === 0 ? resolve() : reject(failed(code, signal))));
  });
}

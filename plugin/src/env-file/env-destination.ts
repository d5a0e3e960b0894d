import fs from "node:fs";
import path from "node:path";

/** The env file the setup writes, as found on disk. */
export interface EnvDestination {
  /** Absolute path, as stated to the user. */
  path: string;
  /**
   * The file actually written: {@link path} with every symbolic link
   * resolved (`fs.realpath`; for a file yet to be made, its folder's real
   * path). Differs from {@link path} when it is a link, or lies in a linked folder.
   */
  target: string;
  /** True when {@link path} itself is a symbolic link. */
  link: boolean;
  /** Its text, or undefined when it does not exist yet. */
  content: string | undefined;
}

/** The destination cannot be used (a folder, an unreadable file, a missing parent folder). Nothing was written. */
export class EnvDestinationError extends Error {
  override name = "EnvDestinationError";
}

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * Looks at the env file the setup is about to write: resolves it to an
 * absolute path, resolves every symbolic link on the way to the file that
 * would really be written (so a link stays a link, and the user is shown
 * where the key goes), and reads its current text. Writes nothing.
 *
 * @param file - the `--env-file` value, absolute or relative to `cwd`
 * @param cwd - the folder relative paths start from
 * @throws {EnvDestinationError} when the path is a folder or not a regular
 *   file, cannot be read, is a dangling link, or its folder does not exist
 *
 * @example
 * const destination = inspectDestination(".env", process.cwd());
 * destination.path; // "/work/app/.env"
 */
export function inspectDestination(file: string, cwd: string): EnvDestination {
  const absolute = path.resolve(cwd, file);
  let target = absolute;
  let link = false;
  try {
    link = fs.lstatSync(absolute).isSymbolicLink();
    target = fs.realpathSync(absolute);
  } catch (error) {
    const code = codeOf(error);
    if (link && code === "ENOENT") {
      throw new EnvDestinationError(`${absolute} is a symbolic link to a missing file`);
    }
    if (code !== "ENOENT") {
      throw new EnvDestinationError(`${absolute} cannot be used: ${code ?? String(error)}`);
    }
  }

  let stats: fs.Stats | undefined;
  try {
    stats = fs.statSync(target);
  } catch (error) {
    const code = codeOf(error);
    if (code !== "ENOENT") {
      throw new EnvDestinationError(`${absolute} cannot be used: ${code ?? String(error)}`);
    }
  }
  if (stats === undefined) {
    const folder = path.dirname(target);
    if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) {
      throw new EnvDestinationError(
        `the folder ${folder} does not exist; create it or choose another env file`,
      );
    }
    return {
      path: absolute,
      target: path.join(fs.realpathSync(folder), path.basename(target)),
      link,
      content: undefined,
    };
  }
  if (!stats.isFile()) {
    throw new EnvDestinationError(
      `${absolute} is not a regular file${stats.isDirectory() ? " (it is a folder)" : ""}; give the path of the env file itself, e.g. ${path.join(absolute, ".env")}`,
    );
  }
  try {
    return { path: absolute, target, link, content: fs.readFileSync(target, "utf8") };
  } catch (error) {
    throw new EnvDestinationError(`${absolute} cannot be read: ${codeOf(error) ?? String(error)}`);
  }
}

/**
 * Says how a destination differs from the one the user confirmed, or
 * undefined when it is the same file: the same real target, reached the
 * same way (a link then and now, or a plain path then and now). A link put
 * in place of `.env`, or pointed elsewhere, while the browser was open is a
 * difference, so the key never lands somewhere the user did not see.
 *
 * @returns a phrase such as `now a symbolic link to /work/app/config/app.env`
 * @example
 * const change = destinationChange(confirmed, inspectDestination(confirmed.path, cwd));
 * if (change !== undefined) throw new Error(`${confirmed.path} changed: ${change}`);
 */
export function destinationChange(
  confirmed: EnvDestination,
  current: EnvDestination,
): string | undefined {
  if (confirmed.target === current.target && confirmed.link === current.link) return undefined;
  const now = current.link ? `a symbolic link to ${current.target}` : `the file ${current.target}`;
  const then = confirmed.link
    ? `a symbolic link to ${confirmed.target}`
    : `the file ${confirmed.target}`;
  return `it is now ${now}, not ${then} as confirmed`;
}

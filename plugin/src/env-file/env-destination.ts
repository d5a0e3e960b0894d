import fs from "node:fs";
import path from "node:path";

/** The env file the setup writes, as found on disk. */
export interface EnvDestination {
  /** Absolute path, as stated to the user. */
  path: string;
  /** The file actually written: the target when {@link path} is a symbolic link, else {@link path}. */
  target: string;
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
 * absolute path, follows a symbolic link to the file it points at (so the
 * link stays a link), and reads its current text. Writes nothing.
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
    if (link) target = fs.realpathSync(absolute);
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
    return { path: absolute, target, content: undefined };
  }
  if (!stats.isFile()) {
    throw new EnvDestinationError(
      `${absolute} is not a regular file${stats.isDirectory() ? " (it is a folder)" : ""}; give the path of the env file itself, e.g. ${path.join(absolute, ".env")}`,
    );
  }
  try {
    return { path: absolute, target, content: fs.readFileSync(target, "utf8") };
  } catch (error) {
    throw new EnvDestinationError(`${absolute} cannot be read: ${codeOf(error) ?? String(error)}`);
  }
}

import os from "node:os";
import path from "node:path";

/** Folder of the tool's settings inside the user's config directory. */
export const CONFIG_FOLDER_NAME = "persona-reply";
/** File of the profiles inside {@link CONFIG_FOLDER_NAME}. */
export const PROFILES_FILE_NAME = "profiles.json";

/**
 * The folder holding the profiles file: `$XDG_CONFIG_HOME/persona-reply`
 * when `XDG_CONFIG_HOME` is an absolute path (the XDG Base Directory rule:
 * relative values are ignored), else `~/.config/persona-reply` (Linux and
 * macOS), or `%APPDATA%\persona-reply` on Windows.
 *
 * @param env - the environment to read, `process.env` by default
 *
 * @example
 * configDirectory({ XDG_CONFIG_HOME: "/tmp/config" }); // "/tmp/config/persona-reply"
 */
export function configDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg !== undefined && path.isAbsolute(xdg)) return path.join(xdg, CONFIG_FOLDER_NAME);
  if (process.platform === "win32" && env.APPDATA !== undefined && env.APPDATA !== "") {
    return path.join(env.APPDATA, CONFIG_FOLDER_NAME);
  }
  const home = env.HOME !== undefined && path.isAbsolute(env.HOME) ? env.HOME : os.homedir();
  return path.join(home, ".config", CONFIG_FOLDER_NAME);
}

/**
 * The profiles file: `<config directory>/persona-reply/profiles.json`
 * (see {@link configDirectory}). It is written with mode 0600 in a folder
 * with mode 0700.
 *
 * @param env - the environment to read, `process.env` by default
 *
 * @example
 * profilesFilePath({ HOME: "/home/ada" }); // "/home/ada/.config/persona-reply/profiles.json"
 */
export function profilesFilePath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(configDirectory(env), PROFILES_FILE_NAME);
}

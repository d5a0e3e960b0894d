import { LOGIN_PATH, LOGIN_SOURCES, type LoginSource } from "@persona-reply/shared";

/** How each `source` of the browser login route (docs/API.md §4.5) is named to the person. */
export const SOURCE_LABELS: Record<LoginSource, string> = {
  cli: "the persona command-line tool",
  codex: "the Codex plugin",
  claude_code: "the Claude Code plugin",
};

/** Words for a login request that did not state its `source`. */
const UNSTATED_SOURCE = "your command-line tool";

/**
 * Names the tool waiting behind a sign-in: when the page to return to after
 * sign-in is the browser login route (a tool started `persona login` or a
 * plugin's setup), its `source` in words — "the Claude Code plugin", or
 * "your command-line tool" when none (or an unknown one) was stated.
 *
 * @param returnTo - a return path already checked by `safeReturnPath`
 * @returns the tool's name, or undefined when no tool is waiting
 *
 * @example
 * waitingToolLabel("/api/persona/cli/login?state=…&source=codex") // "the Codex plugin"
 */
export function waitingToolLabel(returnTo: string | undefined): string | undefined {
  if (returnTo === undefined) return undefined;
  const url = new URL(returnTo, "http://return-path.invalid");
  if (url.pathname !== LOGIN_PATH) return undefined;
  const source = url.searchParams.get("source");
  return (LOGIN_SOURCES as readonly string[]).includes(source ?? "")
    ? SOURCE_LABELS[source as LoginSource]
    : UNSTATED_SOURCE;
}

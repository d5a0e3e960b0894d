import type { Logger } from "../logging/logger.js";

/** Where a line for the operator goes: standard error, beside (not inside) the JSON log. */
export type OperatorConsole = (line: string) => void;

/**
 * Writes one plain line for the person running the service, on standard
 * error, prefixed `persona-reply:` so it stands out from the JSON log on
 * standard output: the demo address that may sign in, and (without SMTP)
 * each sign-in link. Used only for what the operator must act on locally.
 *
 * @example
 * printForOperator("SIGN-IN LINK for you@persona.localhost: http://…");
 */
export const printForOperator: OperatorConsole = (line) => {
  process.stderr.write(`persona-reply: ${line}\n`);
};

/**
 * The operator console of a service: {@link printForOperator}, or nothing
 * when its log level is `silent` (`PERSONA_LOG_LEVEL=silent` quiets the
 * service entirely, as in-process tests run it).
 */
export function operatorConsoleFor(logger: Logger): OperatorConsole {
  return logger.level === "silent" ? () => {} : printForOperator;
}

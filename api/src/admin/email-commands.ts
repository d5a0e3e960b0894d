import { type Command, CommanderError } from "commander";
import { AllowedEmailStore, normalizeEmail } from "../playground/allowed-email-store.js";
import { SessionStore } from "../playground/session-store.js";
import type { Services } from "../services.js";
import type { AdminOutput } from "./admin-output.js";

function requireEmail(address: string): string {
  const email = normalizeEmail(address);
  if (email === undefined) {
    throw new CommanderError(1, "email.invalid", `not a valid e-mail address: ${address}`);
  }
  return email;
}

/**
 * Adds `persona-admin email …` (docs/API.md §1.6: the operator allows a customer's
 * e-mail for the browser playground at onboarding):
 *
 * - `email allow <address> --account <id>`: the address may sign in, to that account;
 *   an address moved from another account has its playground sessions ended
 * - `email list [--account <id>]`: allowed addresses as JSON
 * - `email remove <address>`: withdraw it and end its playground sessions
 *
 * @example
 * persona-admin email allow ada@example.com --account 6b1c…
 */
export function registerEmailCommands(
  program: Command,
  services: Pick<Services, "accounts" | "database">,
  output: AdminOutput,
): void {
  // `services` is opened only when a command runs (cli.ts).
  const emails = () => new AllowedEmailStore(services.database);
  const email = program
    .command("email")
    .description("manage e-mail addresses allowed in the playground");
  email
    .command("allow")
    .argument("<address>", "e-mail address of the customer")
    .requiredOption("--account <id>", "account the address signs in to")
    .description(
      "allow an address to sign in to the playground (moving it to another account ends its sessions)",
    )
    .action(async (address: string, options: { account: string }) => {
      const normalized = requireEmail(address);
      if ((await services.accounts.find(options.account)) === undefined) {
        throw new CommanderError(1, "account.unknown", `no account with ID ${options.account}`);
      }
      const store = emails();
      const before = await store.find(normalized);
      await store.allow(normalized, options.account);
      if (before !== undefined && before.accountId !== options.account) {
        // A session is bound to the account it signed in to: one left open would
        // still show and create keys of the old account.
        const ended = await new SessionStore(services.database, 0).revokeAllForEmail(normalized);
        output.out(
          `${normalized} moved from account ${before.accountId} to account ${options.account}; ${ended} session(s) ended`,
        );
        return;
      }
      output.out(`${normalized} may sign in to the playground for account ${options.account}`);
    });
  email
    .command("list")
    .option("--account <id>", "only this account's addresses")
    .description("list allowed addresses as JSON")
    .action(async (options: { account?: string }) =>
      output.out(JSON.stringify(await emails().list(options.account), null, 2)),
    );
  email
    .command("remove")
    .argument("<address>")
    .description("withdraw an address and end its playground sessions")
    .action(async (address: string) => {
      const normalized = requireEmail(address);
      if (!(await emails().remove(normalized))) {
        throw new CommanderError(1, "email.unknown", `${normalized} is not allowed`);
      }
      const ended = await new SessionStore(services.database, 0).revokeAllForEmail(normalized);
      output.out(`${normalized} removed; ${ended} session(s) ended`);
    });
}

import { type Command, CommanderError, Option } from "commander";
import type { AccountStatus } from "../accounts/account-store.js";
import { formatMoney, parseMoney } from "../billing/money.js";
import type { RateLimitChange } from "../rate-limits/limits-store.js";
import type { Services } from "../services.js";
import {
  type UsageReportFilter,
  type UsageReportLine,
  usageReportOf,
} from "../usage/usage-report.js";
import { textTable } from "./admin-output.js";

/** Where billing commands write (the admin program's output). */
interface Printer {
  print(value: unknown): void;
}

const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/u;

function fail(code: string, message: string): never {
  throw new CommanderError(1, code, message);
}

function amountOption(text: string): number {
  try {
    return parseMoney(text);
  } catch (error) {
    return fail("amount.invalid", (error as Error).message);
  }
}

// "default" stays a string: commander turns an option value of null into true.
function limitOption(text: string): number | "default" {
  if (text === "default") return "default";
  if (!/^\d{1,9}$/u.test(text) || Number(text) < 1) {
    return fail(
      "limits.invalid",
      `"${text}" is not a limit: give a whole number ≥ 1, or "default"`,
    );
  }
  return Number(text);
}

function dayOption(text: string): string {
  if (!DAY_PATTERN.test(text) || Number.isNaN(Date.parse(text))) {
    return fail("usage.day", `"${text}" is not a day: use YYYY-MM-DD`);
  }
  return text;
}

/**
 * Renders usage lines as an aligned text table, one row per day, account,
 * persona (and version, when split by version) and target (upstream and
 * model; `-` for requests refused before any target was asked).
 */
export function usageTable(lines: readonly UsageReportLine[]): string {
  if (lines.length === 0) return "no usage recorded for this selection";
  const byVersion = lines.some((line) => line.personaVersion !== undefined);
  const header = [
    "day",
    "account",
    "persona",
    ...(byVersion ? ["version"] : []),
    "upstream",
    "model",
    "requests",
    "served",
    "input tokens",
    "output tokens",
    "cost",
  ];
  const rows = lines.map((line) => [
    line.day,
    line.accountId,
    line.personaId ?? "-",
    ...(byVersion ? [line.personaVersion == null ? "-" : String(line.personaVersion)] : []),
    line.upstream ?? "-",
    line.model ?? "-",
    String(line.requests),
    String(line.served),
    String(line.inputTokens),
    String(line.outputTokens),
    formatMoney(line.costMicros),
  ]);
  return textTable(header, rows, byVersion ? 6 : 5);
}

/** The usage report of an archive directory (usage/usage-archive.ts), grouped as the database's. */
async function archiveReport(
  directory: string,
  filter: UsageReportFilter,
): Promise<UsageReportLine[]> {
  const { readUsageArchive } = await import("../usage/usage-archive.js");
  try {
    const days = {
      ...(filter.from === undefined ? {} : { from: filter.from }),
      ...(filter.to === undefined ? {} : { to: filter.to }),
    };
    return await usageReportOf(readUsageArchive(directory, days), filter);
  } catch (error) {
    return fail(
      "usage.archive",
      `cannot read the archive ${directory}: ${(error as Error).message}`,
    );
  }
}

/**
 * Adds the operator's billing commands to `persona-admin` (issue "Operator
 * CLI"): `account topup|suspend|activate|close|show`, `limits set|show`,
 * `persona set-self-serve`, `usage`. Amounts are decimals of the account's
 * currency (`10`, `0.25`), stored exactly as micro-units.
 */
export function addBillingCommands(
  program: Command,
  services: Pick<Services, "accounts" | "billing" | "personas" | "usage">,
  output: Printer,
): void {
  // `services` is opened only when a command runs (cli.ts): read it inside the actions.
  const account =
    program.commands.find((command) => command.name() === "account") ??
    program.command("account").description("manage accounts");

  const describeAccount = async (id: string) => {
    const found = await services.accounts.find(id);
    if (found === undefined) return fail("account.unknown", `no account with ID ${id}`);
    const balance = await services.billing.balances.balanceOf(id);
    return {
      id: found.id,
      name: found.name,
      status: found.status,
      currency: found.currency,
      balance: formatMoney(balance?.balanceMicros ?? 0),
      balanceMicros: balance?.balanceMicros ?? 0,
      reservedMicros: balance?.reservedMicros ?? 0,
      ledgerSumMicros: await services.billing.balances.ledgerSum(id),
    };
  };

  account
    .command("topup")
    .argument("<accountId>")
    .argument("<amount>", "amount in the account's currency, e.g. 10 or 0.25", amountOption)
    .option("--note <text>", "note kept in the balance ledger")
    .description("add money to an account's balance (appends a top-up to the ledger)")
    .action(async (id: string, amount: number, options: { note?: string }) => {
      if (amount === 0) fail("amount.invalid", "the amount must be above zero");
      const balance = await services.billing.balances.topUp(id, amount, options.note);
      if (balance === undefined) fail("account.unknown", `no account with ID ${id}`);
      output.print(await describeAccount(id));
    });
  account
    .command("show")
    .argument("<accountId>")
    .description("show an account's status, balance and ledger sum as JSON")
    .action(async (id: string) => output.print(await describeAccount(id)));
  const statuses: Array<[string, AccountStatus, string]> = [
    ["suspend", "suspended", "suspend an account: its keys answer 403"],
    ["activate", "active", "activate an account again"],
    ["close", "closed", "close an account: its keys answer 403"],
  ];
  for (const [name, status, description] of statuses) {
    account
      .command(name)
      .argument("<accountId>")
      .description(description)
      .action(async (id: string) => {
        if (!(await services.accounts.setStatus(id, status))) {
          fail("account.unknown", `no account with ID ${id}`);
        }
        output.print(`account ${id} is now ${status}`);
      });
  }

  const limits = program
    .command("limits")
    .description("rate limits of keys and accounts (docs/API.md §8)");
  limits
    .command("set")
    .addOption(new Option("--key <keyId>", "limits of one key").conflicts("account"))
    .addOption(
      new Option("--account <accountId>", "limits of every key of an account without its own"),
    )
    .option("--minute <n>", 'requests per minute, or "default"', limitOption)
    .option("--hour <n>", 'requests per hour, or "default"', limitOption)
    .option("--day <n>", 'requests per day, or "default"', limitOption)
    .description("raise or lower rate limits (defaults: 25/minute, 100/hour, 500/day)")
    .action(
      async (options: {
        key?: string;
        account?: string;
        minute?: number | "default";
        hour?: number | "default";
        day?: number | "default";
      }) => {
        const change: RateLimitChange = {};
        for (const window of ["minute", "hour", "day"] as const) {
          const value = options[window];
          if (value !== undefined) change[window] = value === "default" ? null : value;
        }
        if (Object.keys(change).length === 0) {
          fail("limits.none", "give at least one of --minute, --hour, --day");
        }
        if (options.key !== undefined) {
          if (!(await services.billing.limits.setForKey(options.key, change))) {
            fail("key.unknown", `no key with ID ${options.key}`);
          }
          output.print({
            key: options.key,
            limits: await services.billing.limits.limitsOfKey(options.key),
          });
        } else if (options.account !== undefined) {
          if (!(await services.billing.limits.setForAccount(options.account, change))) {
            fail("account.unknown", `no account with ID ${options.account}`);
          }
          output.print(`limits of account ${options.account} set`);
        } else {
          fail("limits.target", "give --key <keyId> or --account <accountId>");
        }
      },
    );
  limits
    .command("show")
    .requiredOption("--key <keyId>", "the key")
    .description("show the limits in force for a key")
    .action(async (options: { key: string }) => {
      const found = await services.billing.limits.limitsOfKey(options.key);
      if (found === undefined) fail("key.unknown", `no key with ID ${options.key}`);
      output.print({ key: options.key, limits: found });
    });

  const persona =
    program.commands.find((command) => command.name() === "persona") ??
    program.command("persona").description("manage personas");
  persona
    .command("set-self-serve")
    .argument("<personaId>")
    .option("--price <amount>", "price per request in USD, e.g. 0.01", amountOption)
    .option("--off", "end self-serve: requests without a key get 401 again")
    .description("let requests without a key pay per request with x402 (docs/API.md §5.6)")
    .action(async (id: string, options: { price?: number; off?: boolean }) => {
      if ((options.price === undefined) === (options.off !== true)) {
        fail("persona.self-serve", "give either --price <amount> or --off");
      }
      if (options.price !== undefined && options.price < 1) {
        fail("amount.invalid", "the price must be at least 0.000001");
      }
      const updated = await services.personas.setSelfServe(id, options.price ?? null);
      if (updated === undefined) fail("persona.unknown", `no persona with ID ${id}`);
      output.print(
        updated.selfServePriceMicros === undefined
          ? `persona ${id} is no longer self-serve`
          : `persona ${id} is self-serve at ${formatMoney(updated.selfServePriceMicros)} USD per request`,
      );
    });

  program
    .command("usage")
    .option("--account <accountId>", "only this account")
    .option("--persona <personaId>", "only this persona")
    .option("--from <day>", "from this UTC day (YYYY-MM-DD)", dayOption)
    .option("--to <day>", "up to and including this UTC day (YYYY-MM-DD)", dayOption)
    .addOption(
      new Option("--by <split>", "also split by persona version").choices(["version"] as const),
    )
    .option("--json", "JSON instead of a table")
    .option("--chart", "draw requests and cost per day above the table")
    .option(
      "--from-archive <dir>",
      "read the usage archive files of this directory (PERSONA_USAGE_ARCHIVE_DIR) instead of the database",
    )
    .description(
      "usage per account, per day, per persona and per target (upstream and model); per version with --by version",
    )
    .action(
      async (options: {
        account?: string;
        persona?: string;
        from?: string;
        to?: string;
        by?: "version";
        json?: boolean;
        chart?: boolean;
        fromArchive?: string;
      }) => {
        const filter: Parameters<Services["usage"]["report"]>[0] = {};
        if (options.account !== undefined) filter.accountId = options.account;
        if (options.persona !== undefined) filter.personaId = options.persona;
        if (options.from !== undefined) filter.from = options.from;
        if (options.to !== undefined) filter.to = options.to;
        if (options.by === "version") filter.byVersion = true;
        const lines =
          options.fromArchive === undefined
            ? await services.usage.report(filter)
            : await archiveReport(options.fromArchive, filter);
        if (options.json === true) output.print(lines);
        else if (options.chart === true && lines.length > 0) {
          // Loaded only for --chart, so other commands start as fast as before.
          const { usageChart } = await import("./usage-chart.js");
          output.print(`${usageChart(lines)}\n\n${usageTable(lines)}`);
        } else output.print(usageTable(lines));
      },
    );
}

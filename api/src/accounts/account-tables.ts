import type { Generated } from "kysely";

/** The accounts table (migration `0001_accounts_personas_keys`, columns added since). */
export interface AccountTables {
  accounts: AccountsTable;
}

export interface AccountsTable {
  id: string;
  name: string;
  status: "active" | "suspended" | "closed";
  created_at: string;
  /** ISO 4217 code of the currency the balance is kept in (default USD). */
  currency: Generated<string>;
  /** Balance in micro-units (10⁻⁶) of the currency; equals the sum of its balance entries. */
  balance_micros: Generated<number>;
  /** Sum of the open reservations; spendable = balance − reserved. */
  reserved_micros: Generated<number>;
  /** Operator overrides of the rate limits of the account's keys (null: the default). */
  rate_limit_minute: number | null;
  rate_limit_hour: number | null;
  rate_limit_day: number | null;
}

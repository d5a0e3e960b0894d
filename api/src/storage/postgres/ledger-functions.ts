/**
 * The PostgreSQL functions the ledger's batched statements call
 * (`postgres-ledger.ts`). Their bodies are made by migrations 0021 and 0022
 * (`storage/key-order-migration.ts`), which keep their own copy of these
 * names: a migration is a record, this is the live contract.
 */

/**
 * The function a settlement batch updates its accounts with (migration
 * 0021): `persona_settle_accounts(ids text[], charges bigint[], released
 * bigint[]) returns integer`. Element k of the three arrays is one account:
 * its balance goes down by `charges[k]` and its `reserved_micros` by
 * `released[k]` (micro-units). The accounts are updated one at a time in key
 * order, so the row locks are taken in the order admissions take theirs
 * ({@link HOLD_ACCOUNTS_FUNCTION}) and the two never deadlock. Returns how
 * many accounts were updated.
 */
export const SETTLE_ACCOUNTS_FUNCTION = "persona_settle_accounts";

/**
 * The function an admission batch holds its reservations with (migration
 * 0022): `persona_hold_accounts(ids text[], amounts bigint[]) returns
 * table(account_id text, admitted integer)`. Element k of the two arrays is
 * one request that passed its rate limit, in batch order: the account to
 * hold on and the amount (micro-units). Per account, in key order, the
 * requests are held in batch order while the cumulative hold fits the
 * spendable balance (`balance − reserved ≥ holds before it + max(its hold,
 * 1)`), as a prefix: once one does not fit, the later ones of that account
 * are refused too. One row per account: how many of its requests (the first
 * `admitted`) are held; an account that does not exist holds none.
 *
 * The spendable balance is read without a lock, and the account's
 * `reserved_micros` raised by an update that applies only if the spendable
 * balance is still what was read; when it no longer is (a concurrent writer
 * committed), the function reads again and decides again. So the decision is
 * made on the figures the hold is added to, and the update locks the row
 * itself (no lock record).
 */
export const HOLD_ACCOUNTS_FUNCTION = "persona_hold_accounts";

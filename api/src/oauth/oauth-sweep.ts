import { deleteInBatches, deleteOldest } from "../storage/batched-delete.js";
import type { Database } from "../storage/store.js";

/**
 * How long an authorization code or a token is kept after it expired (a
 * code: or was used), in milliseconds: a day, so a code or refresh token
 * presented again soon after still finds its row (and its reuse revokes
 * the grant, OAuth 2.1 §4.1.3 and §4.3.1).
 */
export const OAUTH_SWEEP_GRACE_MS = 86_400_000;

/**
 * Batches of each table one sweep removes at most; what is left waits for
 * the next run (the retention job's, an hour later by default).
 */
export const OAUTH_SWEEP_MAX_BATCHES = 100;

/** What a sweep removed so far; {@link sweepExpiredOAuth} adds to it as its batches commit. */
export interface OAuthSweepCounts {
  /** Rows of `oauth_codes` removed. */
  codesRemoved: number;
  /** Rows of `oauth_tokens` removed, access and refresh tokens alike. */
  tokensRemoved: number;
  /** Transactions that removed rows. */
  batches: number;
  /** True when expired rows may be left: the bound per sweep, or the job stopping, ended a table's sweep. */
  unfinished: boolean;
}

/** A sweep's counts before its first batch. */
export function emptyOAuthSweep(): OAuthSweepCounts {
  return { codesRemoved: 0, tokensRemoved: 0, batches: 0, unfinished: false };
}

/**
 * The cutoff of a sweep at `now`: rows expired (or codes used) before it
 * go. ISO 8601 UTC, comparable as text with the tables' times.
 */
export function oauthSweepCutoff(now: Date): string {
  return new Date(now.getTime() - OAUTH_SWEEP_GRACE_MS).toISOString();
}

/**
 * Removes the OAuth authorization server's spent rows (migration 0028's
 * tables): authorization codes that expired, or were used, before
 * {@link oauthSweepCutoff} (a day before `now`), and access and refresh
 * tokens that expired before it — a spent refresh token that has not
 * expired stays, so its reuse is still detected. Grants are never removed:
 * they are the account's connected apps and their history. Batches of
 * `batchSize` rows, codes first, then tokens (oldest expiry first, through
 * the index `oauth_tokens_expires_at` of migration 0030), at most
 * {@link OAUTH_SWEEP_MAX_BATCHES} of each table per call. A code presented
 * once its row is gone is unknown (`invalid_grant`), as an expired one is.
 *
 * @param into - counts added to as each batch commits, so a sweep that
 *   fails part-way still says what it removed
 * @param between - awaited after each full batch (the retention job's
 *   pause); resolves false to stop early
 * @throws the store's error; batches already committed stay (the next sweep goes on)
 */
export async function sweepExpiredOAuth(
  database: Database,
  options: { now: Date; batchSize: number; between: () => Promise<boolean> },
  into: OAuthSweepCounts = emptyOAuthSweep(),
): Promise<OAuthSweepCounts> {
  const cutoff = oauthSweepCutoff(options.now);
  const batches = {
    batchSize: options.batchSize,
    between: options.between,
    maxBatches: OAUTH_SWEEP_MAX_BATCHES,
  };
  const codes = await deleteInBatches(
    async (limit) =>
      (
        await database
          .deleteFrom("oauth_codes")
          .where("code_hash", "in", (query) =>
            query
              .selectFrom("oauth_codes")
              .select("code_hash")
              .where((row) => row.or([row("expires_at", "<", cutoff), row("used_at", "<", cutoff)]))
              .limit(limit),
          )
          .executeTakeFirst()
      ).numDeletedRows,
    {
      ...batches,
      onBatch: (rows) => {
        into.codesRemoved += rows;
        into.batches += 1;
      },
    },
  );
  const tokens = await deleteInBatches(
    deleteOldest(database, "oauth_tokens", "token_hash", "expires_at", cutoff),
    {
      ...batches,
      onBatch: (rows) => {
        into.tokensRemoved += rows;
        into.batches += 1;
      },
    },
  );
  into.unfinished = codes.unfinished || tokens.unfinished;
  return into;
}

import type { RateLimit } from "@persona-reply/shared";
import type { Response } from "express";
import type { PreparedCall } from "../engine/persona-engine.js";
import { ServiceError } from "../http/service-error.js";
import type { Persona } from "../personas/persona.js";
import { rateLimitHeaders } from "../rate-limits/rate-limit-headers.js";
import {
  describeWindows,
  type RateLimitDecision,
  refusal,
} from "../rate-limits/rate-limit-windows.js";
import { deadlineIn } from "../storage/deadline.js";
import type { AdmitOutcome, RateLimitCheck } from "../storage/ledger.js";
import type { UsageRecordsTable } from "../storage/ledger-usage-row.js";
import { StorageUnavailableError } from "../storage/storage-error.js";
import { timeOrderedId } from "../storage/time-ordered-id.js";
import { type Endpoint, usageRow } from "../usage/usage-record.js";
import type { Payer } from "./authorize.js";
import type { PipelineContext } from "./pipeline-context.js";

/** A request let in: its reservation (when it pays from a balance) and its rate-limit figures. */
export interface Admission {
  payer: Payer;
  /** What is held on the balance; null id when nothing had to be held (a free route). */
  reservation?: { id: string | null; accountId: string; amountMicros: number };
  /** The bucket's windows after this request, for `rateLimits` (API-key requests). */
  rateLimits?: RateLimit[];
}

function sendRateLimitHeaders(response: Response, decision: RateLimitDecision, now: number): void {
  const headers = rateLimitHeaders(decision.windows, Math.ceil(now / 1000));
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
}

function rateLimited(decision: RateLimitDecision): ServiceError {
  const retryAfter = String(decision.retryAfterSeconds ?? 1);
  const full = decision.windows
    .filter((window) => window.remaining === 0)
    .map((window) => `${window.limit} requests per ${window.window}`);
  return new ServiceError(
    "rate_limited",
    `rate limit reached (${full.join(", ")}); retry after ${retryAfter} seconds`,
    { headers: { "Retry-After": retryAfter } },
  );
}

/**
 * The rate-limit and reserve stages, as one storage call where the
 * counters live in the database (storage/ledger.ts `admit`): the request
 * is counted in its bucket and the upper bound of its cost held on the
 * balance in one transaction. With Redis the count comes first and is
 * given back if the reservation cannot be made for a reason of ours. The
 * figures go out as `RateLimit-Policy` / `RateLimit` headers whatever the
 * outcome. A keyless x402 request is neither counted nor reserved (its
 * payment was verified by the authorize stage).
 *
 * @throws {ServiceError} 429 `rate_limited` (with `Retry-After`) or
 *   `insufficient_balance`
 * @throws {StorageUnavailableError} when the store cannot answer in time (503, nothing counted or held)
 */
export async function admit(
  context: PipelineContext,
  payer: Payer,
  persona: Persona,
  call: PreparedCall,
  usage: { endpoint: Endpoint; requestId: string | null; route: string },
  response: Response,
): Promise<Admission> {
  if (payer.kind === "x402") return { payer };
  const { billing, metrics } = context;
  const now = Date.now();
  const amount = billing.prices.reservationMicros(
    persona.route,
    () => call.messages,
    call.candidates,
  );
  const hold = billing.balances.holdFor(payer.accountId, amount, usage.requestId, new Date(now));
  const refusalUsage: UsageRecordsTable = usageRow(timeOrderedId(), new Date(now).toISOString(), {
    accountId: payer.accountId,
    apiKeyId: payer.apiKeyId,
    oauthGrantId: payer.oauthGrantId,
    personaId: persona.id,
    personaVersion: persona.version,
    endpoint: usage.endpoint,
    status: 429,
    inputTokens: 0,
    outputTokens: 0,
    costMicros: 0,
    requestId: usage.requestId,
    paymentMethod: "balance",
    paymentReference: null,
  });
  const check: RateLimitCheck = { ...payer.rateLimit, now };
  const deadline = deadlineIn(context.config.PERSONA_STORAGE_TIMEOUT_MS, now);

  let outcome: AdmitOutcome;
  let decision: RateLimitDecision | undefined;
  if (billing.rateLimiter.inStore) {
    outcome = await context.store.ledger.admit({ rateLimit: check, hold, refusalUsage }, deadline);
    if (outcome.counters !== undefined) {
      decision = outcome.admitted
        ? { allowed: true, windows: describeWindows(outcome.counters, check.limits, now) }
        : refusal(outcome.counters, check.limits, now);
    }
  } else {
    decision = await billing.rateLimiter.consume(check.bucket, check.limits, now);
    if (!decision.allowed) {
      sendRateLimitHeaders(response, decision, now);
      metrics.rateLimitRejections.inc({ route: usage.route });
      await context.store.ledger
        .record({ ...refusalUsage, payment_method: "none" }, deadline)
        .catch(() => undefined);
      throw rateLimited(decision);
    }
    try {
      outcome = await context.store.ledger.admit({ hold, refusalUsage }, deadline);
    } catch (error) {
      // Not admitted for a reason of ours: the request consumes no window.
      if (error instanceof StorageUnavailableError) {
        await billing.rateLimiter.refund(check.bucket, now);
      }
      throw error;
    }
  }
  if (decision !== undefined) sendRateLimitHeaders(response, decision, now);
  if (!outcome.admitted) {
    if (outcome.reason === "rate_limited" && decision !== undefined) {
      metrics.rateLimitRejections.inc({ route: usage.route });
      throw rateLimited(decision);
    }
    metrics.balanceRejections.inc({ route: usage.route });
    throw new ServiceError(
      "insufficient_balance",
      "insufficient balance: the account's balance does not cover this request; ask the operator to top it up",
    );
  }
  const admission: Admission = {
    payer,
    reservation: {
      id: amount > 0 ? hold.id : null,
      accountId: payer.accountId,
      amountMicros: amount,
    },
  };
  if (payer.reportsRateLimits && decision !== undefined) admission.rateLimits = decision.windows;
  return admission;
}

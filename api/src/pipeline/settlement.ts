import { performance } from "node:perf_hooks";
import type { Response } from "express";
import type { EngineOutput } from "../engine/persona-engine.js";
import { ServiceError } from "../http/service-error.js";
import { X402_HEADERS } from "../payments/x402-gate.js";
import type { Persona } from "../personas/persona.js";
import { deadlineIn } from "../storage/deadline.js";
import { timeOrderedId } from "../storage/time-ordered-id.js";
import { type Endpoint, type UsageInput, usageRow } from "../usage/usage-record.js";
import type { Admission } from "./admission.js";
import type { PipelineContext } from "./pipeline-context.js";

/** What a usage row of this request says besides its outcome. */
export interface UsageContext {
  endpoint: Endpoint;
  requestId: string | null;
  /** The x402 resource URL (the request's URL). */
  resourceUrl: string;
  /** When the request arrived (`performance.now()`): its usage row's `duration_ms` runs from here. */
  startedAt?: number;
}

function statusOf(error: unknown): number {
  if (error instanceof ServiceError) return error.status;
  if (typeof error === "object" && error !== null && "kind" in error) return 503;
  return 500;
}

function usageOf(
  admission: Admission,
  persona: Persona,
  context: UsageContext,
  status: number,
  output?: EngineOutput,
): UsageInput {
  const { payer } = admission;
  return {
    accountId: payer.accountId,
    apiKeyId: payer.kind === "balance" ? payer.apiKeyId : null,
    oauthGrantId: payer.kind === "balance" ? payer.oauthGrantId : null,
    personaId: persona.id,
    personaVersion: persona.version,
    endpoint: context.endpoint,
    status,
    inputTokens: output?.usage.inputTokens ?? 0,
    outputTokens: output?.usage.outputTokens ?? 0,
    costMicros: 0,
    requestId: context.requestId,
    paymentMethod: payer.kind === "x402" ? "x402" : "balance",
    paymentReference: null,
    upstream: output?.target.upstream ?? null,
    model: output?.target.model ?? null,
    durationMs:
      context.startedAt === undefined ? null : Math.round(performance.now() - context.startedAt),
  };
}

/**
 * The settle stage (issue "No overspend under concurrency"): a
 * served request is charged its real cost — provider-reported tokens × the
 * answering target's price, never more than was held — in one transaction with its
 * usage row (which carries the charge), group-committed with its neighbours and on
 * disk before the response is written; an x402 request's payment is
 * settled with the facilitator (`PAYMENT-RESPONSE`) and its usage row
 * written. Charges are counted in the metrics here, where money moves.
 *
 * @throws {StorageUnavailableError} when the settlement cannot be made durable in time (503, nothing charged)
 * @throws {ServiceError} `payment_facilitator_error` (502) when an x402 settlement fails
 */
export async function settle(
  context: PipelineContext,
  admission: Admission,
  persona: Persona,
  output: EngineOutput,
  usage: UsageContext,
  response: Response,
): Promise<void> {
  const { billing, metrics, store } = context;
  const deadline = () => deadlineIn(context.config.PERSONA_STORAGE_TIMEOUT_MS);
  const labels = {
    endpoint: usage.endpoint,
    payment_method: admission.payer.kind === "x402" ? "x402" : "balance",
  };
  if (admission.payer.kind === "x402") {
    const { payment } = admission.payer;
    let settled: Awaited<ReturnType<typeof billing.payments.settle>>;
    try {
      settled = await billing.payments.settle(payment, persona, usage.resourceUrl);
    } catch (error) {
      await recordFailure(context, admission, persona, usage, statusOf(error));
      throw error;
    }
    await store.ledger.record(
      usageRow(timeOrderedId(), new Date().toISOString(), {
        ...usageOf(admission, persona, usage, 200, output),
        costMicros: payment.priceMicros,
        paymentReference: settled.settlement.transaction,
      }),
      deadline(),
    );
    metrics.charges.inc(labels);
    metrics.chargedMicros.inc(labels, payment.priceMicros);
    response.setHeader(X402_HEADERS.paymentResponse, settled.header);
    return;
  }
  const reservation = admission.reservation;
  if (reservation === undefined) throw new Error("a balance request reached settlement unreserved");
  const cost = billing.prices.costMicros(output.target, output.usage);
  const settledUsage = usageRow(
    timeOrderedId(),
    new Date().toISOString(),
    usageOf(admission, persona, usage, 200, output),
  );
  let charged: number;
  try {
    ({ chargedMicros: charged } = await store.ledger.settle(
      {
        reservationId: reservation.id,
        accountId: reservation.accountId,
        heldMicros: reservation.amountMicros,
        costMicros: cost,
        usage: settledUsage,
      },
      deadline(),
    ));
  } catch (error) {
    // Not settled, not charged: give the reservation back (retried while the store is
    // down). Should the settlement have committed with its answer lost, it is reversed.
    await releaseAfterFailure(context, admission, persona, usage, error, settledUsage.id);
    throw error;
  }
  if (charged < cost) {
    context.logger.warn(
      { cost, charged, reserved: reservation.amountMicros },
      "a request cost more than its reservation; charged the reservation",
    );
  }
  if (charged > 0) {
    metrics.charges.inc(labels);
    metrics.chargedMicros.inc(labels, charged);
  }
}

async function recordFailure(
  context: PipelineContext,
  admission: Admission,
  persona: Persona,
  usage: UsageContext,
  status: number,
): Promise<void> {
  // Bookkeeping of a failure must never hide the failure itself.
  await context.store.ledger
    .record(
      usageRow(
        timeOrderedId(),
        new Date().toISOString(),
        usageOf(admission, persona, usage, status),
      ),
      deadlineIn(context.config.PERSONA_STORAGE_TIMEOUT_MS),
    )
    .catch((error: unknown) => {
      context.logger.warn({ err: error }, "recording a failed request's usage failed");
    });
}

/**
 * After a failed model call or settlement: nothing is charged, the
 * reservation is released with the failed request's usage row (status of
 * the error), an x402 payment is forgotten unsettled.
 *
 * @param settledUsageId - the usage row of a settlement that failed: if it
 *   committed after all, it is reversed
 */
export async function releaseAfterFailure(
  context: PipelineContext,
  admission: Admission,
  persona: Persona,
  usage: UsageContext,
  error: unknown,
  settledUsageId?: string,
): Promise<void> {
  const status = statusOf(error);
  const { payer, reservation } = admission;
  if (payer.kind === "x402") {
    await context.billing.payments.forget(payer.payment.id).catch(() => undefined);
    await recordFailure(context, admission, persona, usage, status);
    return;
  }
  if (reservation === undefined || reservation.id === null) {
    await recordFailure(context, admission, persona, usage, status);
    return;
  }
  try {
    await context.billing.releases.release(
      {
        reservationId: reservation.id,
        accountId: reservation.accountId,
        amountMicros: reservation.amountMicros,
        usage: usageRow(
          timeOrderedId(),
          new Date().toISOString(),
          usageOf(admission, persona, usage, status),
        ),
      },
      settledUsageId === undefined ? undefined : { usageId: settledUsageId, status },
    );
  } catch (releaseError) {
    context.logger.error({ err: releaseError }, "releasing a reservation failed; the sweeper will");
  }
}

import type { Response } from "express";
import type { EngineOutput } from "../engine/persona-engine.js";
import { ServiceError } from "../http/service-error.js";
import { X402_HEADERS } from "../payments/x402-gate.js";
import type { ProviderMessage } from "../providers/model-provider.js";
import type { Services } from "../services.js";
import type { Admission } from "./admit-request.js";
import type { UsageInput } from "./usage-store.js";

/** The model call a metered request makes. */
export interface MeteredCall {
  /** Independent candidates drawn (1–5). */
  candidates: number;
  /** The prompt as the provider gets it, for the reservation of token-priced routes. */
  prompt: () => readonly ProviderMessage[];
  run: () => Promise<EngineOutput>;
}

function statusOf(error: unknown): number {
  return error instanceof ServiceError ? error.status : 500;
}

/**
 * Runs an admitted request's model call under billing (issue "No overspend
 * under concurrency"):
 *
 * - API key: reserve an upper bound of the cost (429 "insufficient
 *   balance" when the spendable balance is short), call the model, then
 *   settle to the real cost — provider-reported tokens × the route's price
 *   — in one transaction with the usage row, before the response is
 *   written; on any failure release the reservation: nothing is charged.
 * - x402: call the model, then settle the verified payment with the
 *   facilitator (the `PAYMENT-RESPONSE` header) and record the usage row;
 *   a failed call is never settled.
 *
 * Failed requests get a usage row with their status and no cost.
 *
 * @throws the call's own error, or {@link ServiceError} `insufficient_balance`
 *   (429), `payment_required` (402), `payment_facilitator_error` (502)
 */
export async function runMetered(
  services: Services,
  admission: Admission,
  response: Response,
  call: MeteredCall,
): Promise<EngineOutput> {
  const { billing, logger } = services;
  const route = admission.persona.modelRoute;
  const usage = (status: number, output?: EngineOutput): UsageInput => ({
    accountId: admission.accountId,
    apiKeyId: admission.apiKeyId,
    personaId: admission.persona.id,
    endpoint: admission.endpoint,
    status,
    inputTokens: output?.usage.inputTokens ?? 0,
    outputTokens: output?.usage.outputTokens ?? 0,
    costMicros: 0,
    requestId: admission.requestId,
    paymentMethod: admission.payment === undefined ? "balance" : "x402",
    paymentReference: null,
  });
  // Bookkeeping of a failure must never hide the failure itself.
  const recordFailure = async (status: number) => {
    await billing.usage.record(usage(status)).catch((error: unknown) => {
      logger.error({ err: error }, "recording a failed request's usage failed");
    });
  };

  const payment = admission.payment;
  if (payment !== undefined) {
    let output: EngineOutput;
    try {
      output = await call.run();
    } catch (error) {
      await billing.payments.forget(payment.id).catch(() => undefined);
      await recordFailure(statusOf(error));
      throw error;
    }
    let header: string;
    let transaction: string;
    try {
      const settled = await billing.payments.settle(
        payment,
        admission.persona,
        admission.resourceUrl,
      );
      header = settled.header;
      transaction = settled.settlement.transaction;
    } catch (error) {
      await recordFailure(statusOf(error));
      throw error;
    }
    await billing.usage.record({
      ...usage(200, output),
      costMicros: payment.priceMicros,
      paymentReference: transaction,
    });
    response.setHeader(X402_HEADERS.paymentResponse, header);
    return output;
  }

  const amount = billing.prices.reservationMicros(route, call.prompt, call.candidates);
  const reservation = await billing.balances.reserve(
    admission.accountId,
    amount,
    admission.requestId,
  );
  if (reservation === undefined) {
    await recordFailure(429);
    throw new ServiceError(
      "insufficient_balance",
      "insufficient balance: the account's balance does not cover this request; ask the operator to top it up",
    );
  }
  let output: EngineOutput;
  try {
    output = await call.run();
  } catch (error) {
    await billing.balances.release(reservation).catch((releaseError: unknown) => {
      logger.error({ err: releaseError }, "releasing a reservation failed; the sweeper will");
    });
    await recordFailure(statusOf(error));
    throw error;
  }
  const cost = billing.prices.costMicros(route, output.usage);
  const settlement = await billing.balances.settle(reservation, cost, usage(200, output));
  if (settlement.chargedMicros < cost) {
    logger.warn(
      { cost, charged: settlement.chargedMicros, reserved: reservation.amountMicros },
      "a request cost more than its reservation; charged the reservation",
    );
  }
  return output;
}

import { createHash } from "node:crypto";
import {
  decodePaymentSignatureHeader,
  encodePaymentRequiredHeader,
  encodePaymentResponseHeader,
} from "@x402/core/http";
import { parsePaymentPayload } from "@x402/core/schemas";
import type { FacilitatorClient } from "@x402/core/server";
import type {
  PaymentPayload,
  PaymentRequired,
  PaymentRequirements,
  SettleResponse,
} from "@x402/core/types";
import { ServiceError } from "../http/service-error.js";
import type { Persona } from "../personas/persona.js";
import type { Database } from "../storage/database.js";

/** The x402 protocol version this server speaks (the `PAYMENT-*` headers of v2). */
export const X402_VERSION = 2;

/** The facilitator calls the gate needs: verify before serving, settle after. */
export type PaymentFacilitator = Pick<FacilitatorClient, "verify" | "settle">;

/** Where x402 payments go and in what (server configuration). */
export interface X402Options {
  /** Receiving address; the gate is off without it. */
  payTo: string | undefined;
  /** CAIP-2 network, e.g. `eip155:8453`. */
  network: `${string}:${string}`;
  /** Token contract address. */
  asset: string;
  /** EIP-712 domain of the token (USDC: name `USDC`, version `2`). */
  assetName: string;
  assetVersion: string;
  /** Token decimals (≥ 6): a micro-unit price is scaled by 10^(decimals − 6). */
  assetDecimals: number;
  maxTimeoutSeconds: number;
  /**
   * Seconds from now an authorization may stay valid at most (its
   * `validBefore`): the time retention keeps a payment's row, which is
   * what refuses the payment a second time. A payment whose row is gone
   * has so expired, and its validity window refuses it. Absent: no limit
   * (payment rows are kept for ever).
   */
  maxValidSeconds?: number;
}

/** A payment the facilitator verified, to be settled once the request is served. */
export interface VerifiedPayment {
  /** The payment's identity, used once: see {@link paymentIdentity}. */
  id: string;
  payload: PaymentPayload;
  requirements: PaymentRequirements;
  priceMicros: number;
  payer: string | null;
}

/** The x402 request headers and response headers (HTTP transport, protocol v2). */
export const X402_HEADERS = {
  paymentRequired: "PAYMENT-REQUIRED",
  paymentSignature: "payment-signature",
  paymentResponse: "PAYMENT-RESPONSE",
} as const;

function matches(accepted: PaymentRequirements, required: PaymentRequirements): boolean {
  return (
    accepted.scheme === required.scheme &&
    accepted.network === required.network &&
    accepted.asset.toLowerCase() === required.asset.toLowerCase() &&
    accepted.payTo.toLowerCase() === required.payTo.toLowerCase() &&
    accepted.amount === required.amount
  );
}

/**
 * Seconds an authorization must still be valid for when it reaches the
 * facilitator: x402's reference `exact` EVM facilitator refuses
 * `validBefore < now + 6` (time to get the transfer on chain).
 */
export const X402_VALID_BEFORE_MARGIN_SECONDS = 6;

/** The EIP-3009 `TransferWithAuthorization` fields of an `exact` EVM payment that the gate reads. */
export interface PaymentAuthorization {
  /** The payer's address (`0x…`), as signed. */
  from: string;
  /** The authorization's 32-byte nonce (`0x…`), as signed. */
  nonce: string;
  /** Unix seconds; valid only after this. */
  validAfter: bigint;
  /** Unix seconds; valid only before this. */
  validBefore: bigint;
}

const UNSIGNED_INTEGER = /^\d{1,30}$/u;

/**
 * Reads the EIP-3009 authorization of an `exact` EVM payment payload
 * (`payload.authorization`: `from`, `nonce`, and `validAfter` /
 * `validBefore` as decimal strings of Unix seconds, x402 `exact` EVM scheme).
 *
 * @returns the authorization, or undefined when one of those fields is missing or malformed
 */
export function readAuthorization(payload: PaymentPayload): PaymentAuthorization | undefined {
  const authorization = (payload.payload as { authorization?: unknown }).authorization;
  if (typeof authorization !== "object" || authorization === null) return undefined;
  const { from, nonce, validAfter, validBefore } = authorization as Record<string, unknown>;
  if (typeof from !== "string" || from === "" || typeof nonce !== "string" || nonce === "") {
    return undefined;
  }
  if (typeof validAfter !== "string" || !UNSIGNED_INTEGER.test(validAfter)) return undefined;
  if (typeof validBefore !== "string" || !UNSIGNED_INTEGER.test(validBefore)) return undefined;
  return { from, nonce, validAfter: BigInt(validAfter), validBefore: BigInt(validBefore) };
}

/**
 * Why an authorization's validity window refuses it now, in x402's error
 * reasons, or undefined when it is valid: not yet valid (`validAfter` after
 * now) or expired or about to (`validBefore` within
 * {@link X402_VALID_BEFORE_MARGIN_SECONDS} of now) — the rules of x402's
 * reference facilitator, checked here before it is asked.
 *
 * @param nowSeconds - the current time in Unix seconds
 */
export function windowRefusal(
  authorization: PaymentAuthorization,
  nowSeconds: number,
): string | undefined {
  const now = BigInt(Math.floor(nowSeconds));
  if (authorization.validBefore < now + BigInt(X402_VALID_BEFORE_MARGIN_SECONDS)) {
    return "invalid_exact_evm_payload_authorization_valid_before";
  }
  if (authorization.validAfter > now) return "invalid_exact_evm_payload_authorization_valid_after";
  return undefined;
}

/**
 * The identity of a payment, used once: SHA-256 (hex) of the
 * network, the token, the payer and the nonce, addresses and nonce
 * lower-cased — what the token contract itself uses once (EIP-3009's
 * `authorizationState(from, nonce)`). Not the header's bytes: a re-encoded
 * copy of one payment (whitespace, key order) is the same payment.
 */
export function paymentIdentity(
  requirements: Pick<PaymentRequirements, "network" | "asset">,
  authorization: Pick<PaymentAuthorization, "from" | "nonce">,
): string {
  return createHash("sha256")
    .update(
      [
        "x402-exact-eip3009",
        requirements.network,
        requirements.asset.toLowerCase(),
        authorization.from.toLowerCase(),
        authorization.nonce.toLowerCase(),
      ].join("\n"),
    )
    .digest("hex");
}

/**
 * The 402 payment challenge of self-serve personas (docs/API.md §5.6, §7 row 402)
 * in the x402 protocol (v2, `exact` scheme), through `@x402/core`: a
 * request without a key header gets 402 with the `PaymentRequired` object
 * both in the `PAYMENT-REQUIRED` header (base64, as x402 clients read it)
 * and as the JSON body; a retry carrying `PAYMENT-SIGNATURE` is verified
 * by the configured facilitator, served, then settled, and answered with
 * `PAYMENT-RESPONSE`. A payment — its payer and nonce, not its header's
 * bytes — is accepted once (replays are refused before the facilitator is
 * asked), as is an authorization outside its validity window or valid for
 * longer than its row is kept (`maxValidSeconds`); a payment whose request
 * failed is never settled.
 */
export class X402Gate {
  /**
   * @param now - the clock the validity window is checked against (Unix ms)
   */
  constructor(
    private readonly options: X402Options,
    private readonly facilitator: PaymentFacilitator,
    private readonly database: Database,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether self-serve payments are configured (a receiving address is set). */
  get enabled(): boolean {
    return this.options.payTo !== undefined;
  }

  /** What one request to a persona must pay. */
  requirementsFor(priceMicros: number): PaymentRequirements {
    const scale = 10n ** BigInt(this.options.assetDecimals - 6);
    return {
      scheme: "exact",
      network: this.options.network,
      asset: this.options.asset,
      amount: (BigInt(priceMicros) * scale).toString(),
      payTo: this.options.payTo ?? "",
      maxTimeoutSeconds: this.options.maxTimeoutSeconds,
      extra: { name: this.options.assetName, version: this.options.assetVersion },
    };
  }

  /** The `PaymentRequired` object of a persona's challenge. */
  challenge(
    persona: Persona,
    priceMicros: number,
    resourceUrl: string,
    error: string,
  ): PaymentRequired {
    return {
      x402Version: X402_VERSION,
      error,
      resource: {
        url: resourceUrl,
        description: `Persona Reply: one request to persona ${persona.id}`,
        mimeType: "application/json",
      },
      accepts: [this.requirementsFor(priceMicros)],
    };
  }

  private refuse(
    persona: Persona,
    priceMicros: number,
    resourceUrl: string,
    error: string,
  ): ServiceError {
    const body = this.challenge(persona, priceMicros, resourceUrl, error);
    return new ServiceError("payment_required", error, {
      body,
      headers: {
        [X402_HEADERS.paymentRequired]: encodePaymentRequiredHeader(body),
        "Cache-Control": "no-store",
      },
    });
  }

  /**
   * Admits a keyless request to a self-serve persona: challenges it when it
   * carries no payment, otherwise verifies the payment with the facilitator.
   *
   * @param header - the `PAYMENT-SIGNATURE` header, if any
   * @throws {ServiceError} `payment_required` (402, x402 body) without a
   *   payment or with one that is malformed, does not match, was used
   *   before (same payer and nonce), is outside its validity window, stays
   *   valid for longer than `maxValidSeconds`, or fails verification; `payment_facilitator_error` (502) when
   *   the facilitator cannot be reached
   */
  async admit(
    persona: Persona,
    priceMicros: number,
    resourceUrl: string,
    header: string | undefined,
  ): Promise<VerifiedPayment> {
    if (header === undefined || header.trim() === "") {
      throw this.refuse(
        persona,
        priceMicros,
        resourceUrl,
        "payment required: send an API key, or pay for this request with x402 (PAYMENT-SIGNATURE header)",
      );
    }
    let payload: PaymentPayload;
    try {
      const parsed = parsePaymentPayload(decodePaymentSignatureHeader(header.trim()));
      if (!parsed.success || parsed.data.x402Version !== X402_VERSION) throw new Error("not v2");
      // Checked above: a v2 payload, whose `accepted` is compared field by field below.
      payload = parsed.data as unknown as PaymentPayload;
    } catch {
      throw this.refuse(
        persona,
        priceMicros,
        resourceUrl,
        "invalid payment: the PAYMENT-SIGNATURE header is not an x402 payment payload",
      );
    }
    const requirements = this.requirementsFor(priceMicros);
    if (!matches(payload.accepted, requirements)) {
      throw this.refuse(
        persona,
        priceMicros,
        resourceUrl,
        "invalid payment: it does not match the payment requirements of this request",
      );
    }
    const authorization = readAuthorization(payload);
    if (authorization === undefined) {
      throw this.refuse(
        persona,
        priceMicros,
        resourceUrl,
        "invalid payment: invalid_payload (no EIP-3009 authorization with from, nonce, validAfter and validBefore)",
      );
    }
    const outside = windowRefusal(authorization, this.now() / 1000);
    if (outside !== undefined) {
      throw this.refuse(persona, priceMicros, resourceUrl, `invalid payment: ${outside}`);
    }
    const { maxValidSeconds } = this.options;
    if (
      maxValidSeconds !== undefined &&
      authorization.validBefore > BigInt(Math.floor(this.now() / 1000) + maxValidSeconds)
    ) {
      throw this.refuse(
        persona,
        priceMicros,
        resourceUrl,
        `invalid payment: invalid_exact_evm_payload_authorization_valid_before (it must expire within ${
          maxValidSeconds % 86_400 === 0
            ? `${maxValidSeconds / 86_400} days`
            : `${maxValidSeconds} seconds`
        })`,
      );
    }
    const id = paymentIdentity(requirements, authorization);
    const inserted = await this.database
      .insertInto("x402_payments")
      .values({
        id,
        persona_id: persona.id,
        amount_micros: priceMicros,
        status: "pending",
        payer: null,
        transaction_reference: null,
        created_at: new Date().toISOString(),
      })
      .onConflict((conflict) => conflict.column("id").doNothing())
      .executeTakeFirst();
    if ((inserted.numInsertedOrUpdatedRows ?? 0n) === 0n) {
      throw this.refuse(
        persona,
        priceMicros,
        resourceUrl,
        "invalid payment: this payment was already used",
      );
    }
    let verdict: Awaited<ReturnType<PaymentFacilitator["verify"]>>;
    try {
      verdict = await this.facilitator.verify(payload, requirements);
    } catch (error) {
      await this.forget(id);
      if (error instanceof Error && "invalidReason" in error) {
        throw this.refuse(
          persona,
          priceMicros,
          resourceUrl,
          `invalid payment: ${String(error.invalidReason)}`,
        );
      }
      throw new ServiceError(
        "payment_facilitator_error",
        "the payment facilitator could not be reached",
        { cause: error },
      );
    }
    if (!verdict.isValid) {
      await this.forget(id);
      throw this.refuse(
        persona,
        priceMicros,
        resourceUrl,
        `invalid payment: ${verdict.invalidReason ?? "the facilitator rejected it"}`,
      );
    }
    return { id, payload, requirements, priceMicros, payer: verdict.payer ?? null };
  }

  /**
   * Settles a verified payment after the request was served.
   *
   * @returns the facilitator's settlement, with the `PAYMENT-RESPONSE` header value
   * @throws {ServiceError} `payment_required` (402) when settlement fails;
   *   `payment_facilitator_error` (502) when the facilitator cannot be reached
   */
  async settle(
    payment: VerifiedPayment,
    persona: Persona,
    resourceUrl: string,
  ): Promise<{ settlement: SettleResponse; header: string }> {
    let settlement: SettleResponse;
    try {
      settlement = await this.facilitator.settle(payment.payload, payment.requirements);
    } catch (error) {
      await this.forget(payment.id);
      if (error instanceof Error && "errorReason" in error) {
        throw this.refuse(
          persona,
          payment.priceMicros,
          resourceUrl,
          `payment not settled: ${String(error.errorReason)}`,
        );
      }
      throw new ServiceError(
        "payment_facilitator_error",
        "the payment facilitator could not be reached",
        { cause: error },
      );
    }
    if (!settlement.success) {
      await this.forget(payment.id);
      throw this.refuse(
        persona,
        payment.priceMicros,
        resourceUrl,
        `payment not settled: ${settlement.errorReason ?? "the facilitator refused"}`,
      );
    }
    await this.database
      .updateTable("x402_payments")
      .set({
        status: "settled",
        payer: settlement.payer ?? payment.payer,
        transaction_reference: settlement.transaction,
      })
      .where("id", "=", payment.id)
      .execute();
    return { settlement, header: encodePaymentResponseHeader(settlement) };
  }

  /**
   * Forgets a payment that was not settled (the request failed, or the
   * facilitator refused), so the client may retry with the same payment.
   */
  async forget(paymentId: string): Promise<void> {
    await this.database.deleteFrom("x402_payments").where("id", "=", paymentId).execute();
  }
}

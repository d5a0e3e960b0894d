import type { Request } from "express";
import { authenticate, readApiKey } from "../auth/authenticate.js";
import { authorizePersona } from "../auth/authorize-persona.js";
import { ServiceError } from "../http/service-error.js";
import type { KeyOwner } from "../keys/key-store.js";
import { authenticateAccessToken, isAccessToken } from "../oauth/mcp-relay.js";
import type { AccessGrant } from "../oauth/oauth-store.js";
import { type VerifiedPayment, X402_HEADERS } from "../payments/x402-gate.js";
import { canarySubject, servedPersona } from "../personas/canary-assignment.js";
import type { Persona } from "../personas/persona.js";
import { resolveRateLimits } from "../rate-limits/rate-limit-windows.js";
import { keyBucket } from "../rate-limits/rate-limiter.js";
import type { RateLimits } from "../storage/rate-limit-buckets.js";
import type { PipelineContext } from "./pipeline-context.js";

/**
 * Who calls: an API key (docs/API.md §5), an OAuth access token (a tool
 * call of `/mcp`, oauth/mcp-relay.ts), a signed-in playground session, or
 * nobody yet (x402, docs/API.md §5.6).
 */
export type Caller =
  | { kind: "api_key"; owner: KeyOwner }
  | { kind: "oauth"; access: AccessGrant }
  | { kind: "session"; accountId: string }
  | { kind: "anonymous" };

/** Who pays for an authorized request, and which rate-limit bucket counts it. */
export type Payer =
  | {
      kind: "balance";
      accountId: string;
      apiKeyId: string | null;
      /** The OAuth grant (connected app) of an access token's request, for its usage row; null otherwise. */
      oauthGrantId: string | null;
      /** The bucket and limits the request counts against. */
      rateLimit: { bucket: string; limits: RateLimits };
      /** Whether the request's figures go out as `rateLimits` (API-key requests, docs/API.md §4.1). */
      reportsRateLimits: boolean;
    }
  | { kind: "x402"; accountId: string; payment: VerifiedPayment };

/** The persona a request names and what it may do with it. */
export interface PersonaTarget {
  personaId: string;
  /** The request field that carried it (`personaId` or `model`), for the error's `param`. */
  param: string;
  /** /personify: the persona must have /personify access (docs/API.md §4.2). */
  requirePersonify: boolean;
  /** The URL the request was made to, as the x402 resource. */
  resourceUrl: string;
}

/** Spec §8.1: the playground's calls per account, like a playground key's defaults. */
export const PLAYGROUND_RATE_LIMITS: RateLimits = { minute: 25, hour: 100, day: 500 };

/**
 * The authenticate stage of API routes: the key header's owner (cached
 * lookup, 401 when missing or invalid), or nobody when no key was sent and
 * self-serve payments are on (the persona then decides: x402 or 401).
 *
 * @throws {ServiceError} 401
 */
export async function apiCaller(context: PipelineContext, request: Request): Promise<Caller> {
  const credential = readApiKey(request);
  if (credential === undefined && context.billing.payments.enabled) {
    return { kind: "anonymous" };
  }
  if (credential !== undefined && isAccessToken(credential)) {
    return { kind: "oauth", access: await authenticateAccessToken(context, request, credential) };
  }
  return { kind: "api_key", owner: await authenticate(request, context.keys) };
}

function checkPersonify(persona: Persona, target: PersonaTarget): void {
  if (target.requirePersonify && !persona.personifyAccess) {
    throw new ServiceError(
      "personify_not_allowed",
      "this persona does not have access to /personify; ask the operator to enable it",
    );
  }
}

/**
 * The authorize stage: the persona exists and belongs to the caller's
 * account, the account is active, /personify access when asked; for a
 * keyless request to a self-serve persona, the x402 payment is verified
 * (402 with the challenge when it is missing). The persona returned is the
 * version that answers the caller: the canary's for callers in its share
 * (personas/canary-assignment.ts), else the live one.
 *
 * @throws {ServiceError} 401, 402, 403 or 404 in the endpoint's format
 */
export async function authorize(
  context: PipelineContext,
  caller: Caller,
  target: PersonaTarget,
  request: Request,
): Promise<{ persona: Persona; payer: Payer }> {
  if (caller.kind === "anonymous") {
    const persona = await context.personas.find(target.personaId);
    const price = persona?.selfServePriceMicros;
    if (persona === undefined || price === undefined) {
      // Not self-serve: a key is required (docs/API.md §5.6).
      await authenticate(request, context.keys);
      throw new Error("unreachable: authenticate refuses a request without a key");
    }
    checkPersonify(persona, target);
    const payment = await context.billing.payments.admit(
      persona,
      price,
      target.resourceUrl,
      request.get(X402_HEADERS.paymentSignature),
    );
    return {
      persona: servedPersona(persona, canarySubject({ kind: "x402", payer: payment.payer })),
      payer: { kind: "x402", accountId: persona.accountId, payment },
    };
  }
  if (caller.kind === "api_key") {
    const { owner } = caller;
    const persona = await authorizePersona(owner, target.personaId, context.personas, target.param);
    checkPersonify(persona, target);
    return {
      persona: servedPersona(persona, canarySubject({ kind: "api_key", keyId: owner.id })),
      payer: {
        kind: "balance",
        accountId: owner.accountId,
        apiKeyId: owner.id,
        oauthGrantId: null,
        rateLimit: {
          bucket: keyBucket(owner.id),
          limits: resolveRateLimits(owner.rateLimitOverrides.key, owner.rateLimitOverrides.account),
        },
        reportsRateLimits: true,
      },
    };
  }
  if (caller.kind === "oauth") return authorizeGrant(context, caller.access, target);
  const account = await context.accounts.find(caller.accountId);
  if (account?.status !== "active") {
    throw new ServiceError(
      "account_inactive",
      "Your account is not active, so it cannot use keys or personas.",
    );
  }
  const persona = await context.personas.find(target.personaId);
  if (persona?.accountId !== caller.accountId) {
    throw new ServiceError("unknown_persona", `unknown personaId: ${target.personaId}`, {
      param: target.param,
    });
  }
  checkPersonify(persona, target);
  return {
    persona: servedPersona(
      persona,
      canarySubject({ kind: "session", accountId: caller.accountId }),
    ),
    payer: {
      kind: "balance",
      accountId: caller.accountId,
      apiKeyId: null,
      oauthGrantId: null,
      rateLimit: { bucket: `playground:${caller.accountId}`, limits: PLAYGROUND_RATE_LIMITS },
      reportsRateLimits: false,
    },
  };
}

/**
 * The authorize stage of an OAuth access token: the token speaks for one
 * account and one persona, so any other persona is unknown to it (404);
 * the account must be active (403). Billed to the account and rate limited
 * per grant under the account's limits, as an API key without overrides
 * of its own; the answer reports `rateLimits` as for a key.
 */
async function authorizeGrant(
  context: PipelineContext,
  access: AccessGrant,
  target: PersonaTarget,
): Promise<{ persona: Persona; payer: Payer }> {
  if (access.accountStatus !== "active") {
    throw new ServiceError(
      "account_inactive",
      "API key not associated with an active billing account",
    );
  }
  const persona =
    target.personaId === access.personaId
      ? await context.personas.find(target.personaId)
      : undefined;
  if (persona?.accountId !== access.accountId) {
    throw new ServiceError("unknown_persona", `unknown personaId: ${target.personaId}`, {
      param: target.param,
    });
  }
  checkPersonify(persona, target);
  return {
    persona: servedPersona(persona, canarySubject({ kind: "oauth", grantId: access.grantId })),
    payer: {
      kind: "balance",
      accountId: access.accountId,
      apiKeyId: null,
      oauthGrantId: access.grantId,
      rateLimit: {
        bucket: `oauth:${access.grantId}`,
        limits: resolveRateLimits(
          { minute: null, hour: null, day: null },
          access.accountRateLimits,
        ),
      },
      reportsRateLimits: true,
    },
  };
}

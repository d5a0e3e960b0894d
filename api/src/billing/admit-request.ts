import type { RateLimit } from "@persona-reply/shared";
import type { Request, Response } from "express";
import { authenticate, readApiKey } from "../auth/authenticate.js";
import { authorizePersona } from "../auth/authorize-persona.js";
import { ServiceError } from "../http/service-error.js";
import { type VerifiedPayment, X402_HEADERS } from "../payments/x402-gate.js";
import type { Persona } from "../personas/persona.js";
import { rateLimitHeaders } from "../rate-limits/rate-limit-headers.js";
import { resolveRateLimits } from "../rate-limits/rate-limit-windows.js";
import type { Services } from "../services.js";
import type { UsageInput } from "./usage-store.js";

/** The three metered endpoints. */
export type Endpoint = UsageInput["endpoint"];

/** A request let in: who pays for it and how. */
export interface Admission {
  endpoint: Endpoint;
  persona: Persona;
  /** The account charged (for x402, the persona's owner, whose usage it is). */
  accountId: string;
  apiKeyId: string | null;
  requestId: string | null;
  /** The key's windows after this request (API-key requests only). */
  rateLimits?: RateLimit[];
  /** The verified x402 payment of a keyless request to a self-serve persona. */
  payment?: VerifiedPayment;
  /** The URL the request was made to, as the x402 resource. */
  resourceUrl: string;
}

/** What an endpoint asks {@link admitRequest} to check. */
export interface AdmissionTarget {
  endpoint: Endpoint;
  personaId: string;
  /** The request field that carried the persona ID (`personaId` or `model`). */
  param: string;
  /** /personify: the persona must have /personify access (spec §4.2). */
  requirePersonify?: boolean;
}

function requestIdOf(request: Request): string | null {
  const id = (request as Request & { id?: unknown }).id;
  return typeof id === "string" || typeof id === "number" ? String(id) : null;
}

function checkPersonify(persona: Persona, target: AdmissionTarget): void {
  if (target.requirePersonify === true && !persona.personifyAccess) {
    throw new ServiceError(
      "personify_not_allowed",
      "this persona does not have access to /personify; ask the operator to enable it",
    );
  }
}

/**
 * Lets a request in, or refuses it (DESIGN.md request path: authenticate →
 * authorize → rate limits). With an API key: authenticate (401), account
 * active and persona of the account (403, 404), /personify access (403),
 * then the key's rate limits, whose figures go out as `RateLimit-Policy` /
 * `RateLimit` headers whatever the outcome (429 with `Retry-After` when a
 * window is full; a refused request consumes no window). Without a key: a
 * self-serve persona gets the x402 challenge or has its payment verified
 * (402); any other persona 401 (spec §5.6).
 *
 * @throws {ServiceError} 401, 402, 403, 404 or 429 as above
 */
export async function admitRequest(
  services: Services,
  request: Request,
  response: Response,
  target: AdmissionTarget,
): Promise<Admission> {
  const requestId = requestIdOf(request);
  const publicUrl = services.config.PERSONA_PUBLIC_URL?.replace(/\/$/u, "");
  const resourceUrl = `${publicUrl ?? `${request.protocol}://${request.get("host") ?? "localhost"}`}${request.originalUrl}`;
  const { billing } = services;

  if (readApiKey(request) === undefined && billing.payments.enabled) {
    const persona = await services.personas.find(target.personaId);
    const price = persona?.selfServePriceMicros;
    if (persona !== undefined && price !== undefined) {
      checkPersonify(persona, target);
      const payment = await billing.payments.admit(
        persona,
        price,
        resourceUrl,
        request.get(X402_HEADERS.paymentSignature),
      );
      return {
        endpoint: target.endpoint,
        persona,
        accountId: persona.accountId,
        apiKeyId: null,
        requestId,
        payment,
        resourceUrl,
      };
    }
  }

  const owner = await authenticate(request, services.keys);
  const persona = await authorizePersona(owner, target.personaId, services.personas, target.param);
  checkPersonify(persona, target);
  const limits = resolveRateLimits(owner.rateLimitOverrides.key, owner.rateLimitOverrides.account);
  const now = Date.now();
  const decision = await billing.rateLimiter.consume(owner.id, limits, now);
  const headers = rateLimitHeaders(decision.windows, Math.ceil(now / 1000));
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
  if (!decision.allowed) {
    const retryAfter = String(decision.retryAfterSeconds ?? 1);
    await billing.usage.record({
      accountId: owner.accountId,
      apiKeyId: owner.id,
      personaId: persona.id,
      endpoint: target.endpoint,
      status: 429,
      inputTokens: 0,
      outputTokens: 0,
      costMicros: 0,
      requestId,
      paymentMethod: "none",
      paymentReference: null,
    });
    const full = decision.windows
      .filter((window) => window.remaining === 0)
      .map((window) => `${window.limit} requests per ${window.window}`);
    throw new ServiceError(
      "rate_limited",
      `rate limit reached (${full.join(", ")}); retry after ${retryAfter} seconds`,
      { headers: { "Retry-After": retryAfter } },
    );
  }
  return {
    endpoint: target.endpoint,
    persona,
    accountId: owner.accountId,
    apiKeyId: owner.id,
    requestId,
    rateLimits: decision.windows,
    resourceUrl,
  };
}

import { performance } from "node:perf_hooks";
import { trace } from "@opentelemetry/api";
import type { RateLimit } from "@persona-reply/shared";
import type { Request, Response } from "express";
import type { z } from "zod";
import type { EngineOutput, EngineTask } from "../engine/persona-engine.js";
import type { ErrorCode } from "../http/service-error.js";
import { clientGoneSignal, validateBody } from "../http/validate-body.js";
import type { Persona } from "../personas/persona.js";
import { personaAttributes } from "../tracing/route-spans.js";
import { inSpan } from "../tracing/tracing.js";
import type { Endpoint } from "../usage/usage-record.js";
import { type Admission, admit } from "./admission.js";
import { authorize, type Caller } from "./authorize.js";
import type { PipelineContext } from "./pipeline-context.js";
import { releaseAfterFailure, settle, type UsageContext } from "./settlement.js";

/**
 * What one metered endpoint adds to the request pipeline: how its body is
 * read, which persona it names, what it asks the engine, and how the
 * answer is written. /generate, /personify and /completions each define
 * one (in their own folders); the playground reuses the first two.
 */
export interface MeteredEndpoint<Body, Payload> {
  name: Endpoint;
  /** The contract schema of the request body (from `shared`). */
  schema: z.ZodType<Body>;
  /** The error of an invalid body: 422 on /generate, 400 on /personify and /completions (docs/API.md §7). */
  invalidBody: ErrorCode;
  /** The request field naming the persona (`personaId`, or `model` on /completions). */
  personaField: string;
  personaIdOf(body: Body): string;
  /** /personify: the persona must have /personify access (docs/API.md §4.2). */
  requiresPersonify: boolean;
  /** The engine task of a body. */
  task(body: Body): EngineTask;
  /**
   * The response body (docs/API.md §4.1–4.3).
   *
   * @param rateLimits - the key's windows after this request, on API-key requests
   * @param persona - the persona (at the version) that answered
   */
  present(
    body: Body,
    output: EngineOutput,
    rateLimits: RateLimit[] | undefined,
    persona: Persona,
  ): Payload;
}

/**
 * The response header naming the persona version that answered a metered
 * request (the spec leaves headers open): `Persona-Version: 3`.
 * Set once the persona is known, so refusals after that carry it too.
 */
export const PERSONA_VERSION_HEADER = "Persona-Version";

function requestIdOf(request: Request): string | null {
  const id = (request as Request & { id?: unknown }).id;
  return typeof id === "string" || typeof id === "number" ? String(id) : null;
}

/**
 * The request path of the service (docs/ARCHITECTURE.md "The request path"),
 * read top to bottom and shared by /generate, /personify, /completions and
 * the playground:
 *
 * 1. parse and validate the body (400/422)
 * 2. authenticate — done by the caller's route: `caller` (401)
 * 3. authorize the persona (403/404; x402's 402), and refuse one whose
 *    route this instance cannot serve (503, before anything is counted or held)
 * 4. rate limits and 5. reserve — one storage call (429)
 * 6. reply — the persona engine, which knows nothing of money (502/504)
 * 7. settle — durable before the answer (503 when the store cannot)
 * 8. respond
 *
 * A failure after the reservation releases it and charges nothing.
 *
 * @param caller - who calls, from the route's authentication (API key or session)
 */
export async function serveMetered<Body, Payload>(
  context: PipelineContext,
  endpoint: MeteredEndpoint<Body, Payload>,
  request: Request,
  response: Response,
  caller: (request: Request, response: Response) => Promise<Caller>,
): Promise<void> {
  const startedAt = performance.now();
  const body = validateBody(endpoint.schema, request.body, endpoint.invalidBody);
  const who = await caller(request, response);
  const usage: UsageContext = {
    endpoint: endpoint.name,
    requestId: requestIdOf(request),
    resourceUrl: resourceUrlOf(context, request),
    startedAt,
  };
  const { persona, payer } = await authorize(
    context,
    who,
    {
      personaId: endpoint.personaIdOf(body),
      param: endpoint.personaField,
      requirePersonify: endpoint.requiresPersonify,
      resourceUrl: usage.resourceUrl,
    },
    request,
  );
  // The version that answers, on every response from here on; bodies stay as docs/API.md §4 gives them.
  response.setHeader(PERSONA_VERSION_HEADER, String(persona.version));
  try {
    context.engine.requireServable(persona);
  } catch (error) {
    // Nothing is held yet: only the usage row of the refusal (cost 0), and an x402 payment forgotten.
    await releaseAfterFailure(context, { payer }, persona, usage, error);
    throw error;
  }
  const task = endpoint.task(body);
  const call = context.engine.prepare(persona, task);
  const traced = context.tracing === undefined ? {} : personaAttributes(persona);
  if (context.tracing !== undefined) trace.getActiveSpan()?.setAttributes(traced);
  const admission: Admission = await inSpan(context.tracing, "admission", traced, () =>
    admit(
      context,
      payer,
      persona,
      call,
      { ...usage, route: `${request.baseUrl}${request.path}` },
      response,
    ),
  );
  let output: EngineOutput;
  try {
    output = await call.run(clientGoneSignal(response));
  } catch (error) {
    await releaseAfterFailure(context, admission, persona, usage, error);
    throw error;
  }
  await inSpan(context.tracing, "settlement", traced, () =>
    settle(context, admission, persona, output, usage, response),
  );
  response.json(endpoint.present(body, output, admission.rateLimits, persona));
  // After the answer is written: sampling queues it in constant time, or ignores it.
  context.sampler?.offer(persona, endpoint.name, task, output);
}

function resourceUrlOf(context: PipelineContext, request: Request): string {
  const publicUrl = context.config.PERSONA_PUBLIC_URL?.replace(/\/$/u, "");
  return `${publicUrl ?? `${request.protocol}://${request.get("host") ?? "localhost"}`}${request.originalUrl}`;
}

import type { RequestHandler } from "express";
import { ExampleAppError } from "../errors.js";
import type { QuickstartResponse } from "../route-types.js";
import { parseBody, quickstartRequestSchema } from "../schemas.js";
import type { ResolveTarget } from "../service-access.js";
import { abortOnClose } from "./abort-on-close.js";
import { completionChunks } from "./completion-chunks.js";

/**
 * `POST /api/quickstart` `{ prompt, personaId? }` → `{ text, model, chunks }`
 * (docs/API.md §4.6): one prompt, one reply, through the completions-style endpoint
 * with the official `openai` client (the persona ID is the `model`).
 *
 * @example
 * // what the route does, in three lines of your own product:
 * const client = new OpenAI({ baseURL: `${origin}/api/v1`, apiKey: process.env.SERVICE_API_KEY });
 * const completion = await client.completions.create({ model: personaId, prompt });
 * const text = completion.choices[0]?.text;
 */
export function quickstartRoute(resolveTarget: ResolveTarget): RequestHandler {
  return async (request, response) => {
    const body = parseBody(quickstartRequestSchema, request.body);
    const target = resolveTarget(body.personaId);
    const completion = await target
      .completions()
      .completions.create(
        { model: target.personaId, prompt: body.prompt },
        { signal: abortOnClose(response) },
      );
    const choice = completion.choices[0];
    if (choice === undefined) {
      throw new ExampleAppError("provider", 502, "the service returned no completion");
    }
    const answer: QuickstartResponse = {
      text: choice.text,
      model: completion.model,
      chunks: completionChunks(choice, choice.text),
    };
    response.json(answer);
  };
}

import type { RouteTarget } from "../personas/model-route.js";
import type { ProviderMessage, ProviderUsage } from "../providers/model-provider.js";
import {
  maxOutputTokensOfModel,
  priceOfModel,
  type UpstreamPrice,
  type Upstreams,
} from "../providers/upstream-config.js";
import { tokenCost } from "./money.js";

/**
 * Tokens assumed per message on top of its text for the reservation: the
 * chat format's role and separator tokens, generously.
 */
const TOKENS_PER_MESSAGE_OVERHEAD = 16;

/** What a route target costs: its price and the output cap a reservation assumes. */
export interface TargetPrice extends UpstreamPrice {
  /** Output tokens one candidate may use at most (the upstream's `maxOutputTokens`). */
  maxOutputTokens: number;
}

function chargesTokens(price: UpstreamPrice): boolean {
  return price.inputMicrosPerMillionTokens > 0 || price.outputMicrosPerMillionTokens > 0;
}

/**
 * Prices of model calls (docs/CONFIGURATION.md "The upstream
 * file"): every upstream of the operator configuration
 * carries its price — a flat price per request and a price per million
 * input and output tokens, in micro-units — optionally per model. The price
 * of a served request is the price of the target that answered it.
 */
export class PriceList {
  constructor(private readonly upstreams: Upstreams) {}

  /** The price of a target, or undefined when its upstream is not configured here. */
  priceOf(target: RouteTarget): TargetPrice | undefined {
    const upstream = this.upstreams.get(target.upstream);
    if (upstream === undefined) return undefined;
    return {
      ...priceOfModel(upstream, target.model),
      maxOutputTokens: maxOutputTokensOfModel(upstream, target.model),
    };
  }

  /**
   * An upper bound of a request's cost, reserved before the model call: the
   * most any configured target of the route could cost, since any of them
   * may be the one that answers. For a target priced by tokens, input tokens
   * are bounded by the prompt's UTF-8 bytes (a byte-level tokenizer never
   * makes more tokens than bytes) plus a per-message overhead, output by its
   * `maxOutputTokens` per candidate; each candidate is its own upstream call
   * with the whole prompt. 0 when no target's upstream is configured (the
   * engine then refuses the call).
   *
   * @param prompt - the messages sent to the provider; read only when a target charges tokens
   */
  reservationMicros(
    route: readonly RouteTarget[],
    prompt: () => readonly ProviderMessage[],
    candidates: number,
  ): number {
    let inputTokens: number | undefined;
    const promptTokens = () => {
      if (inputTokens === undefined) {
        inputTokens = 0;
        for (const message of prompt()) {
          inputTokens += Buffer.byteLength(message.content, "utf8") + TOKENS_PER_MESSAGE_OVERHEAD;
        }
      }
      return inputTokens;
    };
    let bound = 0;
    for (const target of route) {
      const price = this.priceOf(target);
      if (price === undefined) continue;
      const cost = chargesTokens(price)
        ? price.requestMicros +
          tokenCost(promptTokens() * candidates, price.inputMicrosPerMillionTokens) +
          tokenCost(price.maxOutputTokens * candidates, price.outputMicrosPerMillionTokens)
        : price.requestMicros;
      bound = Math.max(bound, cost);
    }
    return bound;
  }

  /**
   * The real cost of a served request: the answering target's price applied
   * to the provider's reported usage.
   *
   * @throws {Error} when the target's upstream is not configured (it cannot have answered)
   */
  costMicros(target: RouteTarget, usage: ProviderUsage): number {
    const price = this.priceOf(target);
    if (price === undefined) {
      throw new Error(`no price for ${target.upstream}:${target.model}: upstream not configured`);
    }
    return (
      price.requestMicros +
      tokenCost(usage.inputTokens, price.inputMicrosPerMillionTokens) +
      tokenCost(usage.outputTokens, price.outputMicrosPerMillionTokens)
    );
  }
}

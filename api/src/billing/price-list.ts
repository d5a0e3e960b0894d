import type { ModelRoute } from "../personas/persona-traits.js";
import type { ProviderMessage, ProviderUsage } from "../providers/model-provider.js";
import { DEFAULT_PRICES, type RoutePrice } from "./billing-config.js";
import { tokenCost } from "./money.js";

/**
 * Tokens assumed per message on top of its text for the reservation: the
 * chat format's role and separator tokens, generously.
 */
const TOKENS_PER_MESSAGE_OVERHEAD = 16;

/**
 * Resolves what a model route costs (DESIGN.md "Rate limits and balance";
 * issue "Accounts and balance"): the operator's `PERSONA_MODEL_PRICES`
 * entry for `provider:model`, else for `provider:*`, else the built-in
 * default of the provider.
 */
export class PriceList {
  private readonly table: Record<string, RoutePrice>;

  constructor(operatorTable: Record<string, RoutePrice> = {}) {
    this.table = { ...DEFAULT_PRICES, ...operatorTable };
  }

  /** The price of a route. */
  priceOf(route: ModelRoute): RoutePrice {
    return (
      this.table[`${route.provider}:${route.model}`] ??
      this.table[`${route.provider}:*`] ?? {
        requestMicros: 0,
        inputMicrosPerMillionTokens: 0,
        outputMicrosPerMillionTokens: 0,
        maxOutputTokens: 2048,
      }
    );
  }

  /** Whether the route charges by tokens (so a reservation needs the prompt's size). */
  chargesTokens(route: ModelRoute): boolean {
    const price = this.priceOf(route);
    return price.inputMicrosPerMillionTokens > 0 || price.outputMicrosPerMillionTokens > 0;
  }

  /**
   * An upper bound of a request's cost, reserved before the model call.
   * Input tokens are bounded by the prompt's UTF-8 bytes (a byte-level
   * tokenizer never makes more tokens than bytes) plus a per-message
   * overhead; output by the route's `maxOutputTokens` per candidate. Each
   * candidate is its own upstream call with the whole prompt.
   *
   * @param prompt - the messages sent to the provider (unused by flat-priced routes)
   */
  reservationMicros(
    route: ModelRoute,
    prompt: () => readonly ProviderMessage[],
    candidates: number,
  ): number {
    const price = this.priceOf(route);
    if (!this.chargesTokens(route)) return price.requestMicros;
    const messages = prompt();
    let inputTokens = 0;
    for (const message of messages) {
      inputTokens += Buffer.byteLength(message.content, "utf8") + TOKENS_PER_MESSAGE_OVERHEAD;
    }
    return (
      price.requestMicros +
      tokenCost(inputTokens * candidates, price.inputMicrosPerMillionTokens) +
      tokenCost(price.maxOutputTokens * candidates, price.outputMicrosPerMillionTokens)
    );
  }

  /** The real cost of a served request, from the provider's reported usage. */
  costMicros(route: ModelRoute, usage: ProviderUsage): number {
    const price = this.priceOf(route);
    return (
      price.requestMicros +
      tokenCost(usage.inputTokens, price.inputMicrosPerMillionTokens) +
      tokenCost(usage.outputTokens, price.outputMicrosPerMillionTokens)
    );
  }
}

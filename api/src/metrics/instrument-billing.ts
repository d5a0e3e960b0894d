import type { Billing } from "../billing/create-billing.js";
import type { Metrics } from "./metrics.js";

/**
 * Counts charges (`persona_charges_total`, `persona_charged_micros_total`)
 * where money moves: a balance settlement (API-key and playground
 * requests) and a usage row recorded with a cost (x402 payments, whose
 * usage is recorded after the facilitator settled). The billing stores keep
 * their behaviour; only these two methods of this instance are wrapped, so
 * billing's own code needs no knowledge of metrics.
 */
export function instrumentBilling(billing: Billing, metrics: Metrics): void {
  const { balances, usage } = billing;
  const settle = balances.settle.bind(balances);
  balances.settle = async (reservation, costMicros, usageInput) => {
    const settlement = await settle(reservation, costMicros, usageInput);
    if (settlement.chargedMicros > 0) {
      const labels = { endpoint: usageInput.endpoint, payment_method: usageInput.paymentMethod };
      metrics.charges.inc(labels);
      metrics.chargedMicros.inc(labels, settlement.chargedMicros);
    }
    return settlement;
  };
  const record = usage.record.bind(usage);
  usage.record = async (usageInput) => {
    const id = await record(usageInput);
    if (usageInput.costMicros > 0) {
      const labels = { endpoint: usageInput.endpoint, payment_method: usageInput.paymentMethod };
      metrics.charges.inc(labels);
      metrics.chargedMicros.inc(labels, usageInput.costMicros);
    }
    return id;
  };
}

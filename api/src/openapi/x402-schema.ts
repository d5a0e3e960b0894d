import { z } from "zod";

/**
 * The x402 v2 `PaymentRequired` object: the body (and, base64-encoded, the
 * `PAYMENT-REQUIRED` header) of a 402 payment challenge (docs/API.md §5.6; §7.5
 * leaves the body "not shown", api/README.md fills it with x402). The
 * protocol's own schema in `@x402/core` is written for zod 3, which zod 4's
 * JSON Schema output cannot read, so its shape is restated here for the
 * document; the OpenAPI test checks real 402 bodies against both.
 */
export const paymentRequiredSchema = z.object({
  x402Version: z.literal(2).describe("x402 protocol version."),
  error: z
    .string()
    .optional()
    .describe("Why the payment is required again: missing, invalid, mismatched or unsettled."),
  resource: z
    .object({
      url: z.string().describe("The URL the request was made to."),
      description: z.string().optional(),
      mimeType: z.string().optional(),
      serviceName: z.string().optional(),
      tags: z.array(z.string()).optional(),
      iconUrl: z.string().optional(),
    })
    .describe("The paid resource."),
  accepts: z
    .array(
      z.object({
        scheme: z.string().describe('Payment scheme, `"exact"`.'),
        network: z.string().describe("CAIP-2 network, e.g. `eip155:84532` (Base Sepolia)."),
        amount: z.string().describe("Price in atomic units of the asset."),
        asset: z.string().describe("Token contract address."),
        payTo: z.string().describe("Receiving address."),
        maxTimeoutSeconds: z.number().describe("How long a payment authorization stays valid."),
        extra: z.record(z.string(), z.unknown()).nullable().optional(),
      }),
    )
    .describe("Ways to pay; sign one and retry with a `PAYMENT-SIGNATURE` header."),
  extensions: z.record(z.string(), z.unknown()).nullable().optional(),
});

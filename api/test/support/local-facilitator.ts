import http from "node:http";
import type { AddressInfo } from "node:net";
import { readBodyText } from "../../../test-support/read-body.js";

/** A verify or settle request as the facilitator received it (the x402 wire format). */
interface FacilitatorRequest {
  x402Version: number;
  paymentPayload: {
    x402Version: number;
    accepted: { amount: string; payTo: string; network: string };
    payload: { signature?: string; authorization?: { from?: string; nonce?: string } };
  };
  paymentRequirements: { amount: string; payTo: string; network: string };
}

/**
 * A local x402 facilitator on a loopback port: a test double speaking the
 * facilitator protocol (`POST /verify`, `POST /settle`, `GET /supported`)
 * that `@x402/core`'s HTTPFacilitatorClient talks to. Instead of checking an
 * EIP-3009 signature on a chain it accepts payloads whose `signature`
 * starts with `valid:`; settlement returns a made-up transaction hash.
 */
export interface LocalFacilitator {
  url: string;
  verifications: FacilitatorRequest[];
  settlements: FacilitatorRequest[];
  /** When false, settlement fails (`success: false`). */
  settleSucceeds: boolean;
  close(): Promise<void>;
}

/** Starts a {@link LocalFacilitator} on 127.0.0.1 with a random port. */
export async function startLocalFacilitator(): Promise<LocalFacilitator> {
  const facilitator: LocalFacilitator = {
    url: "",
    verifications: [],
    settlements: [],
    settleSucceeds: true,
    close: async () => {},
  };
  const server = http.createServer((request, response) => {
    // A request that fails before its end is not answered: its client went away.
    readBodyText(request).then(
      (raw) => {
        const reply = (status: number, body: unknown) => {
          response.writeHead(status, { "content-type": "application/json" });
          response.end(JSON.stringify(body));
        };
        if (request.method === "GET" && request.url === "/supported") {
          reply(200, {
            kinds: [{ x402Version: 2, scheme: "exact", network: "eip155:84532" }],
            extensions: [],
            signers: {},
          });
          return;
        }
        const body = JSON.parse(raw) as FacilitatorRequest;
        const payer =
          body.paymentPayload.payload.authorization?.from ??
          "0x0000000000000000000000000000000000000001";
        const signed = body.paymentPayload.payload.signature?.startsWith("valid:") === true;
        const amountMatches =
          body.paymentPayload.accepted.amount === body.paymentRequirements.amount;
        if (request.url === "/verify") {
          facilitator.verifications.push(body);
          reply(
            200,
            signed && amountMatches
              ? { isValid: true, payer }
              : { isValid: false, invalidReason: "invalid_exact_evm_payload_signature", payer },
          );
          return;
        }
        if (request.url === "/settle") {
          facilitator.settlements.push(body);
          const nonce = body.paymentPayload.payload.authorization?.nonce ?? "0";
          reply(
            200,
            facilitator.settleSucceeds
              ? {
                  success: true,
                  transaction: `0x${nonce.padStart(64, "0")}`,
                  network: body.paymentRequirements.network,
                  payer,
                }
              : {
                  success: false,
                  errorReason: "insufficient_funds",
                  transaction: "",
                  network: body.paymentRequirements.network,
                  payer,
                },
          );
          return;
        }
        reply(404, { error: "not found" });
      },
      () => undefined,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  facilitator.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  facilitator.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return facilitator;
}

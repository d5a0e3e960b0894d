import { randomBytes } from "node:crypto";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Persona } from "../src/personas/persona.js";
import { readExamplePersona } from "../src/seed/demo-seed.js";
import { type LocalFacilitator, startLocalFacilitator } from "./support/local-facilitator.js";
import { describeEachDialect } from "./support/test-databases.js";
import { startTestService, type TestService } from "./support/test-service.js";

const PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";
const PRICE_MICROS = 10_000; // 0.01 USD, i.e. 10000 atomic units of a 6-decimal token

/**
 * An x402 scheme client for the tests' facilitator: where the real `exact`
 * EVM scheme signs an EIP-3009 authorization with a wallet, this one writes
 * a payload the local facilitator accepts (or, with `valid: false`, rejects).
 */
function testScheme(valid = true, window: { validAfter?: number; validBefore?: number } = {}) {
  return {
    scheme: "exact",
    async createPaymentPayload(x402Version: number, requirements: PaymentRequirements) {
      const nonce = `0x${randomBytes(32).toString("hex")}`;
      const now = Math.floor(Date.now() / 1000);
      return {
        x402Version,
        payload: {
          signature: `${valid ? "valid" : "forged"}:${nonce}`,
          authorization: {
            from: "0x00000000000000000000000000000000000000aA",
            to: requirements.payTo,
            value: requirements.amount,
            validAfter: String(window.validAfter ?? now - 600),
            validBefore: String(window.validBefore ?? now + requirements.maxTimeoutSeconds),
            nonce,
          },
        },
      };
    },
  };
}

function paymentClient(valid = true, window: { validAfter?: number; validBefore?: number } = {}) {
  return new x402HTTPClient(
    x402Client.fromConfig({
      schemes: [{ network: "eip155:*", client: testScheme(valid, window) }],
      spendControls: false,
    }),
  );
}

/**
 * The same payment header written differently: its JSON with the keys of
 * every object in reverse order, spaces and new lines, and the payer's and
 * nonce's hex in upper case — the same payment to the token contract.
 */
function reEncoded(header: string): string {
  const reorder = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(reorder);
    if (typeof value !== "object" || value === null) return value;
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([key, inner]) => [key, reorder(inner)]),
    );
  };
  const decoded = JSON.parse(Buffer.from(header, "base64").toString("utf8")) as {
    payload: { authorization: { from: string; nonce: string } };
  };
  const { authorization } = decoded.payload;
  authorization.from = `0x${authorization.from.slice(2).toUpperCase()}`;
  authorization.nonce = `0x${authorization.nonce.slice(2).toUpperCase()}`;
  return Buffer.from(` ${JSON.stringify(reorder(decoded), null, 2)}\n`).toString("base64");
}

await describeEachDialect("402 payment challenge (docs/API.md §5.6, x402)", (database) => {
  let facilitator: LocalFacilitator;
  let service: TestService;
  let selfServe: Persona;
  beforeAll(async () => {
    facilitator = await startLocalFacilitator();
    service = await startTestService({
      PERSONA_DATABASE_URL: database.url,
      PERSONA_X402_FACILITATOR_URL: facilitator.url,
      PERSONA_X402_PAY_TO: PAY_TO,
    });
    const created = await service.services.personas.create(service.accountId, {
      ...readExamplePersona(),
      personifyAccess: true,
    });
    selfServe = (await service.services.personas.setSelfServe(created.id, PRICE_MICROS)) ?? created;
  });
  afterAll(async () => {
    await service?.stop();
    await facilitator?.close();
  });

  const generate = (personaId: string, headers: Record<string, string> = {}) =>
    fetch(`${service.url}/api/v1/generate`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ personaId, messages: [{ role: "user", content: "Hello!" }] }),
    });

  it("challenges a keyless request with the x402 PaymentRequired object", async () => {
    const response = await generate(selfServe.id);
    expect(response.status).toBe(402);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const header = response.headers.get("payment-required");
    expect(header).not.toBeNull();
    const challenge = decodePaymentRequiredHeader(header ?? "");
    expect(await response.json()).toEqual(challenge);
    expect(challenge).toMatchObject({
      x402Version: 2,
      resource: { url: `${service.url}/api/v1/generate`, mimeType: "application/json" },
      accepts: [
        {
          scheme: "exact",
          network: "eip155:84532",
          asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
          amount: "10000",
          payTo: PAY_TO,
          maxTimeoutSeconds: 60,
          extra: { name: "USDC", version: "2" },
        },
      ],
    });
    expect(challenge.error).toMatch(/payment required/u);
    // The official client reads the same challenge.
    expect(
      paymentClient().getPaymentRequiredResponse((name) => response.headers.get(name)),
    ).toEqual(challenge);
  });

  it("serves a paid retry, settles it and records it in the usage ledger, without touching balances", async () => {
    const balanceBefore = await service.services.billing.balances.balanceOf(service.accountId);
    const client = paymentClient();
    const challenge = await generate(selfServe.id);
    const required = client.getPaymentRequiredResponse((name) => challenge.headers.get(name));
    const payload = await client.createPaymentPayload(required);
    const settlementsBefore = facilitator.settlements.length;
    const paid = await generate(selfServe.id, {
      ...client.encodePaymentSignatureHeader(payload),
      "x-request-id": "paid-request",
    });
    expect(paid.status).toBe(200);
    expect(((await paid.json()) as { status: string }).status).toBe("success");
    const settlement = client.getPaymentSettleResponse((name) => paid.headers.get(name));
    expect(settlement).toMatchObject({ success: true, network: "eip155:84532" });
    expect(facilitator.settlements).toHaveLength(settlementsBefore + 1);
    expect(paid.headers.get("ratelimit")).toBeNull();

    const [row] = await service.services.usage.findByRequestIds(["paid-request"]);
    expect(row).toMatchObject({
      accountId: service.accountId,
      apiKeyId: null,
      personaId: selfServe.id,
      status: 200,
      costMicros: PRICE_MICROS,
      paymentMethod: "x402",
      paymentReference: settlement.transaction,
      upstream: "offline",
      model: "offline-composer-1",
    });
    expect(await service.services.billing.balances.balanceOf(service.accountId)).toEqual(
      balanceBefore,
    );

    // The same payment header twice is a replay.
    const verificationsBefore = facilitator.verifications.length;
    const replay = await generate(selfServe.id, client.encodePaymentSignatureHeader(payload));
    expect(replay.status).toBe(402);
    expect(((await replay.json()) as { error: string }).error).toMatch(/already used/u);

    // So is the same payment (payer and nonce) encoded again: refused before the facilitator.
    const header = client.encodePaymentSignatureHeader(payload)["PAYMENT-SIGNATURE"] ?? "";
    const copy = reEncoded(header);
    expect(copy).not.toBe(header);
    const copied = await generate(selfServe.id, { "PAYMENT-SIGNATURE": copy });
    expect(copied.status).toBe(402);
    expect(((await copied.json()) as { error: string }).error).toBe(
      "invalid payment: this payment was already used",
    );
    expect(facilitator.verifications).toHaveLength(verificationsBefore);
    expect(facilitator.settlements).toHaveLength(settlementsBefore + 1);
  });

  it("refuses an expired, not yet valid or too long valid authorization before asking the facilitator", async () => {
    const now = Math.floor(Date.now() / 1000);
    const verificationsBefore = facilitator.verifications.length;
    for (const [window, reason] of [
      [{ validBefore: now - 60 }, "invalid_exact_evm_payload_authorization_valid_before"],
      // Within x402's 6-second margin: it would expire before reaching the chain.
      [{ validBefore: now + 3 }, "invalid_exact_evm_payload_authorization_valid_before"],
      [{ validAfter: now + 600 }, "invalid_exact_evm_payload_authorization_valid_after"],
      // Valid for longer than retention keeps its row (90 days): it could be used again after.
      [
        { validBefore: now + 91 * 86_400 },
        "invalid_exact_evm_payload_authorization_valid_before (it must expire within 90 days)",
      ],
    ] as const) {
      const client = paymentClient(true, window);
      const challenge = await generate(selfServe.id);
      const payload = await client.createPaymentPayload(
        client.getPaymentRequiredResponse((name) => challenge.headers.get(name)),
      );
      const refused = await generate(selfServe.id, client.encodePaymentSignatureHeader(payload));
      expect(refused.status).toBe(402);
      const body = (await refused.json()) as { error: string; x402Version: number };
      expect(body).toMatchObject({ x402Version: 2, error: `invalid payment: ${reason}` });
      expect(decodePaymentRequiredHeader(refused.headers.get("payment-required") ?? "").error).toBe(
        body.error,
      );
    }
    expect(facilitator.verifications).toHaveLength(verificationsBefore);
  });

  it("rejects a bad payment without serving or settling it", async () => {
    const client = paymentClient(false);
    const challenge = await generate(selfServe.id);
    const payload = await client.createPaymentPayload(
      client.getPaymentRequiredResponse((name) => challenge.headers.get(name)),
    );
    const settlementsBefore = facilitator.settlements.length;
    const rejected = await generate(selfServe.id, client.encodePaymentSignatureHeader(payload));
    expect(rejected.status).toBe(402);
    expect(((await rejected.json()) as { error: string }).error).toBe(
      "invalid payment: invalid_exact_evm_payload_signature",
    );
    expect(
      decodePaymentRequiredHeader(rejected.headers.get("payment-required") ?? "").accepts,
    ).toHaveLength(1);

    // Underpaying: the payload's accepted amount differs from the requirement.
    const good = await paymentClient().createPaymentPayload(
      decodePaymentRequiredHeader(challenge.headers.get("payment-required") ?? ""),
    );
    const cheap: PaymentPayload = { ...good, accepted: { ...good.accepted, amount: "1" } };
    const underpaid = await generate(selfServe.id, {
      "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(cheap),
    });
    expect(underpaid.status).toBe(402);
    expect(((await underpaid.json()) as { error: string }).error).toMatch(/does not match/u);

    const garbage = await generate(selfServe.id, { "PAYMENT-SIGNATURE": "not base64 json!" });
    expect(garbage.status).toBe(402);
    expect(facilitator.settlements).toHaveLength(settlementsBefore);
  });

  it("answers 402 when settlement fails, charging nothing", async () => {
    const client = paymentClient();
    const challenge = await generate(selfServe.id);
    const payload = await client.createPaymentPayload(
      client.getPaymentRequiredResponse((name) => challenge.headers.get(name)),
    );
    facilitator.settleSucceeds = false;
    try {
      const response = await generate(selfServe.id, {
        ...client.encodePaymentSignatureHeader(payload),
        "x-request-id": "unsettled",
      });
      expect(response.status).toBe(402);
      expect(((await response.json()) as { error: string }).error).toBe(
        "payment not settled: insufficient_funds",
      );
    } finally {
      facilitator.settleSucceeds = true;
    }
    const [row] = await service.services.usage.findByRequestIds(["unsettled"]);
    expect(row).toMatchObject({ status: 402, costMicros: 0, paymentMethod: "x402" });
  });

  it("pays on /personify and /completions too", async () => {
    const client = paymentClient();
    for (const [path, body] of [
      ["/api/v1/personify", { personaId: selfServe.id, raw: "The shop opens at nine." }],
      ["/api/v1/completions", { model: selfServe.id, prompt: "Hello" }],
    ] as const) {
      const send = (headers: Record<string, string>) =>
        fetch(`${service.url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: JSON.stringify(body),
        });
      const challenge = await send({});
      expect(challenge.status).toBe(402);
      const payload = await client.createPaymentPayload(
        client.getPaymentRequiredResponse((name) => challenge.headers.get(name)),
      );
      const paid = await send(client.encodePaymentSignatureHeader(payload));
      expect(paid.status).toBe(200);
    }
  });

  it("answers 401 without a key for a persona that is not self-serve, and a key still works on a self-serve one", async () => {
    const plain = await generate(service.persona.id);
    expect(plain.status).toBe(401);
    expect(await plain.text()).toMatch(/missing API key/u);
    const unknown = await generate("0b5e3c2a-7d4f-4e8a-9c1b-2f3e4d5c6b7a");
    expect(unknown.status).toBe(401);
    const withKey = await service.post("/api/v1/generate", {
      personaId: selfServe.id,
      messages: [{ role: "user", content: "Hi" }],
    });
    expect(withKey.status).toBe(200);
  });
});

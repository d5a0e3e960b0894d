import type { PaymentMethod, UsageRecordsTable } from "../storage/ledger-usage-row.js";

/** One request as the usage ledger records it. */
export interface UsageInput {
  accountId: string;
  apiKeyId: string | null;
  personaId: string | null;
  endpoint: "generate" | "personify" | "completions";
  /** HTTP status of the answer. */
  status: number;
  inputTokens: number;
  outputTokens: number;
  /** Charged amount in micro-units (0 for anything but a served request). */
  costMicros: number;
  requestId: string | null;
  paymentMethod: PaymentMethod;
  paymentReference: string | null;
  /** The route target that answered (served requests); absent or null otherwise. */
  upstream?: string | null;
  model?: string | null;
  /** The persona version that answered; absent or null when none did. */
  personaVersion?: number | null;
  /** Milliseconds from the request's arrival to its settlement or failure; absent or null when not measured. */
  durationMs?: number | null;
  /** The OAuth grant (connected app) whose access token made the request; absent or null for any other caller. */
  oauthGrantId?: string | null;
}

/** The three metered endpoints. */
export type Endpoint = UsageInput["endpoint"];

/** A usage record as read back. */
export interface UsageRecord extends UsageInput {
  id: string;
  createdAt: string;
}

/** Maps a usage input to its row (used inside the settle transaction too); nothing charged (settlement sets `charged_micros`). */
export function usageRow(id: string, createdAt: string, usage: UsageInput): UsageRecordsTable {
  return {
    id,
    created_at: createdAt,
    account_id: usage.accountId,
    api_key_id: usage.apiKeyId,
    persona_id: usage.personaId,
    endpoint: usage.endpoint,
    status: usage.status,
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cost_micros: usage.costMicros,
    request_id: usage.requestId,
    payment_method: usage.paymentMethod,
    payment_reference: usage.paymentReference,
    upstream: usage.upstream ?? null,
    model: usage.model ?? null,
    persona_version: usage.personaVersion ?? null,
    charged_micros: 0,
    duration_ms: usage.durationMs ?? null,
    oauth_grant_id: usage.oauthGrantId ?? null,
  };
}

/** Reads a usage row (as stored, or as archived by retention) back as a record. */
export function usageRecordOf(row: UsageRecordsTable): UsageRecord {
  return {
    id: row.id,
    createdAt: row.created_at,
    accountId: row.account_id,
    apiKeyId: row.api_key_id,
    personaId: row.persona_id,
    endpoint: row.endpoint as UsageInput["endpoint"],
    status: row.status,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    costMicros: Number(row.cost_micros),
    requestId: row.request_id,
    paymentMethod: row.payment_method,
    paymentReference: row.payment_reference,
    upstream: row.upstream,
    model: row.model,
    personaVersion: row.persona_version === null ? null : Number(row.persona_version),
    // Rows archived before migration 0027 have no duration.
    durationMs: row.duration_ms == null ? null : Number(row.duration_ms),
    // Rows archived before migration 0030 have no grant.
    oauthGrantId: row.oauth_grant_id ?? null,
  };
}

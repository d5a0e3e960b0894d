/** One line of a usage report: an account's use of a persona on one UTC day. */
export interface UsageReportLine {
  accountId: string;
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  personaId: string | null;
  /** The persona version that answered; present only when the report is split by version. */
  personaVersion?: number | null;
  /**
   * The upstream that answered (its name in the operator configuration),
   * or null for requests refused before any target was asked (401, 402, 429 …).
   */
  upstream: string | null;
  /** The model of that upstream, or null with `upstream`. */
  model: string | null;
  requests: number;
  /** Requests answered 200. */
  served: number;
  inputTokens: number;
  outputTokens: number;
  costMicros: number;
}

/** Filters of a usage report; dates are `YYYY-MM-DD`, both ends included. */
export interface UsageReportFilter {
  accountId?: string;
  personaId?: string;
  from?: string;
  to?: string;
  /** Split each persona's lines by the version that answered (issue 25). */
  byVersion?: boolean;
}

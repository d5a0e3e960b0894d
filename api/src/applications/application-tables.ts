/**
 * Tables of the access applications (migration `0029_applications`,
 * docs/API.md §1.6). Dialect-neutral like the rest of the store: text and
 * integer columns, times as ISO 8601 UTC strings.
 */
export interface ApplicationTables {
  applications: ApplicationsTable;
  application_events: ApplicationEventsTable;
}

/** Where an application stands; see docs/OPERATIONS.md "Review access applications". */
export type ApplicationStatus = "unconfirmed" | "in_review" | "approved" | "rejected";

/** One application for access: one per e-mail address. */
export interface ApplicationsTable {
  /** UUID. */
  id: string;
  /** Normalized (trimmed, lower-case) address; unique. */
  email: string;
  name: string;
  company: string;
  /** What the persona is for, as the applicant wrote it. */
  purpose: string;
  /** One of the form's volume choices (application-fields.ts). */
  expected_volume: string;
  /** 1: the applicant agreed to be contacted about the application. */
  contact_consent: number;
  status: ApplicationStatus;
  /** SHA-256 of the address-confirmation token while unconfirmed; null after. */
  confirm_token_hash: string | null;
  confirm_expires_at: string | null;
  created_at: string;
  confirmed_at: string | null;
  decided_at: string | null;
  /** The operator who approved or rejected it. */
  decided_by: string | null;
  /** The approval's note or the rejection's reason. */
  decision_note: string | null;
  /** The account made at approval. */
  account_id: string | null;
}

/** One transition of an application: when, by whom, from what to what. */
export interface ApplicationEventsTable {
  id: string;
  application_id: string;
  /** Null for the submission that created the application. */
  from_status: ApplicationStatus | null;
  to_status: ApplicationStatus;
  at: string;
  /** `applicant` for the applicant's own steps, else the operator's name. */
  actor: string;
  note: string | null;
}

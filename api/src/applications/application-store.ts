import { randomUUID } from "node:crypto";
import type { Selectable } from "kysely";
import { AccountStore } from "../accounts/account-store.js";
import { AllowedEmailStore } from "../playground/allowed-email-store.js";
import { generateSecretToken, hashSecretToken } from "../playground/secret-token.js";
import { SessionStore } from "../playground/session-store.js";
import type { Database } from "../storage/database.js";
import type { ApplicationFields } from "./application-fields.js";
import type { ApplicationStatus, ApplicationsTable } from "./application-tables.js";

export type { ApplicationStatus } from "./application-tables.js";

/** How long the address-confirmation link of an application works: 24 hours. */
export const CONFIRMATION_LINK_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** The name the applicant's own steps are recorded under. */
export const APPLICANT_ACTOR = "applicant";

/** An application for access (docs/API.md §1.6). */
export interface Application {
  id: string;
  email: string;
  name: string;
  company: string;
  purpose: string;
  expectedVolume: string;
  contactConsent: boolean;
  status: ApplicationStatus;
  createdAt: string;
  confirmedAt: string | null;
  decidedAt: string | null;
  decidedBy: string | null;
  /** The approval's note or the rejection's reason. */
  decisionNote: string | null;
  accountId: string | null;
}

/** One recorded transition of an application. */
export interface ApplicationEvent {
  fromStatus: ApplicationStatus | null;
  toStatus: ApplicationStatus;
  at: string;
  /** {@link APPLICANT_ACTOR} or the operator's name. */
  actor: string;
  note: string | null;
}

/** What {@link ApplicationStore.submit} did. */
export type SubmitOutcome =
  /** A new application: `token` goes into the confirmation link and nowhere else. */
  | { kind: "created"; application: Application; token: string }
  /** The address had an unconfirmed application: it now holds the new fields and a new link. */
  | { kind: "renewed"; application: Application; token: string }
  /** The address applied and confirmed already: nothing changed. */
  | { kind: "exists"; application: Application };

/** What a decision ({@link ApplicationStore.approve}, {@link ApplicationStore.reject}) did. */
export type DecisionOutcome =
  | { kind: "decided"; application: Application }
  /** Not in review (answered already, or not confirmed yet): nothing changed. */
  | { kind: "not_in_review"; application: Application }
  | { kind: "unknown" };

function toApplication(row: Selectable<ApplicationsTable>): Application {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    company: row.company,
    purpose: row.purpose,
    expectedVolume: row.expected_volume,
    contactConsent: Number(row.contact_consent) === 1,
    status: row.status,
    createdAt: row.created_at,
    confirmedAt: row.confirmed_at,
    decidedAt: row.decided_at,
    decidedBy: row.decided_by,
    decisionNote: row.decision_note,
    accountId: row.account_id,
  };
}

type Executor = Pick<Database, "insertInto">;

async function record(
  database: Executor,
  applicationId: string,
  event: ApplicationEvent,
): Promise<void> {
  await database
    .insertInto("application_events")
    .values({
      id: randomUUID(),
      application_id: applicationId,
      from_status: event.fromStatus,
      to_status: event.toStatus,
      at: event.at,
      actor: event.actor,
      note: event.note,
    })
    .execute();
}

/**
 * The access applications and their transitions: submitted (unconfirmed),
 * address confirmed (in review), then approved or rejected by an operator,
 * once. Every transition is a conditional update, so of two concurrent
 * answers only one takes effect; each is recorded with its time and actor.
 */
export class ApplicationStore {
  constructor(private readonly database: Database) {}

  /**
   * Stores an application, one per address. A new address gets an
   * unconfirmed application and a confirmation token; an address whose
   * application is still unconfirmed gets its fields replaced and a new
   * token (the old link stops working); an address that confirmed already
   * gets its application back unchanged. Unconfirmed applications whose
   * link expired are removed first.
   */
  async submit(fields: ApplicationFields, now = new Date()): Promise<SubmitOutcome> {
    return this.submitOnce(fields, now, false);
  }

  private async submitOnce(
    fields: ApplicationFields,
    now: Date,
    retried: boolean,
  ): Promise<SubmitOutcome> {
    const at = now.toISOString();
    await this.database
      .deleteFrom("applications")
      .where("status", "=", "unconfirmed")
      .where("confirm_expires_at", "<", at)
      .execute();
    const token = generateSecretToken();
    const expiresAt = new Date(now.getTime() + CONFIRMATION_LINK_LIFETIME_MS).toISOString();
    const values = {
      name: fields.name,
      company: fields.company,
      purpose: fields.purpose,
      expected_volume: fields.expectedVolume,
      contact_consent: fields.contactConsent ? 1 : 0,
      confirm_token_hash: hashSecretToken(token),
      confirm_expires_at: expiresAt,
    };
    const id = randomUUID();
    const inserted = await this.database
      .insertInto("applications")
      .values({
        id,
        email: fields.email,
        ...values,
        status: "unconfirmed",
        created_at: at,
        confirmed_at: null,
        decided_at: null,
        decided_by: null,
        decision_note: null,
        account_id: null,
      })
      .onConflict((conflict) => conflict.column("email").doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) {
      await record(this.database, id, {
        fromStatus: null,
        toStatus: "unconfirmed",
        at,
        actor: APPLICANT_ACTOR,
        note: null,
      });
      return { kind: "created", application: await this.require(id), token };
    }
    const renewed = await this.database
      .updateTable("applications")
      .set(values)
      .where("email", "=", fields.email)
      .where("status", "=", "unconfirmed")
      .executeTakeFirst();
    const application = await this.findByEmail(fields.email);
    if (application === undefined) {
      // Removed between the insert and now (its link expired): a rare race; try once more.
      if (retried) throw new Error(`the application of ${fields.email} vanished twice`);
      return this.submitOnce(fields, now, true);
    }
    if (Number(renewed.numUpdatedRows) === 1) return { kind: "renewed", application, token };
    return { kind: "exists", application };
  }

  /** The unconfirmed application a confirmation token stands for; undefined when used, expired or unknown. */
  async peekConfirmation(token: string, now = new Date()): Promise<Application | undefined> {
    const row = await this.database
      .selectFrom("applications")
      .selectAll()
      .where("confirm_token_hash", "=", hashSecretToken(token))
      .where("status", "=", "unconfirmed")
      .where("confirm_expires_at", ">", now.toISOString())
      .executeTakeFirst();
    return row && toApplication(row);
  }

  /**
   * Confirms the address of an application: it enters review. Conditional,
   * so a link works once.
   *
   * @returns the application in review, or undefined when the token is used, expired or unknown
   */
  async confirm(token: string, now = new Date()): Promise<Application | undefined> {
    const at = now.toISOString();
    const id = await this.database.transaction().execute(async (transaction) => {
      const row = await transaction
        .selectFrom("applications")
        .select("id")
        .where("confirm_token_hash", "=", hashSecretToken(token))
        .executeTakeFirst();
      if (row === undefined) return undefined;
      const updated = await transaction
        .updateTable("applications")
        .set({
          status: "in_review",
          confirmed_at: at,
          confirm_token_hash: null,
          confirm_expires_at: null,
        })
        .where("id", "=", row.id)
        .where("status", "=", "unconfirmed")
        .where("confirm_expires_at", ">", at)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) return undefined;
      await record(transaction, row.id, {
        fromStatus: "unconfirmed",
        toStatus: "in_review",
        at,
        actor: APPLICANT_ACTOR,
        note: null,
      });
      return row.id;
    });
    return id === undefined ? undefined : this.require(id);
  }

  /**
   * Approves an application in review, in one transaction: the conditional
   * update to `approved` (of two operators approving at once, the second
   * finds it approved and changes nothing), a new active account named
   * after the company, the applicant's address allowed to sign in to it
   * (an address allowed for another account before moves, and its
   * sessions end), and the record of the transition.
   */
  async approve(
    id: string,
    decision: { operator: string; note: string | null },
    now = new Date(),
  ): Promise<DecisionOutcome> {
    const at = now.toISOString();
    const approved = await this.database.transaction().execute(async (transaction) => {
      const updated = await transaction
        .updateTable("applications")
        .set({
          status: "approved",
          decided_at: at,
          decided_by: decision.operator,
          decision_note: decision.note,
        })
        .where("id", "=", id)
        .where("status", "=", "in_review")
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) return false;
      const row = await transaction
        .selectFrom("applications")
        .select(["email", "company"])
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      const account = await new AccountStore(transaction).create(row.company);
      await transaction
        .updateTable("applications")
        .set({ account_id: account.id })
        .where("id", "=", id)
        .execute();
      const emails = new AllowedEmailStore(transaction);
      const before = await emails.find(row.email);
      await emails.allow(row.email, account.id);
      if (before !== undefined) {
        await new SessionStore(transaction, 0).revokeAllForEmail(row.email, now);
      }
      await record(transaction, id, {
        fromStatus: "in_review",
        toStatus: "approved",
        at,
        actor: decision.operator,
        note: decision.note,
      });
      return true;
    });
    return this.outcome(id, approved);
  }

  /** Rejects an application in review with a reason (conditional, like {@link approve}). */
  async reject(
    id: string,
    decision: { operator: string; reason: string },
    now = new Date(),
  ): Promise<DecisionOutcome> {
    const at = now.toISOString();
    const rejected = await this.database.transaction().execute(async (transaction) => {
      const updated = await transaction
        .updateTable("applications")
        .set({
          status: "rejected",
          decided_at: at,
          decided_by: decision.operator,
          decision_note: decision.reason,
        })
        .where("id", "=", id)
        .where("status", "=", "in_review")
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) return false;
      await record(transaction, id, {
        fromStatus: "in_review",
        toStatus: "rejected",
        at,
        actor: decision.operator,
        note: decision.reason,
      });
      return true;
    });
    return this.outcome(id, rejected);
  }

  private async outcome(id: string, decided: boolean): Promise<DecisionOutcome> {
    const application = await this.find(id);
    if (application === undefined) return { kind: "unknown" };
    return decided ? { kind: "decided", application } : { kind: "not_in_review", application };
  }

  private async require(id: string): Promise<Application> {
    const application = await this.find(id);
    if (application === undefined) throw new Error(`application ${id} vanished`);
    return application;
  }

  /** Finds an application by ID. */
  async find(id: string): Promise<Application | undefined> {
    const row = await this.database
      .selectFrom("applications")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirst();
    return row && toApplication(row);
  }

  /** Finds the application of a normalized address. */
  async findByEmail(email: string): Promise<Application | undefined> {
    const row = await this.database
      .selectFrom("applications")
      .selectAll()
      .where("email", "=", email)
      .executeTakeFirst();
    return row && toApplication(row);
  }

  /** The approved application an account was made for, if any. */
  async findByAccount(accountId: string): Promise<Application | undefined> {
    const row = await this.database
      .selectFrom("applications")
      .selectAll()
      .where("account_id", "=", accountId)
      .executeTakeFirst();
    return row && toApplication(row);
  }

  /** Lists applications, of one status when given, oldest first. */
  async list(status?: ApplicationStatus): Promise<Application[]> {
    let query = this.database.selectFrom("applications").selectAll();
    if (status !== undefined) query = query.where("status", "=", status);
    const rows = await query.orderBy("created_at").orderBy("id").execute();
    return rows.map(toApplication);
  }

  /** The recorded transitions of an application, oldest first. */
  async events(id: string): Promise<ApplicationEvent[]> {
    const rows = await this.database
      .selectFrom("application_events")
      .selectAll()
      .where("application_id", "=", id)
      .orderBy("at")
      .orderBy("id")
      .execute();
    return rows.map((row) => ({
      fromStatus: row.from_status,
      toStatus: row.to_status,
      at: row.at,
      actor: row.actor,
      note: row.note,
    }));
  }
}

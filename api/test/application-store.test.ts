import { afterAll, beforeAll, expect, it } from "vitest";
import { ApplicationStore } from "../src/applications/application-store.js";
import { AllowedEmailStore } from "../src/playground/allowed-email-store.js";
import type { Services } from "../src/services.js";
import { runAdmin } from "./support/admin-in-process.js";
import { describeEachDialect } from "./support/test-databases.js";
import { closeStore, openStore } from "./support/test-store.js";

// The application store's transitions on each dialect, in this process:
// many approvals of one application at once (on PostgreSQL over the pool's
// separate connections) make one account; and text that reached the store
// by any way is printed by persona-admin with its control characters escaped.

async function inReview(store: ApplicationStore, email: string, company: string): Promise<string> {
  const submitted = await store.submit({
    email,
    name: "Applicant",
    company,
    purpose: "Tests",
    expectedVolume: "unsure",
    contactConsent: true,
  });
  if (submitted.kind === "exists") throw new Error("applied already");
  const confirmed = await store.confirm(submitted.token);
  expect(confirmed?.status).toBe("in_review");
  // A link works once.
  expect(await store.confirm(submitted.token)).toBeUndefined();
  return submitted.application.id;
}

await describeEachDialect("application store", (database) => {
  let services: Services;
  let store: ApplicationStore;

  beforeAll(async () => {
    services = await openStore(database.url);
    store = new ApplicationStore(services.database);
  });
  afterAll(async () => {
    await closeStore(services);
  });

  it("approves once when eight approvals race, with one account and one transition", async () => {
    const id = await inReview(store, "race@example.com", "Racing Ltd");
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        store.approve(id, { operator: `operator-${index}`, note: null }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.kind === "decided")).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.kind === "not_in_review")).toHaveLength(7);
    const accounts = (await services.accounts.list()).filter((item) => item.name === "Racing Ltd");
    expect(accounts).toHaveLength(1);
    const application = await store.find(id);
    expect(application?.accountId).toBe(accounts[0]?.id);
    expect(
      (await new AllowedEmailStore(services.database).find("race@example.com"))?.accountId,
    ).toBe(accounts[0]?.id);
    const events = await store.events(id);
    expect(events.map((event) => event.toStatus)).toEqual(["unconfirmed", "in_review", "approved"]);
    expect(events[2]?.actor).toBe(application?.decidedBy);
    // Rejecting an approved application changes nothing.
    expect((await store.reject(id, { operator: "late", reason: "no" })).kind).toBe("not_in_review");
  });

  it("refuses a decision on an application whose address is not confirmed", async () => {
    const submitted = await store.submit({
      email: "unconfirmed@example.com",
      name: "U",
      company: "U Co",
      purpose: "Tests",
      expectedVolume: "unsure",
      contactConsent: true,
    });
    const outcome = await store.approve(submitted.application.id, { operator: "op", note: null });
    expect(outcome.kind).toBe("not_in_review");
    expect((await store.approve("no-such-id", { operator: "op", note: null })).kind).toBe(
      "unknown",
    );
  });

  it("prints stored control characters escaped in every persona-admin output", async () => {
    const id = await inReview(store, "ansi@example.com", "Plain Co");
    // Written past the form's cleaning, as a restored backup or an older version might hold it.
    await services.database
      .updateTable("applications")
      .set({
        name: "Eve\u001b[2J\u001b]0;owned\u0007",
        company: "Co\u009b31m\u202edesrever",
        purpose: "one\ntwo\u001b[1A",
      })
      .where("id", "=", id)
      .execute();
    for (const args of [
      ["application", "list"],
      ["application", "list", "--json"],
      ["application", "show", id],
      ["application", "show", id, "--json"],
    ]) {
      const run = await runAdmin(services, ...args);
      expect(run.code, args.join(" ")).toBe(0);
      expect(run.stdout, args.join(" ")).not.toMatch(/(?!\n)[\p{Cc}\p{Cf}]/u);
      // The list shows the company, the rest the name too: each escape visible.
      expect(run.stdout, args.join(" ")).toContain("\\u009b31m\\u202edesrever");
    }
    const json = JSON.parse((await runAdmin(services, "application", "show", id, "--json")).stdout);
    expect(json.name).toBe("Eve\u001b[2J\u001b]0;owned\u0007");
  });
});

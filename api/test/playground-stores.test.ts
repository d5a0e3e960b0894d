import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AccountStore } from "../src/accounts/account-store.js";
import { AllowedEmailStore, normalizeEmail } from "../src/playground/allowed-email-store.js";
import { KEY_FLASH_LIFETIME_MS, KeyFlashStore } from "../src/playground/key-flash-store.js";
import { SessionStore } from "../src/playground/session-store.js";
import {
  SIGN_IN_LINK_LIFETIME_MS,
  SignInTokenStore,
} from "../src/playground/sign-in-token-store.js";
import type { Services } from "../src/services.js";
import type { Database } from "../src/storage/database.js";
import { describeEachDialect } from "./support/test-databases.js";
import { closeStore, openStore } from "./support/test-store.js";

// The playground's stores (migration 0003_playground), once per dialect: the
// same migrations and queries on SQLite and PostgreSQL.

await describeEachDialect("playground stores", (testDatabase) => {
  let services: Services;
  let database: Database;
  let accountId: string;
  beforeAll(async () => {
    services = await openStore(testDatabase.url);
    database = services.database;
    accountId = (await new AccountStore(database).create("Acme")).id;
  });
  afterAll(async () => {
    await closeStore(services);
  });

  describe("allowed e-mail addresses", () => {
    it("normalizes addresses and refuses what is not one", () => {
      expect(normalizeEmail("  Ada@Example.COM ")).toBe("ada@example.com");
      expect(normalizeEmail("not an address")).toBeUndefined();
      expect(normalizeEmail(`${"a".repeat(250)}@example.com`)).toBeUndefined();
    });

    it("allows, moves, lists and removes an address", async () => {
      const emails = new AllowedEmailStore(database);
      const other = (await new AccountStore(database).create("Other")).id;
      await emails.allow("ada@example.com", accountId);
      await emails.allow("ada@example.com", other);
      expect((await emails.find("ada@example.com"))?.accountId).toBe(other);
      expect((await emails.list(other)).map((entry) => entry.email)).toEqual(["ada@example.com"]);
      expect(await emails.remove("ada@example.com")).toBe(true);
      expect(await emails.remove("ada@example.com")).toBe(false);
    });
  });

  describe("sign-in link tokens", () => {
    const tokens = () => new SignInTokenStore(database);

    it("are long random values stored only as hashes", async () => {
      const { token } = await tokens().issue({
        email: "a@example.com",
        accountId,
        returnTo: null,
      });
      expect(token).toMatch(/^[\w-]{43}$/u);
      const rows = await database.selectFrom("sign_in_tokens").select("token_hash").execute();
      expect(rows.some((row) => row.token_hash.includes(token))).toBe(false);
    });

    it("work once", async () => {
      const { token } = await tokens().issue({
        email: "a@example.com",
        accountId,
        returnTo: "/keys",
      });
      expect(await tokens().peek(token)).toMatchObject({
        email: "a@example.com",
        returnTo: "/keys",
      });
      const [first, second] = await Promise.all([tokens().consume(token), tokens().consume(token)]);
      expect([first, second].filter((grant) => grant !== undefined)).toHaveLength(1);
      expect(await tokens().consume(token)).toBeUndefined();
    });

    it("expire after 15 minutes", async () => {
      const issued = new Date("2030-01-01T00:00:00.000Z");
      const { token } = await tokens().issue(
        { email: "a@example.com", accountId, returnTo: null },
        issued,
      );
      const justBefore = new Date(issued.getTime() + SIGN_IN_LINK_LIFETIME_MS - 1);
      expect(await tokens().peek(token, justBefore)).toBeDefined();
      const atExpiry = new Date(issued.getTime() + SIGN_IN_LINK_LIFETIME_MS);
      expect(await tokens().consume(token, atExpiry)).toBeUndefined();
    });
  });

  describe("sessions", () => {
    it("are found by their secret until revoked or expired", async () => {
      const sessions = new SessionStore(database, 60_000);
      await new AllowedEmailStore(database).allow("b@example.com", accountId);
      const start = new Date();
      const { session, token } = await sessions.create(
        { accountId, email: "b@example.com", userAgent: "x".repeat(500) },
        start,
      );
      expect(session.userAgent).toHaveLength(200);
      expect((await sessions.findByToken(token, start))?.id).toBe(session.id);
      expect(await sessions.findByToken(token, new Date(start.getTime() + 60_000))).toBeUndefined();
      expect(await sessions.revoke(session.id, "someone-else@example.com")).toBe(false);
      expect(await sessions.revoke(session.id, "b@example.com")).toBe(true);
      expect(await sessions.findByToken(token, start)).toBeUndefined();
    });

    it("end when their address is moved to another account or withdrawn", async () => {
      const sessions = new SessionStore(database, 60_000);
      const emails = new AllowedEmailStore(database);
      const other = (await new AccountStore(database).create("Other")).id;
      await emails.allow("moved@example.com", accountId);
      const { token } = await sessions.create({
        accountId,
        email: "moved@example.com",
        userAgent: undefined,
      });
      expect((await sessions.findByToken(token))?.accountId).toBe(accountId);
      await emails.allow("moved@example.com", other);
      expect(await sessions.findByToken(token)).toBeUndefined();
      await emails.allow("moved@example.com", accountId);
      expect((await sessions.findByToken(token))?.accountId).toBe(accountId);
      await emails.remove("moved@example.com");
      expect(await sessions.findByToken(token)).toBeUndefined();
    });

    it("are all ended for an address", async () => {
      const sessions = new SessionStore(database, 60_000);
      await sessions.create({ accountId, email: "c@example.com", userAgent: undefined });
      await sessions.create({ accountId, email: "c@example.com", userAgent: undefined });
      expect(await sessions.listForEmail("c@example.com")).toHaveLength(2);
      expect(await sessions.revokeAllForEmail("c@example.com")).toBe(2);
      expect(await sessions.listForEmail("c@example.com")).toHaveLength(0);
    });
  });

  describe("key flashes (a new key shown once after the redirect)", () => {
    it("gives a session its keys once, oldest first, and only with its secret", async () => {
      const sessions = new SessionStore(database, 60_000);
      const mine = await sessions.create({ accountId, email: "f@example.com", userAgent: "x" });
      const theirs = await sessions.create({
        accountId,
        email: "g@example.com",
        userAgent: "x",
      });
      const flashes = new KeyFlashStore(database);
      const start = new Date("2030-01-01T00:00:00.000Z");
      const later = new Date(start.getTime() + 1000);
      await flashes.put(mine.session.id, mine.token, { name: "first", key: "prk_one" }, start);
      await flashes.put(mine.session.id, mine.token, { name: "second", key: "prk_two" }, later);
      await flashes.put(theirs.session.id, theirs.token, { name: "x", key: "prk_x" }, later);
      // Another session's ID with this secret (or the other way round) unseals nothing.
      expect(await flashes.take(theirs.session.id, mine.token, later)).toEqual([]);
      expect(await flashes.take(mine.session.id, mine.token, later)).toEqual([
        { name: "first", key: "prk_one" },
        { name: "second", key: "prk_two" },
      ]);
      expect(await flashes.take(mine.session.id, mine.token, later)).toEqual([]);
    });

    it("shows nothing once the flash expired, and clears expired rows", async () => {
      const sessions = new SessionStore(database, 60_000);
      const { session, token } = await sessions.create({
        accountId,
        email: "h@example.com",
        userAgent: "x",
      });
      const flashes = new KeyFlashStore(database);
      const start = new Date("2030-02-01T00:00:00.000Z");
      const expired = new Date(start.getTime() + KEY_FLASH_LIFETIME_MS);
      await flashes.put(session.id, token, { name: "old", key: "prk_old" }, start);
      expect(await flashes.take(session.id, token, expired)).toEqual([]);
      await flashes.put(session.id, token, { name: "a", key: "prk_a" }, start);
      await flashes.put(session.id, token, { name: "b", key: "prk_b" }, expired);
      const left = await database.selectFrom("playground_key_flashes").select("id").execute();
      expect(left).toHaveLength(1);
    });
  });
});

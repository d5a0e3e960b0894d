import { describe, expect, it } from "vitest";
import { parseWith } from "./errors.js";
import { generateRequestSchema } from "./generate.js";
import { messageSchema, normalizeTimestamp } from "./message.js";

describe("Message (docs/API.md §2)", () => {
  it("normalizes timestamp, createdAt and created_at into an ISO timestamp", () => {
    const iso = "2026-11-21T10:00:00.000Z";
    const seconds = Date.parse(iso) / 1000;
    expect(messageSchema.parse({ role: "user", content: "a", timestamp: seconds })).toEqual({
      role: "user",
      content: "a",
      timestamp: iso,
    });
    expect(
      messageSchema.parse({ role: "user", content: "a", createdAt: seconds * 1000 }).timestamp,
    ).toBe(iso);
    expect(messageSchema.parse({ role: "user", content: "a", created_at: iso }).timestamp).toBe(
      iso,
    );
    expect(
      messageSchema.parse({ role: "user", content: "a", created_at: String(seconds) }).timestamp,
    ).toBe(iso);
  });

  it("prefers timestamp over createdAt over created_at", () => {
    const parsed = messageSchema.parse({
      role: "user",
      content: "a",
      timestamp: "2026-01-01T00:00:00Z",
      createdAt: "2025-01-01T00:00:00Z",
    });
    expect(parsed.timestamp).toBe("2026-01-01T00:00:00.000Z");
  });

  it("rejects unreadable dates and names the field", () => {
    const outcome = parseWith(messageSchema, { role: "user", content: "a", createdAt: "soon" });
    expect(outcome).toEqual({
      ok: false,
      problem: { param: "createdAt", message: "createdAt: is not a readable date" },
    });
    expect(normalizeTimestamp(Number.NaN)).toBeUndefined();
  });

  it("accepts text parts and rejects other part types", () => {
    expect(
      messageSchema.safeParse({ role: "user", content: [{ type: "text", text: "hi" }] }).success,
    ).toBe(true);
    expect(
      messageSchema.safeParse({ role: "user", content: [{ type: "image", url: "x" }] }).success,
    ).toBe(false);
  });

  it("reports missing required fields as 'is required'", () => {
    const outcome = parseWith(generateRequestSchema, {
      messages: [{ role: "user", content: "hi" }],
    });
    expect(outcome).toEqual({
      ok: false,
      problem: { param: "personaId", message: "personaId: is required" },
    });
  });
});

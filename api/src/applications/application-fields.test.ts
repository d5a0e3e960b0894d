import { describe, expect, it } from "vitest";
import { type ApplicationInput, checkApplication, cleanText } from "./application-fields.js";

const valid: ApplicationInput = {
  email: " Ada@Example.com ",
  name: "Ada",
  company: "Engines",
  purpose: "Help desk replies",
  expectedVolume: "unsure",
  contactConsent: "yes",
};

describe("the application form's fields", () => {
  it("normalizes the address and keeps clean text as it is", () => {
    const checked = checkApplication(valid);
    expect(checked).toEqual({
      ok: true,
      fields: {
        email: "ada@example.com",
        name: "Ada",
        company: "Engines",
        purpose: "Help desk replies",
        expectedVolume: "unsure",
        contactConsent: true,
      },
    });
  });

  it("removes control and format characters; keeps line breaks only where asked", () => {
    expect(cleanText("a\u001b[31mb\u202ec\u0000\r\nd\u0085", true)).toBe("a[31mbc\nd");
    expect(cleanText("a\r\nb\tc", false)).toBe("a b c");
  });

  it("names the problem of each bad field", () => {
    const checked = checkApplication({
      email: "not an address",
      name: "\u0000\u001b",
      company: "c".repeat(161),
      purpose: "p".repeat(5000),
      expectedVolume: "lots",
      contactConsent: "",
    });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(Object.keys(checked.problems).sort()).toEqual([
      "company",
      "contactConsent",
      "email",
      "expectedVolume",
      "name",
      "purpose",
    ]);
    expect(checked.problems.name).toBe("required");
    expect(checked.problems.company).toBe("at most 160 characters");
  });

  it("counts characters, not UTF-16 units, against the limits", () => {
    expect(checkApplication({ ...valid, name: "😀".repeat(120) }).ok).toBe(true);
    expect(checkApplication({ ...valid, name: "😀".repeat(121) }).ok).toBe(false);
  });
});

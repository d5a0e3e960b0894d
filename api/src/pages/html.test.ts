import { describe, expect, it } from "vitest";
import { escapeHtml, html } from "./html.js";

describe("html template", () => {
  it("escapes interpolated text, including attribute quotes", () => {
    const name = `<script>alert("x")</script>' onmouseover='1`;
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      `<p title="${escapeHtml(name)}">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=&#39;1</p>`,
    );
  });

  it("keeps nested templates and renders lists, skipping empty values", () => {
    const items = ["a&b", "c"].map((item) => html`<li>${item}</li>`);
    expect(html`<ul>${items}${undefined}${false}${null}</ul>`.value).toBe(
      "<ul><li>a&amp;b</li><li>c</li></ul>",
    );
  });
});

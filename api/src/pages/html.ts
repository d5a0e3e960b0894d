/** HTML that is already escaped (or trusted markup built by {@link html}). */
export class SafeHtml {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes text for use in HTML content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/gu, (character) => ESCAPES[character] ?? character);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === undefined || value === null || value === false) return "";
  return escapeHtml(String(value));
}

/**
 * Tagged template for server-rendered pages: every interpolated value is
 * escaped unless it is itself {@link SafeHtml}; arrays are rendered item by
 * item; `undefined`, `null` and `false` render nothing.
 *
 * @example
 * html`<p>Signed in as ${email}</p>` // email is escaped
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let output = strings[0] ?? "";
  for (let index = 0; index < values.length; index++) {
    output += render(values[index]) + (strings[index + 1] ?? "");
  }
  return new SafeHtml(output);
}

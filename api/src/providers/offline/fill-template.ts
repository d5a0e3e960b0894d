/** Values for the `{name}` slots of a phrasebook template. */
export type TemplateSlots = Readonly<Record<string, string>>;

// Slot names are short ASCII words, so this pattern cannot backtrack.
const SLOT_PATTERN = /\{([a-zA-Z]+)\}/g;

/**
 * Fills the `{name}` slots of a template. Inserted values are not scanned
 * again, so user text containing braces stays as it is; an unknown slot is
 * left in place so a phrasebook typo shows up in tests.
 *
 * @param template - phrasebook text such as `"As {role}, I am here."`
 * @param slots - the slot values
 * @returns the filled text
 * @example
 * fillTemplate("Hello, {topic}.", { topic: "tea" }); // "Hello, tea."
 */
export function fillTemplate(template: string, slots: TemplateSlots): string {
  return template.replace(SLOT_PATTERN, (slot, name: string) => slots[name] ?? slot);
}

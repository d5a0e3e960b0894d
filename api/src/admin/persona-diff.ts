import { createTwoFilesPatch } from "diff";
import { compileSystemPrompt } from "../engine/system-prompt.js";
import { describeTarget } from "../personas/model-route.js";
import type { Persona } from "../personas/persona.js";

/** One part of a persona compared line by line: its label and its text at a version. */
function parts(persona: Persona): Array<[string, string]> {
  return [
    ["route", `${persona.route.map(describeTarget).join("\n")}\n`],
    ["traits", `${JSON.stringify({ name: persona.name, traits: persona.traits }, null, 2)}\n`],
    ["system-prompt", `${compileSystemPrompt(persona)}\n`],
  ];
}

/**
 * A readable unified diff of two versions of a persona (`persona-admin
 * persona diff ID A B`): the route (one `upstream:model` per
 * line, in order), the name and traits (as JSON), and the compiled system
 * prompt the engine sends — each as its own file `vA/<part>` → `vB/<part>`
 * (the `diff` package's unified format), or `<part>: unchanged`.
 */
export function personaDiff(before: Persona, after: Persona): string {
  const afterParts = new Map(parts(after));
  return parts(before)
    .map(([name, text]) => {
      const next = afterParts.get(name) ?? "";
      if (next === text) return `${name}: unchanged`;
      return createTwoFilesPatch(
        `v${before.version}/${name}`,
        `v${after.version}/${name}`,
        text,
        next,
        undefined,
        undefined,
        { context: 3 },
      )
        .replace(/^=+\n/mu, "")
        .trimEnd();
    })
    .join("\n\n");
}

import type { JsonSchema } from "./openapi-types.js";

/** One row of a field table: a field path, its type and rules. */
export interface FieldRow {
  /** Path such as `messages[].role` or `error.type`. */
  name: string;
  /** Readable type, e.g. `string`, `array of Message`, `one of "user", "assistant"`. */
  type: string;
  required: boolean;
  description: string;
  /** Rules such as `1–500 items`, `format uuid`. */
  rules: string[];
}

const COMPONENT_PREFIX = "#/components/schemas/";
const LARGEST_SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

/** The component name of a `$ref`, or undefined. */
export function componentName(schema: JsonSchema): string | undefined {
  const target = schema.$ref;
  return typeof target === "string" && target.startsWith(COMPONENT_PREFIX)
    ? target.slice(COMPONENT_PREFIX.length)
    : undefined;
}

function isRecord(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function mergeDeep(base: JsonSchema, overlay: JsonSchema): JsonSchema {
  const merged: JsonSchema = { ...base };
  for (const [key, value] of Object.entries(overlay)) {
    const existing = merged[key];
    merged[key] = isRecord(existing) && isRecord(value) ? mergeDeep(existing, value) : value;
  }
  return merged;
}

/**
 * A schema with its `$ref` followed: the component, with the schema's own
 * keywords (e.g. an `enum` narrowing `error.type`) merged over it.
 */
export function resolveSchema(
  schema: JsonSchema,
  components: Record<string, JsonSchema>,
): JsonSchema {
  const name = componentName(schema);
  if (name === undefined) return schema;
  const { $ref: _target, ...overlay } = schema;
  return mergeDeep(components[name] ?? {}, overlay);
}

function literal(value: unknown): string {
  return JSON.stringify(value);
}

/** A readable type of a schema; `$ref`s are named after their component. */
export function typeLabel(schema: JsonSchema, components: Record<string, JsonSchema>): string {
  const name = componentName(schema);
  if (name !== undefined && Object.keys(schema).length === 1) return name;
  const resolved = resolveSchema(schema, components);
  if ("const" in resolved) return literal(resolved.const);
  if (Array.isArray(resolved.enum)) return `one of ${resolved.enum.map(literal).join(", ")}`;
  if (Array.isArray(resolved.anyOf)) {
    return (resolved.anyOf as JsonSchema[])
      .map((member) => typeLabel(member, components))
      .join(" | ");
  }
  const type = resolved.type;
  if (type === "array" && isRecord(resolved.items)) {
    return `array of ${typeLabel(resolved.items, components)}`;
  }
  if (Array.isArray(type)) return type.join(" | ");
  if (typeof type === "string") return type;
  return "any JSON value";
}

function rulesOf(schema: JsonSchema): string[] {
  const rules: string[] = [];
  const range = (low: unknown, high: unknown, unit: string) => {
    const hasLow = typeof low === "number" && low !== -LARGEST_SAFE_INTEGER;
    const hasHigh = typeof high === "number" && high !== LARGEST_SAFE_INTEGER;
    if (hasLow && hasHigh)
      rules.push(low === high ? `exactly ${low}${unit}` : `${low}–${high}${unit}`);
    else if (hasLow) rules.push(`at least ${low}${unit}`);
    else if (hasHigh) rules.push(`at most ${high}${unit}`);
  };
  range(schema.minItems, schema.maxItems, " items");
  range(schema.minLength, schema.maxLength, " characters");
  range(schema.minimum, schema.maximum, "");
  if (typeof schema.format === "string") rules.push(`format ${schema.format}`);
  else if (typeof schema.pattern === "string") rules.push(`pattern ${schema.pattern}`);
  // Rules of the alternatives, e.g. `n`: an integer 1–5 or null.
  if (Array.isArray(schema.anyOf)) {
    for (const member of schema.anyOf) if (isRecord(member)) rules.push(...rulesOf(member));
  }
  return [...new Set(rules)];
}

/** The object schema whose fields a nested table should list, if any. */
function nestedObject(schema: JsonSchema, components: Record<string, JsonSchema>) {
  // A named component has its own table; only anonymous objects are expanded in place.
  if (componentName(schema) !== undefined && Object.keys(schema).length === 1) return undefined;
  const resolved = resolveSchema(schema, components);
  if (isRecord(resolved.properties)) return { schema: resolved, suffix: "." };
  if (resolved.type === "array" && isRecord(resolved.items)) {
    const items = resolved.items;
    if (componentName(items) !== undefined && Object.keys(items).length === 1) return undefined;
    const inner = resolveSchema(items, components);
    if (isRecord(inner.properties)) return { schema: inner, suffix: "[]." };
  }
  return undefined;
}

/**
 * The fields of an object schema as table rows, anonymous nested objects
 * expanded (`result.finalReply`, `choices[].text`) and named components
 * left as links. Depth is bounded, so a recursive schema cannot loop.
 */
export function fieldRows(
  schema: JsonSchema,
  components: Record<string, JsonSchema>,
  prefix = "",
  depth = 0,
): FieldRow[] {
  const resolved = resolveSchema(schema, components);
  const properties = resolved.properties;
  if (!isRecord(properties) || depth > 5) return [];
  const required = new Set(Array.isArray(resolved.required) ? (resolved.required as string[]) : []);
  const rows: FieldRow[] = [];
  for (const [name, value] of Object.entries(properties)) {
    if (!isRecord(value)) continue;
    const property = resolveSchema(value, components);
    rows.push({
      name: `${prefix}${name}`,
      type: typeLabel(value, components),
      required: required.has(name),
      description: typeof property.description === "string" ? property.description : "",
      rules: rulesOf(property),
    });
    const nested = nestedObject(value, components);
    if (nested !== undefined) {
      rows.push(
        ...fieldRows(nested.schema, components, `${prefix}${name}${nested.suffix}`, depth + 1),
      );
    }
  }
  return rows;
}

import { inspect } from "node:util";

/**
 * A secret read from the environment (an upstream's API key). It prints as
 * `[redacted]` wherever it ends up — JSON, logs, `util.inspect`, string
 * templates — so a configuration object can be logged whole; only
 * {@link SecretValue.reveal} gives the value, for the SDK that sends it.
 *
 * @example
 * const key = new SecretValue(process.env.OPENAI_API_KEY ?? "");
 * JSON.stringify({ key }); // '{"key":"[redacted]"}'
 * new OpenAI({ apiKey: key.reveal() });
 */
export class SecretValue {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /** The secret itself; hand it only to the client that sends it upstream. */
  reveal(): string {
    return this.#value;
  }

  toJSON(): string {
    return "[redacted]";
  }

  toString(): string {
    return "[redacted]";
  }

  [inspect.custom](): string {
    return "[redacted]";
  }
}

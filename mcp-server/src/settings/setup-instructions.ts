/**
 * What a person runs to give the server a key: the coding-agent plugin's
 * setup command (browser approval, key written to the env file), the
 * `persona` tool (hidden prompt, key stored in its profile), or variables.
 * The model reading a tool error relays these to the user; none of them
 * passes the key through the conversation.
 */
export function setupInstructions(envFile: string): string[] {
  return [
    `In the coding agent: run the Persona Reply plugin's setup command (\`/persona:setup\` in Claude Code); it gets a key by browser approval and writes it to ${envFile} without showing it.`,
    "Or in the user's own terminal: `persona configure --api-key-stdin --persona-id <persona UUID>` (the key is typed at a hidden prompt and saved to the persona tool's active profile).",
    `Or set SERVICE_API_KEY and SERVICE_PERSONA_ID (and SERVICE_BASE_URL, the service's origin) in this MCP server's environment or in ${envFile}.`,
    "Never ask the user to paste the key into the chat.",
  ];
}

/**
 * Thrown (and turned into a tool error, never a crash) when no API key or no
 * persona ID is configured. The message says what is missing, where the
 * server looked, and how to set it up.
 *
 * @example
 * if (error instanceof SetupRequiredError) console.error(error.missing); // ["apiKey"]
 */
export class SetupRequiredError extends Error {
  override name = "SetupRequiredError";
  /** What is missing: `apiKey`, `personaId` or both. */
  readonly missing: readonly ("apiKey" | "personaId")[];

  constructor(message: string, missing: readonly ("apiKey" | "personaId")[]) {
    super(message);
    this.missing = missing;
  }
}

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
 * What to change after the service refused the key (401), by where the key
 * came from. A key in the server's own environment wins over the env file,
 * so writing a new key there (the plugin's setup command) would change
 * nothing: the environment must change. A key from the env file is replaced
 * there; one from the persona tool's profile by the tool, or by an env file,
 * which is read before the profile.
 *
 * @param source - where the refused key came from
 * @param envFile - the env file the server reads
 */
export function replaceKeyInstructions(
  source: "environment" | "env file" | "profile",
  envFile: string,
): string[] {
  const never = "Never ask the user to paste the key into the chat.";
  if (source === "environment") {
    return [
      `The key is set in this MCP server's own environment (SERVICE_API_KEY), which wins over ${envFile} and the persona tool's profile: a new key written to ${envFile}, for example by the plugin's setup command, would not be used.`,
      "Ask the user to change SERVICE_API_KEY where this server is registered (the `env` of its entry in the agent's MCP configuration, or the shell that starts the agent), or to remove it there so the env file is read, then to restart the server.",
      never,
    ];
  }
  if (source === "env file") {
    return [
      `The key comes from SERVICE_API_KEY in ${envFile}, which is read at every call. Ask the user to replace it there:`,
      `- In the coding agent: run the Persona Reply plugin's setup command (\`/persona:setup\` in Claude Code) and agree to replace the key; it gets a new key by browser approval and writes it to ${envFile} without showing it.`,
      `- Or put a valid key in ${envFile} themselves. No restart is needed.`,
      never,
    ];
  }
  return [
    "The key comes from the persona tool's profile. Ask the user to replace it in their own terminal: `persona login` (browser approval) or `persona configure --api-key-stdin` (hidden prompt).",
    `Or run the plugin's setup command (\`/persona:setup\` in Claude Code), which writes a new key to ${envFile}; that file is read before the profile.`,
    never,
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

/** The environment variables the library reads (docs/API.md §5.4). */
export interface ServiceEnvironment {
  SERVICE_API_KEY?: string | undefined;
  SERVICE_PERSONA_ID?: string | undefined;
  SERVICE_BASE_URL?: string | undefined;
}

/**
 * The process environment when there is one (Node), or an empty record (a
 * browser): read through `globalThis` so the library never imports a Node
 * module.
 */
export function readEnvironment(): ServiceEnvironment {
  const runtime = globalThis as { process?: { env?: Record<string, string | undefined> } };
  return runtime.process?.env ?? {};
}

/** A value, or undefined when it is missing or empty. */
export function present(value: string | undefined | null): string | undefined {
  return value === undefined || value === null || value.trim() === "" ? undefined : value;
}

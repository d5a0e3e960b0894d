/** How many cases a fuzz suite runs, and the case to replay when one is given. */
export interface FuzzSettings {
  runs: number;
  /** fast-check's `assert` parameters: `numRuns`, and `seed` and `path` when replaying. */
  parameters: { numRuns: number; seed?: number; path?: string };
}

/**
 * The settings of a fuzz suite from the environment: `runsVariable` (e.g.
 * `PERSONA_FUZZ_RUNS`) raises or lowers the cases for a longer hunt or a
 * quick run, and `PERSONA_FUZZ_SEED` with `PERSONA_FUZZ_PATH` — both printed
 * by fast-check on a failure — replay one case.
 *
 * @param defaultRuns - cases when the variable is unset
 * @example
 * const { runs, parameters } = fuzzSettings("PERSONA_FUZZ_RUNS", 1500);
 * await fc.assert(property, parameters);
 */
export function fuzzSettings(runsVariable: string, defaultRuns: number): FuzzSettings {
  const runs = Number(process.env[runsVariable] ?? defaultRuns);
  const seed = process.env.PERSONA_FUZZ_SEED;
  const path = process.env.PERSONA_FUZZ_PATH;
  return {
    runs,
    parameters: {
      numRuns: runs,
      ...(seed === undefined ? {} : { seed: Number(seed) }),
      ...(path === undefined ? {} : { path }),
    },
  };
}

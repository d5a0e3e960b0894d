import { randomInt } from "node:crypto";

/**
 * What one candidate asks the upstream for, so that candidates differ
 * (a deterministic upstream gave `n` equal texts when every call
 * sent only the model and the messages).
 */
export interface CandidateSampling {
  /**
   * Sampling temperature, spread evenly over
   * {@link CANDIDATE_TEMPERATURE_RANGE} across the candidates, each its own;
   * within 0–1, which both Anthropic (0–1) and OpenAI-compatible servers
   * (0–2) accept.
   */
  temperature: number;
  /**
   * A seed of its own (a random 31-bit base for the request plus the
   * candidate's index), for OpenAI-compatible servers that sample
   * reproducibly per seed; the Messages API has none.
   */
  seed: number;
}

/** Lowest and highest temperature asked of the candidates of one request. */
export const CANDIDATE_TEMPERATURE_RANGE = { lowest: 0.6, highest: 1 } as const;

/**
 * The sampling of each of `candidates` candidates: none for a single
 * candidate (the upstream's defaults, as before), otherwise a distinct
 * temperature and seed per candidate.
 *
 * @param seedBase - the first candidate's seed (default: random); the others follow it
 * @returns one entry per candidate, in order
 * @example
 * candidateSampling(3, 100);
 * // [{ temperature: 0.6, seed: 100 }, { temperature: 0.8, seed: 101 }, { temperature: 1, seed: 102 }]
 */
export function candidateSampling(
  candidates: number,
  seedBase: number = randomInt(0, 2 ** 31 - 16),
): Array<CandidateSampling | undefined> {
  if (candidates <= 1) return Array.from({ length: candidates }, () => undefined);
  const { lowest, highest } = CANDIDATE_TEMPERATURE_RANGE;
  return Array.from({ length: candidates }, (_unused, index) => ({
    // Rounded to two decimals: a readable value on the wire, still distinct for up to 5 candidates.
    temperature: Math.round((lowest + ((highest - lowest) * index) / (candidates - 1)) * 100) / 100,
    seed: seedBase + index,
  }));
}

/**
 * Makes one upstream call per candidate, in parallel, and resolves with
 * their answers in order. When one call fails the others are aborted (their
 * answers could not be used) and the first failure is thrown. Shared by the
 * providers whose upstreams answer one candidate a call (many
 * OpenAI-compatible servers ignore `n`; the Messages API has none). Each
 * call gets its candidate's {@link CandidateSampling} (undefined for a
 * single candidate), to send what its upstream kind supports.
 *
 * @param signal - the request's signal (deadline or client gone); aborts every call
 * @param call - one upstream call, given a signal to pass to the SDK and the candidate's sampling
 * @throws the first call's failure
 * @example
 * const answers = await callPerCandidate(3, request.signal, (signal, sampling) =>
 *   client.chat.completions.create({ model, messages, ...sampling }, { signal }),
 * );
 */
export async function callPerCandidate<T>(
  candidates: number,
  signal: AbortSignal,
  call: (signal: AbortSignal, sampling: CandidateSampling | undefined) => Promise<T>,
): Promise<T[]> {
  const siblings = new AbortController();
  const combined = AbortSignal.any([signal, siblings.signal]);
  const calls = candidateSampling(candidates).map((sampling) => call(combined, sampling));
  for (const pending of calls) pending.catch(() => siblings.abort());
  return Promise.all(calls);
}

/**
 * Makes one upstream call per candidate, in parallel, and resolves with
 * their answers in order. When one call fails the others are aborted (their
 * answers could not be used) and the first failure is thrown. Shared by the
 * providers whose upstreams answer one candidate a call (many
 * OpenAI-compatible servers ignore `n`; the Messages API has none).
 *
 * @param signal - the request's signal (deadline or client gone); aborts every call
 * @param call - one upstream call, given a signal to pass to the SDK
 * @throws the first call's failure
 * @example
 * const answers = await callPerCandidate(3, request.signal, (signal) =>
 *   client.chat.completions.create({ model, messages }, { signal }),
 * );
 */
export async function callPerCandidate<T>(
  candidates: number,
  signal: AbortSignal,
  call: (signal: AbortSignal) => Promise<T>,
): Promise<T[]> {
  const siblings = new AbortController();
  const combined = AbortSignal.any([signal, siblings.signal]);
  const calls = Array.from({ length: candidates }, () => call(combined));
  for (const pending of calls) pending.catch(() => siblings.abort());
  return Promise.all(calls);
}

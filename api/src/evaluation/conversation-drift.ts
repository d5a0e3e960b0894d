/** A judged turn: its number (1-based) and its in-character score (1–5). */
export interface TurnScore {
  turn: number;
  score: number;
}

/**
 * The drift of a conversation: the change of the in-character score from
 * the first judged turn to the last along the least-squares line through
 * the per-turn scores — the line's slope (score points a turn) times the
 * turns between them. For a 6-turn conversation with every turn judged it is
 * 5 × slope; for scores on a straight line it equals last − first, and one
 * noisy turn moves it less than it moves last − first. Negative: the
 * persona slides out of character as the conversation goes on.
 *
 * @param scores - judged turns (any order; turns without a score left out)
 * @returns the change in score points (negative: worse at the end), or null
 *   for fewer than two judged turns
 * @example
 * conversationDrift([{ turn: 1, score: 5 }, { turn: 2, score: 4 }, { turn: 3, score: 3 }]); // -2
 */
export function conversationDrift(scores: readonly TurnScore[]): number | null {
  if (scores.length < 2) return null;
  const meanTurn = scores.reduce((sum, point) => sum + point.turn, 0) / scores.length;
  const meanScore = scores.reduce((sum, point) => sum + point.score, 0) / scores.length;
  let covariance = 0;
  let spread = 0;
  for (const point of scores) {
    covariance += (point.turn - meanTurn) * (point.score - meanScore);
    spread += (point.turn - meanTurn) ** 2;
  }
  if (spread === 0) return null;
  const turns = scores.map((point) => point.turn);
  const drift = (covariance / spread) * (Math.max(...turns) - Math.min(...turns));
  // Floating-point noise of a flat conversation is no drift.
  return Math.abs(drift) < 1e-9 ? 0 : drift;
}

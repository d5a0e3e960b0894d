import type { ConversationTally, EvaluationRun, TurnTally } from "./evaluation-run.js";
import type { ScorecardComparison } from "./scorecard.js";
import { percent, points, renderTable, rowMarker, score, signedScore } from "./scorecard-format.js";

/** A turn's checks as "passed/decided" ("–" when none was decided). */
function turnChecks(row: TurnTally | undefined): string {
  if (row === undefined || row.runs === 0) return "not reached";
  return row.decided === 0 ? "–" : `${row.passed}/${row.decided}`;
}

/** Who spoke as the user of a conversation, for its title. */
function speakerOf(tally: ConversationTally): string {
  if (tally.user === null) return "no user";
  return tally.user === "script" ? "the suite's script" : `simulated user ${tally.user}`;
}

/** The line saying who plays the user of conversation cases; undefined for a suite without any. */
export function simulatedUserLine(run: EvaluationRun): string | undefined {
  if ((run.scorecard.conversations ?? []).length === 0) return undefined;
  if (run.simulatedUser !== null && run.simulatedUser !== undefined) {
    return `simulated user ${run.simulatedUser.route}, prompt ${run.simulatedUser.promptVersion}`;
  }
  return `conversation cases: ${run.simulatedUserSkipped ?? "no simulated user configured"}`;
}

function titleOf(tally: ConversationTally): string {
  if (tally.skipped !== null) {
    return `conversation ${tally.caseId}: skipped, not failed: ${tally.skipped}`;
  }
  const stopped =
    tally.stopped === 0
      ? ""
      : `; stopped early in ${tally.stopped} run${tally.stopped === 1 ? "" : "s"}`;
  return `conversation ${tally.caseId}: ${tally.turnsPlanned} turns with ${speakerOf(tally)}; checks ${percent(tally.passRate)}, in-character ${score(tally.inCharacter)}, drift ${signedScore(tally.drift)}${stopped}`;
}

/**
 * Renders a run's conversation cases: a title per case (who spoke as the
 * user, the checks' pass rate over every turn, the mean in-character score
 * and the drift, or why it was skipped) and a row per turn (checks passed
 * over the repeats, the mean in-character score, the first problem).
 *
 * @returns the text, or "" for a run without conversation cases
 */
export function renderConversations(run: EvaluationRun): string {
  return (run.scorecard.conversations ?? [])
    .map((tally) => {
      if (tally.skipped !== null) return titleOf(tally);
      return [
        titleOf(tally),
        renderTable([
          ["turn", "checks", "in-character", "first problem"],
          ...tally.turns.map((row) => [
            String(row.turn),
            turnChecks(row),
            score(row.inCharacter),
            row.firstProblem ?? "",
          ]),
        ]),
      ].join("\n");
    })
    .join("\n\n");
}

/**
 * Renders the conversation cases of a candidate beside its baseline's: per
 * turn both sides' checks and in-character scores, then the mean
 * in-character score with its difference in points (on 0–100, as rubric
 * means) and marker, and both sides' drift.
 *
 * @returns the text, or "" when the suite has no conversation cases
 */
export function renderConversationComparison(
  candidate: EvaluationRun,
  baseline: EvaluationRun,
  comparison: ScorecardComparison,
): string {
  const theirs = new Map(
    (baseline.scorecard.conversations ?? []).map((tally) => [tally.caseId, tally]),
  );
  const rows = new Map((comparison.conversations ?? []).map((row) => [row.key, row]));
  return (candidate.scorecard.conversations ?? [])
    .map((mine) => {
      const other = theirs.get(mine.caseId);
      const row = rows.get(mine.caseId);
      const title = `conversation ${mine.caseId}: ${mine.turnsPlanned} turns; candidate with ${mine.skipped === null ? speakerOf(mine) : "no user (skipped)"}, baseline with ${other === undefined || other.skipped !== null ? "no user (skipped)" : speakerOf(other)}`;
      if (mine.skipped !== null && (other === undefined || other.skipped !== null)) {
        return `conversation ${mine.caseId}: skipped on both sides, not failed: ${mine.skipped}`;
      }
      return [
        title,
        renderTable([
          [
            "turn",
            "candidate checks",
            "baseline checks",
            "candidate in-character",
            "baseline in-character",
          ],
          ...mine.turns.map((turn) => {
            const them = other?.turns.find((item) => item.turn === turn.turn);
            return [
              String(turn.turn),
              turnChecks(turn),
              turnChecks(them),
              score(turn.inCharacter),
              score(them?.inCharacter ?? null),
            ];
          }),
        ]),
        renderTable([
          ["", "candidate", "baseline", "Δ", ""],
          ["checks", percent(mine.passRate), percent(other?.passRate ?? null), "", ""],
          [
            "in-character",
            score(mine.inCharacter),
            score(other?.inCharacter ?? null),
            points(row?.delta ?? null),
            row === undefined ? "" : rowMarker(row),
          ],
          ["drift", signedScore(mine.drift), signedScore(other?.drift ?? null), "", ""],
        ]),
      ].join("\n");
    })
    .join("\n\n");
}

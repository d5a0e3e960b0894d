import { type Command, CommanderError, InvalidArgumentError } from "commander";
import { formatMoney } from "../billing/money.js";
import { ModelRouter } from "../engine/model-router.js";
import type { EvaluationRun, EvaluationSide } from "../evaluation/evaluation-run.js";
import {
  type EvaluationSides,
  type EvaluationSubject,
  runComparison,
} from "../evaluation/evaluation-runner.js";
import { EvaluationStore } from "../evaluation/evaluation-store.js";
import {
  type EvaluationSuite,
  EvaluationSuiteError,
  exampleSuiteFile,
  readEvaluationSuite,
} from "../evaluation/evaluation-suite.js";
import type { Judge } from "../evaluation/judge.js";
import { judgePromptOf } from "../evaluation/judge-prompt.js";
import {
  describeSubject,
  regressionLine,
  renderComparison,
  renderScorecard,
  renderTable,
} from "../evaluation/render-scorecard.js";
import {
  EvaluatedPersonaError,
  type EvaluatedVersion,
  resolveEvaluatedPersona,
} from "../evaluation/resolve-evaluated-persona.js";
import {
  compareScorecards,
  meetsThreshold,
  type ScorecardComparison,
} from "../evaluation/scorecard.js";
import type { SimulatedUser } from "../evaluation/simulated-user.js";
import { describeTarget, type ModelRoute, type RouteTarget } from "../personas/model-route.js";
import { readExamplePersona } from "../seed/demo-seed.js";
import type { Services } from "../services.js";
import type { AdminOutput } from "./admin-output.js";
import { parseVersion } from "./persona-version-commands.js";
import { requireConfiguredRoute, routeTargetCollector } from "./route-options.js";

/**
 * Exit status of `persona eval` when the gate fails: the candidate's pass
 * rate is below the threshold, or (with `--max-regression`) a row of it
 * regressed against the baseline.
 */
export const GATE_FAILED_EXIT_CODE = 2;

/** Default deadline of one engine, judge or simulated user call of an evaluation, in milliseconds. */
export const DEFAULT_EVALUATION_CALL_TIMEOUT_MS = 120_000;

function integerOption(name: string, low: number, high: number) {
  return (text: string): number => {
    if (!/^\d+$/u.test(text) || Number(text) < low || Number(text) > high) {
      throw new InvalidArgumentError(`${name} is a whole number from ${low} to ${high}`);
    }
    return Number(text);
  };
}

function thresholdOption(text: string): number {
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new InvalidArgumentError("the threshold is a pass rate from 0 to 1, e.g. 0.9");
  }
  return value;
}

function pointsOption(text: string): number {
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || value < 0 || value > 100) {
    throw new InvalidArgumentError(
      "--max-regression is percentage points from 0 to 100, e.g. 5 (0: no drop at all)",
    );
  }
  return value;
}

function versionOption(text: string): EvaluatedVersion {
  try {
    return parseVersion(text, true);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/** Parses a single `upstream:model` option (`--judge`, `--simulated-user`). */
function targetOption(name: string) {
  return (text: string): RouteTarget => {
    const [target] = routeTargetCollector(name)(text);
    if (target === undefined) throw new InvalidArgumentError(`${name} is upstream:model`);
    return target;
  };
}

interface EvaluateOptions {
  version?: EvaluatedVersion;
  compareVersion?: EvaluatedVersion;
  route?: ModelRoute;
  compareRoute?: ModelRoute;
  judge?: RouteTarget;
  simulatedUser?: RouteTarget;
  suite?: string;
  repeat: number;
  concurrency: number;
  timeout: number;
  threshold?: number;
  maxRegression?: number;
  json?: boolean;
}

/**
 * The suite of a persona: `--suite`, or for the demo persona (the example
 * persona's name) the suite shipped beside its file.
 */
export function suiteFor(personaName: string, file: string | undefined): EvaluationSuite {
  const chosen =
    file ?? (personaName === readExamplePersona().name ? exampleSuiteFile() : undefined);
  if (chosen === undefined) {
    throw new CommanderError(
      1,
      "eval.suite",
      "give --suite FILE: the persona's evaluation suite (e.g. my-persona.eval.yaml beside its persona file; format in docs/OPERATIONS.md, section The suite format)",
    );
  }
  try {
    return readEvaluationSuite(chosen);
  } catch (error) {
    if (error instanceof EvaluationSuiteError) {
      throw new CommanderError(1, "eval.suite", error.message);
    }
    throw error;
  }
}

/**
 * A router over the operator's upstreams for the judge and the simulated
 * user, built on first use: only runs with one of them build the providers
 * a second time.
 */
function operatorRouter(services: Services): () => Promise<ModelRouter> {
  let router: Promise<ModelRouter> | undefined;
  return () => {
    router ??= import("../providers/create-upstream-providers.js").then(
      async ({ createUpstreamProviders }) =>
        new ModelRouter(
          services.config.upstreams,
          await createUpstreamProviders(services.config.upstreams),
        ),
    );
    return router;
  };
}

/** The judge of a run, or undefined when neither `--judge` nor the suite names one. */
async function judgeFor(
  services: Services,
  suite: EvaluationSuite,
  option: RouteTarget | undefined,
  router: () => Promise<ModelRouter>,
): Promise<Judge | undefined> {
  const target = option ?? suite.judge.route;
  if (target === undefined) return undefined;
  const [configured] = requireConfiguredRoute(services, [target]);
  let prompt: ReturnType<typeof judgePromptOf>;
  try {
    prompt = judgePromptOf(suite.judge);
  } catch (error) {
    throw new CommanderError(1, "eval.judge", (error as Error).message);
  }
  return {
    target: configured ?? target,
    prompt,
    rubric: suite.judge.rubric,
    router: await router(),
    prices: services.billing.prices,
  };
}

/**
 * The simulated user of conversation cases, or undefined when neither
 * `--simulated-user` nor the suite names one (or the suite has no
 * conversation case: then none is built).
 */
async function simulatedUserFor(
  services: Services,
  suite: EvaluationSuite,
  option: RouteTarget | undefined,
  router: () => Promise<ModelRouter>,
): Promise<SimulatedUser | undefined> {
  const target = option ?? suite.simulatedUser.route;
  if (target === undefined) return undefined;
  const [configured] = requireConfiguredRoute(services, [target]);
  if (!suite.cases.some((item) => item.task === "conversation")) return undefined;
  return { target: configured ?? target, router: await router(), prices: services.billing.prices };
}

/**
 * Adds `persona eval` and `persona eval-runs` to `persona-admin`: runs a
 * persona's evaluation suite through the persona engine and model route,
 * never through billing (the cost is the operator's, stored with the run),
 * prints the scorecard and stores every run. With `--compare-version` or
 * `--compare-route` it runs a baseline interleaved with the candidate (the
 * version and route under test) and prints both side by side, marked
 * relative to the baseline. It exits {@link GATE_FAILED_EXIT_CODE} when the
 * candidate's pass rate is below the threshold or, with `--max-regression`,
 * when a row of the candidate fell that far below the baseline — the
 * baseline itself is never judged — so operators gate a model change or a
 * refinement in their CI.
 *
 * @param persona - the `persona` command group
 */
export function addEvaluationCommands(
  persona: Command,
  services: Services,
  output: AdminOutput,
): void {
  persona
    .command("eval")
    .argument("<personaId>")
    .option(
      "--version <n|live|draft>",
      "the candidate: the persona version under test (default: the live one; draft: the newest draft)",
      versionOption,
    )
    .option(
      "--compare-version <n|live|draft>",
      "the baseline: also run this version (along its own route, or --route), interleaved, and compare the candidate with it",
      versionOption,
    )
    .option(
      "--route <upstream:model>",
      "the candidate's route instead of the persona's; repeat for fallbacks",
      routeTargetCollector("--route"),
    )
    .option(
      "--compare-route <upstream:model>",
      "the baseline: also run the candidate's version along this route, interleaved, and compare the candidate with it; repeat for fallbacks",
      routeTargetCollector("--compare-route"),
    )
    .option(
      "--judge <upstream:model>",
      "the judge model of judged checks and conversations' in-character scores (default: the suite's)",
      targetOption("--judge"),
    )
    .option(
      "--simulated-user <upstream:model>",
      "the model that plays the user of conversation cases (default: the suite's; without one, a case's script speaks, or the case is skipped)",
      targetOption("--simulated-user"),
    )
    .option(
      "--suite <file>",
      "the evaluation suite (YAML or JSON); the demo persona's ships with it",
    )
    .option(
      "--repeat <k>",
      "runs of each case (judge scores' spread is over these)",
      integerOption("--repeat", 1, 20),
      1,
    )
    .option(
      "--concurrency <n>",
      "case runs at once, over both sides",
      integerOption("--concurrency", 1, 32),
      4,
    )
    .option(
      "--timeout <ms>",
      "deadline of each engine, judge or simulated user call (a conversation's turn makes up to three)",
      integerOption("--timeout", 100, 600_000),
      DEFAULT_EVALUATION_CALL_TIMEOUT_MS,
    )
    .option(
      "--threshold <rate>",
      "pass rate 0–1 the candidate must reach (default: the suite's, else 1); the baseline's is shown, never judged",
      thresholdOption,
    )
    .option(
      "--max-regression <points>",
      "with a baseline: exit 2 when any check's pass rate, or any rubric dimension's mean, of the candidate is this many percentage points or more below the baseline's (0: any drop); a rubric mean 1–5 counts on 0–100, so one score step is 25 points",
      pointsOption,
    )
    .option("--json", "print the runs as JSON")
    .description(
      "run a persona's evaluation suite through the engine (never billed to the customer); exit 2 when the candidate is below the threshold or regressed beyond --max-regression",
    )
    .action(async (id: string, options: EvaluateOptions) => {
      if (options.compareVersion !== undefined && options.compareRoute !== undefined) {
        throw new CommanderError(
          1,
          "eval.compare",
          "compare one thing at a time: --compare-version or --compare-route",
        );
      }
      if (
        options.maxRegression !== undefined &&
        options.compareVersion === undefined &&
        options.compareRoute === undefined
      ) {
        throw new CommanderError(
          1,
          "eval.max-regression",
          "--max-regression measures the candidate against a baseline: give --compare-version or --compare-route too",
        );
      }
      const resolve = async (version: EvaluatedVersion) => {
        try {
          return await resolveEvaluatedPersona(services.personas, id, version);
        } catch (error) {
          if (error instanceof EvaluatedPersonaError) {
            throw new CommanderError(1, "eval.persona", error.message);
          }
          throw error;
        }
      };
      const evaluated = await resolve(options.version);
      const suite = suiteFor(evaluated.persona.name, options.suite);
      const threshold = options.threshold ?? suite.threshold;
      const sides: EvaluationSides = {
        candidate: {
          ...evaluated,
          route: requireConfiguredRoute(services, options.route ?? evaluated.persona.route),
        },
      };
      if (options.compareRoute !== undefined) {
        sides.baseline = {
          ...evaluated,
          route: requireConfiguredRoute(services, options.compareRoute),
        };
      }
      if (options.compareVersion !== undefined) {
        const compared = await resolve(options.compareVersion);
        sides.baseline = {
          ...compared,
          route: requireConfiguredRoute(services, options.route ?? compared.persona.route),
        };
      }
      const router = operatorRouter(services);
      const judge = await judgeFor(services, suite, options.judge, router);
      const simulatedUser = await simulatedUserFor(services, suite, options.simulatedUser, router);
      const describeSide = (side: EvaluationSide, subject: EvaluationSubject) =>
        `${side} ${subject.route.map(describeTarget).join(" → ")}`;
      const started = Date.now();
      const finished = await runComparison(
        suite,
        sides,
        { engine: services.engine, prices: services.billing.prices, judge, simulatedUser },
        {
          repeat: options.repeat,
          concurrency: options.concurrency,
          callTimeoutMs: options.timeout,
          onProgress: (progress) =>
            output.progress?.(
              `eval ${progress.done}/${progress.total} case runs: ${progress.side} ${progress.caseId} (repeat ${progress.repeat})`,
            ),
        },
      );
      output.progress?.("");
      const described = [describeSide("candidate", sides.candidate)];
      if (sides.baseline !== undefined) described.push(describeSide("baseline", sides.baseline));
      const caseRuns = finished.candidate.cases.length + (finished.baseline?.cases.length ?? 0);
      output.error(
        `eval ${described.join(" and ")}: ${caseRuns} case runs in ${((Date.now() - started) / 1000).toFixed(1)} s${sides.baseline === undefined ? "" : ", interleaved case by case"}`,
      );
      const store = new EvaluationStore(services.database);
      const { candidate, baseline } = finished;
      const runs: Array<EvaluationRun & { id: string }> = [
        { id: await store.save(candidate, threshold), ...candidate },
      ];
      if (baseline !== undefined) {
        runs.push({ id: await store.save(baseline, threshold), ...baseline });
      }
      const comparison: ScorecardComparison | null =
        baseline === undefined
          ? null
          : compareScorecards(
              candidate.scorecard,
              baseline.scorecard,
              options.maxRegression ?? null,
            );
      if (options.json === true) {
        output.out(
          JSON.stringify(
            { threshold, maxRegression: options.maxRegression ?? null, runs, comparison },
            null,
            2,
          ),
        );
      } else if (baseline === undefined || comparison === null) {
        output.out(renderScorecard(candidate, threshold));
      } else {
        output.out(renderComparison(candidate, baseline, threshold, comparison));
      }
      // Only the candidate is judged: a failing baseline is what it is compared with.
      const problems: string[] = [];
      if (!meetsThreshold(candidate, threshold)) {
        problems.push(
          `${describeSubject(candidate)}: pass rate ${candidate.scorecard.passRate === null ? "–" : candidate.scorecard.passRate.toFixed(3)} is below the threshold ${threshold}`,
        );
      }
      if (comparison !== null && comparison.regressions.length > 0) {
        problems.push(`${describeSubject(candidate)}: ${regressionLine(comparison)}`);
      }
      if (problems.length > 0) {
        throw new CommanderError(GATE_FAILED_EXIT_CODE, "eval.gate", problems.join("\n"));
      }
    });

  persona
    .command("eval-runs")
    .argument("<personaId>")
    .option("--json", "print the runs as JSON")
    .option(
      "--live",
      "list online evaluation's scores of live answers instead (persona sample): per version per day, newest first",
    )
    .description("list a persona's stored evaluation runs, newest first")
    .action(async (id: string, options: { json?: boolean; live?: boolean }) => {
      if (options.live === true) {
        const scores = await services.onlineScores.daily(id);
        if (options.json === true) {
          output.out(JSON.stringify(scores, null, 2));
        } else if (scores.length === 0) {
          output.out(
            `no online evaluation scores of ${id} (persona-admin persona sample ${id} --percent P)`,
          );
        } else {
          output.out(
            renderTable([
              [
                "day",
                "version",
                "sampled",
                "checks passed",
                "judged",
                "judge mean",
                "judge errors",
                "judge cost",
              ],
              ...scores.map((score) => [
                score.day ?? "",
                String(score.version),
                String(score.samples),
                score.checkPassRate === null ? "–" : `${score.checkPassRate.toFixed(1)}%`,
                String(score.judged),
                score.judgeMean === null ? "–" : score.judgeMean.toFixed(2),
                String(score.judgeErrors),
                formatMoney(score.judgeCostMicros),
              ]),
            ]),
          );
        }
        return;
      }
      const runs = await new EvaluationStore(services.database).list(id);
      if (options.json === true) {
        output.out(JSON.stringify(runs, null, 2));
        return;
      }
      if (runs.length === 0) {
        output.out(`no evaluation runs of ${id}`);
        return;
      }
      const rows = [
        ["started", "version", "route", "suite", "pass rate", "verdict", "cost", "judge", "run"],
        ...runs.map((run) => [
          run.startedAt,
          run.version === null ? "live" : String(run.version),
          run.route.join(" → "),
          `${run.suiteName} ${run.suiteHash.slice(0, 8)}`,
          run.passRate === null ? "–" : `${(run.passRate * 100).toFixed(1)}%`,
          `${run.passed ? "pass" : "fail"} (≥ ${run.threshold})`,
          formatMoney(run.costMicros),
          run.judge ?? "–",
          run.id,
        ]),
      ];
      output.out(renderTable(rows));
    });
}

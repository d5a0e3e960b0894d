import { type Command, CommanderError, InvalidArgumentError } from "commander";
import type { EvaluationSuite } from "../evaluation/evaluation-suite.js";
import { judgePromptOf, PERSONAGYM_DIMENSIONS } from "../evaluation/judge-prompt.js";
import {
  DEFAULT_KEEP_CONTENT_DAYS,
  referenceFreeChecks,
  type SamplingSettings,
} from "../online-evaluation/sampling-settings.js";
import { setSampling } from "../online-evaluation/sampling-store.js";
import { describeTarget, type RouteTarget } from "../personas/model-route.js";
import type { Services } from "../services.js";
import { suiteFor } from "./evaluation-commands.js";
import { requireConfiguredRoute, routeTargetCollector } from "./route-options.js";

interface SampleOptions {
  percent: number;
  suite?: string;
  judge?: RouteTarget;
  keepContent?: boolean;
  contentDays?: number;
}

function wholeNumber(name: string, min: number, max: number) {
  return (text: string): number => {
    if (!/^[0-9]{1,9}$/u.test(text) || Number(text) < min || Number(text) > max) {
      throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}`);
    }
    return Number(text);
  };
}

function judgeOption(text: string): RouteTarget {
  const [target] = routeTargetCollector("--judge")(text);
  if (target === undefined) throw new InvalidArgumentError("--judge is upstream:model");
  return target;
}

/**
 * The settings `persona sample` stores: the suite's reference-free checks
 * (its `everyCase` checks of kinds `no-artefacts`, `length`, `no-match`;
 * `no-artefacts` alone without a suite), its refusal markers, the judge
 * (`--judge`, else the suite's) with the suite's prompt and rubric, and the
 * content's retention when kept.
 */
function settingsOf(
  services: Services,
  suite: EvaluationSuite | undefined,
  options: SampleOptions,
): SamplingSettings {
  const judgeTarget = options.judge ?? suite?.judge.route;
  let judge: SamplingSettings["judge"] = null;
  if (judgeTarget !== undefined) {
    const [configured] = requireConfiguredRoute(services, [judgeTarget]);
    const promptSource = {
      promptVersion: suite?.judge.promptVersion,
      template: suite?.judge.template,
    };
    try {
      judgePromptOf(promptSource);
    } catch (error) {
      throw new CommanderError(1, "sample.judge", (error as Error).message);
    }
    judge = {
      route: describeTarget(configured ?? judgeTarget),
      ...(promptSource.promptVersion === undefined
        ? {}
        : { promptVersion: promptSource.promptVersion }),
      ...(promptSource.template === undefined ? {} : { template: promptSource.template }),
      rubric: suite?.judge.rubric ?? [...PERSONAGYM_DIMENSIONS],
    };
  }
  return {
    checks: referenceFreeChecks(suite),
    refusalMarkers: suite?.refusalMarkers ?? [],
    suite: suite === undefined ? null : { name: suite.name, hash: suite.hash },
    judge,
    keepContentDays:
      options.keepContent === true ? (options.contentDays ?? DEFAULT_KEEP_CONTENT_DAYS) : null,
  };
}

/**
 * Adds `persona sample` to `persona-admin persona`: scores a share of a
 * persona's live answers, per version, off the request path (online
 * evaluation, online-evaluation/online-sampler.ts). The setting is on the
 * persona's row, so every instance applies it within about a second.
 */
export function addPersonaSampleCommands(
  persona: Command,
  services: Services,
  print: (value: unknown) => void,
): void {
  persona
    .command("sample")
    .argument("<personaId>")
    .requiredOption(
      "--percent <p>",
      "share of live answers scored, 0 to 100 (0 stops sampling)",
      wholeNumber("--percent", 0, 100),
    )
    .option(
      "--suite <file>",
      "the evaluation suite whose everyCase checks (no-artefacts, length, no-match), refusal markers and judge rubric are used; the demo persona's ships with it",
    )
    .option(
      "--judge <upstream:model>",
      "also score each sampled answer on the rubric with this judge (the operator's cost; default: the suite's judge, if any)",
      judgeOption,
    )
    .option(
      "--keep-content",
      "store the sampled messages and answers (off by default); removed by the retention run after --content-days",
    )
    .option(
      "--content-days <n>",
      `days kept content stays (default ${DEFAULT_KEEP_CONTENT_DAYS})`,
      wholeNumber("--content-days", 1, 3650),
    )
    .description(
      "score a share of live answers per version with the suite's reference-free checks and, with a judge, its rubric — off the request path, never billed to the customer; 0 stops",
    )
    .action(async (id: string, options: SampleOptions) => {
      if (options.contentDays !== undefined && options.keepContent !== true) {
        throw new CommanderError(1, "sample.content", "--content-days goes with --keep-content");
      }
      const loaded = await services.personas.load(id);
      if (loaded === undefined) {
        throw new CommanderError(1, "persona.unknown", `no persona with ID ${id}`);
      }
      if (options.percent === 0) {
        await setSampling(services.database, id, 0, null);
        print(`persona ${id}: sampling stopped`);
        return;
      }
      let suite: EvaluationSuite | undefined;
      try {
        suite = suiteFor(loaded.name, options.suite);
      } catch (error) {
        // Without a suite the built-in checks serve; a suite that was named must be readable.
        if (options.suite !== undefined) throw error;
      }
      const settings = settingsOf(services, suite, options);
      await setSampling(services.database, id, options.percent, settings);
      const parts = [
        `${settings.checks.length} checks${suite === undefined ? "" : ` of ${suite.name}`} plus a refusal where a message meets an avoid topic`,
        settings.judge === null ? "no judge" : `judge ${settings.judge.route}`,
        settings.keepContentDays === null
          ? "content not kept"
          : `content kept ${settings.keepContentDays} days`,
      ];
      print(
        `persona ${id}: ${options.percent} % of live answers scored (${parts.join("; ")}); see persona-admin persona status ${id}`,
      );
    });
}

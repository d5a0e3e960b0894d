import { type Command, CommanderError, InvalidArgumentError } from "commander";
import type { OnlineScore } from "../online-evaluation/online-score-store.js";
import type { SamplingSettings } from "../online-evaluation/sampling-settings.js";
import { readSampling } from "../online-evaluation/sampling-store.js";
import { figuresOf, type VersionFigures, versionFigures } from "../personas/canary-figures.js";
import type { PersonaCanaryTerms } from "../personas/persona.js";
import {
  type CanaryEvent,
  DEFAULT_MAX_ERROR_RATE_INCREASE,
  DEFAULT_MIN_REQUESTS,
  DEFAULT_MIN_SAMPLES,
  PersonaCanaryError,
} from "../personas/persona-canary-store.js";
import type { Services } from "../services.js";
import { textTable } from "./admin-output.js";
import { personaCall } from "./persona-call.js";
import {
  checkVersionRoute,
  FORCE_HELP,
  operatorName,
  parseVersion,
} from "./persona-version-commands.js";

/** The options of `persona canary`. */
interface CanaryOptions {
  percent?: number;
  stop?: boolean;
  maxErrorRateIncrease: number;
  minRequests: number;
  minOnlineScore?: number;
  minJudgeScore?: number;
  minSamples: number;
  force?: boolean;
}

/** What `persona status --json` prints. */
export interface PersonaStatus {
  personaId: string;
  liveVersion: number;
  /** The running canary, or null. */
  canary: PersonaCanaryTerms | null;
  /** Online evaluation (`persona sample`): the share of answers scored (0: off) and what scores them. */
  sampling: { percent: number; settings: SamplingSettings | null };
  /**
   * Since when `versions` counts (ISO 8601 UTC): the running canary's
   * start, else the last canary's; null when the persona never had one.
   */
  since: string | null;
  /**
   * Figures per version of the usage rows since `since` (the live and
   * canary versions first), each with its online score over the answers
   * served since then (null when none was scored).
   */
  versions: Array<VersionFigures & { onlineScore: OnlineScore | null }>;
  /**
   * Online evaluation's scores per version per UTC day over the last
   * {@link STATUS_SCORE_DAYS} days, newest day first (`persona eval-runs
   * --live` lists every day).
   */
  onlineScoresByDay: OnlineScore[];
  /** Every canary start and stop, oldest first. */
  events: CanaryEvent[];
}

/** Days of online scores `persona status` shows, today included. */
export const STATUS_SCORE_DAYS = 7;

function wholeNumber(name: string, min: number, max: number) {
  return (text: string): number => {
    if (!/^[0-9]{1,9}$/u.test(text) || Number(text) < min || Number(text) > max) {
      throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}`);
    }
    return Number(text);
  };
}

function points(text: string): number {
  const value = Number(text);
  if (!/^[0-9]+(\.[0-9]+)?$/u.test(text) || value > 100) {
    throw new InvalidArgumentError("give percentage points from 0 to 100, e.g. 5 or 2.5");
  }
  return value;
}

function judgeScore(text: string): number {
  const value = Number(text);
  if (!/^[0-9](\.[0-9]+)?$/u.test(text) || value < 1 || value > 5) {
    throw new InvalidArgumentError("give a judge score from 1 to 5, e.g. 3.5");
  }
  return value;
}

/** Reads a persona's canary, history and per-version figures from the store, past every cache. */
export async function personaStatus(services: Services, id: string): Promise<PersonaStatus> {
  const persona = await services.personas.load(id);
  if (persona === undefined) {
    throw new CommanderError(1, "persona.unknown", `no persona with ID ${id}`);
  }
  const events = await services.canaries.events(id);
  const { canary } = persona;
  const last = events.at(-1);
  const since = canary?.startedAt ?? last?.startedAt ?? null;
  const canaryVersion = canary?.version ?? last?.version;
  let versions: PersonaStatus["versions"] = [];
  if (since !== null) {
    const figures = await versionFigures(services.database, id, since);
    const scores = await services.onlineScores.sinceCanary(id, since);
    const first = [persona.version, ...(canaryVersion === undefined ? [] : [canaryVersion])];
    const rest = [...figures.keys()].filter((version) => !first.includes(version)).sort();
    versions = [...new Set([...first, ...rest])].map((version) => ({
      ...(figures.get(version) ?? figuresOf(version)),
      onlineScore: scores.get(version) ?? null,
    }));
  }
  const sampling = (await readSampling(services.database, id)) ?? { percent: 0, settings: null };
  const firstDay = new Date(Date.now() - (STATUS_SCORE_DAYS - 1) * 86_400_000)
    .toISOString()
    .slice(0, 10);
  const onlineScoresByDay = (await services.onlineScores.daily(id)).filter(
    (score) => score.day !== null && score.day >= firstDay,
  );
  return {
    personaId: id,
    liveVersion: persona.version,
    canary:
      canary === undefined
        ? null
        : {
            version: canary.version,
            percent: canary.percent,
            startedAt: canary.startedAt,
            maxErrorRateIncrease: canary.maxErrorRateIncrease,
            minRequests: canary.minRequests,
            minOnlineScore: canary.minOnlineScore,
            minJudgeScore: canary.minJudgeScore,
            minSamples: canary.minSamples,
          },
    sampling,
    since,
    versions,
    onlineScoresByDay,
    events,
  };
}

function floorText(canary: NonNullable<PersonaStatus["canary"]>): string {
  const floors = [
    ...(canary.minOnlineScore === null
      ? []
      : [`under ${canary.minOnlineScore} % of checks passed`]),
    ...(canary.minJudgeScore === null ? [] : [`under a judge mean of ${canary.minJudgeScore}`]),
  ];
  return floors.length === 0
    ? ""
    : `, or ${floors.join(" or ")} over ${canary.minSamples} sampled answers`;
}

function statusText(status: PersonaStatus): string {
  const lines = [
    `persona ${status.personaId}: live version ${status.liveVersion}`,
    status.canary === null
      ? "no canary running"
      : `canary: version ${status.canary.version} on ${status.canary.percent} % of traffic since ${status.canary.startedAt} (stops itself at +${status.canary.maxErrorRateIncrease} points of error rate over ${status.canary.minRequests} requests${floorText(status.canary)})`,
    status.sampling.percent === 0
      ? "online evaluation: off (persona sample ID --percent P)"
      : `online evaluation: ${status.sampling.percent} % of answers scored${status.sampling.settings?.judge == null ? "" : `, judge ${status.sampling.settings.judge.route}`}${status.sampling.settings?.keepContentDays == null ? "" : `, content kept ${status.sampling.settings.keepContentDays} days`}`,
  ];
  if (status.onlineScoresByDay.length > 0) {
    lines.push(
      "",
      `online scores per day (last ${STATUS_SCORE_DAYS} days; all: persona eval-runs ${status.personaId} --live):`,
      textTable(
        ["day", "version", "sampled", "checks passed", "judge mean", "judge cost (µ)"],
        status.onlineScoresByDay.map((score) => [
          score.day ?? "",
          String(score.version),
          String(score.samples),
          score.checkPassRate === null ? "-" : `${score.checkPassRate.toFixed(1)} %`,
          score.judgeMean === null ? "-" : score.judgeMean.toFixed(2),
          String(score.judgeCostMicros),
        ]),
        1,
      ),
    );
  }
  if (status.since !== null) {
    lines.push(
      "",
      `since ${status.since}:`,
      textTable(
        [
          "version",
          "requests",
          "errors",
          "error rate",
          "p50 ms",
          "p95 ms",
          "cost/request (µ)",
          "sampled",
          "checks passed",
          "judge",
        ],
        status.versions.map((figures) => [
          String(figures.version),
          String(figures.requests),
          String(figures.errors),
          `${figures.errorRate.toFixed(1)} %`,
          figures.latencyP50Ms === null ? "-" : String(figures.latencyP50Ms),
          figures.latencyP95Ms === null ? "-" : String(figures.latencyP95Ms),
          figures.costPerRequestMicros.toFixed(1),
          String(figures.onlineScore?.samples ?? 0),
          figures.onlineScore?.checkPassRate == null
            ? "-"
            : `${figures.onlineScore.checkPassRate.toFixed(1)} %`,
          figures.onlineScore?.judgeMean == null ? "-" : figures.onlineScore.judgeMean.toFixed(2),
        ]),
        1,
      ),
      "",
      textTable(
        ["at", "action", "version", "percent", "by"],
        status.events.map((event) => [
          event.at.slice(0, 19).replace("T", " "),
          event.action,
          String(event.version),
          event.percent === null ? "-" : String(event.percent),
          event.operator ?? "-",
        ]),
      ),
    );
  }
  return lines.join("\n");
}

/** Runs a store call, turning a refused canary operation into the CLI's error. */
function canaryCall<T>(call: () => Promise<T | undefined>, id: string): Promise<T> {
  return personaCall(call, id, PersonaCanaryError);
}

/**
 * Adds `persona canary` (start or `--stop` a canary) and `persona status`
 * (live and canary versions, their figures since the canary began, the
 * canary history) to `persona-admin persona`. A canary's route is checked
 * as a promotion's is: refused when a running instance cannot serve it,
 * unless `--force` (kept in the start's history entry).
 *
 * @param warn - where notices go (standard error): route checks that were forced or ran locally
 */
export function addPersonaCanaryCommands(
  persona: Command,
  services: Services,
  print: (value: unknown) => void,
  warn: (text: string) => void = () => {},
): void {
  persona
    .command("canary")
    .argument("<personaId>")
    .argument("[version]", "the version to serve to a share of traffic (a draft or an earlier one)")
    .option("--percent <n>", "its share of traffic, 1 to 50", wholeNumber("--percent", 1, 50))
    .option("--stop", "end the running canary: everyone is served the live version")
    .option(
      "--max-error-rate-increase <points>",
      "stop by itself when its error rate exceeds the live version's by more (percentage points)",
      points,
      DEFAULT_MAX_ERROR_RATE_INCREASE,
    )
    .option(
      "--min-requests <n>",
      "canary requests before its error rate is judged",
      wholeNumber("--min-requests", 1, 1_000_000_000),
      DEFAULT_MIN_REQUESTS,
    )
    .option(
      "--min-online-score <percent>",
      "stop by itself when the share of its sampled answers' checks passed falls under this (needs persona sample)",
      points,
    )
    .option(
      "--min-judge-score <score>",
      "stop by itself when its judge's mean rubric score (1–5) falls under this (needs persona sample with a judge)",
      judgeScore,
    )
    .option(
      "--min-samples <n>",
      "sampled canary answers before a score floor is judged",
      wholeNumber("--min-samples", 1, 1_000_000_000),
      DEFAULT_MIN_SAMPLES,
    )
    .option("--force", FORCE_HELP.replace("go live", "start"))
    .description(
      "serve a version to a share of traffic, sticky per API key, within a second on every instance; --stop ends it, promoting its version finishes it",
    )
    .action(async (id: string, version: string | undefined, options: CanaryOptions) => {
      if (options.stop === true) {
        if (version !== undefined || options.percent !== undefined) {
          throw new CommanderError(1, "persona.canary", "--stop takes no version or --percent");
        }
        const stopped = await canaryCall(() => services.canaries.stop(id, operatorName()), id);
        print(
          `persona ${id}: canary of version ${stopped} stopped; the live version serves everyone`,
        );
        return;
      }
      if (version === undefined || options.percent === undefined) {
        throw new CommanderError(1, "persona.canary", "give a version and --percent, or --stop");
      }
      const number = parseVersion(version, false) as number;
      const { percent } = options;
      const check = await checkVersionRoute(services, id, number, {
        force: options.force === true,
        warn,
      });
      await canaryCall(
        () =>
          services.canaries.start(id, number, {
            percent,
            maxErrorRateIncrease: options.maxErrorRateIncrease,
            minRequests: options.minRequests,
            minOnlineScore: options.minOnlineScore ?? null,
            minJudgeScore: options.minJudgeScore ?? null,
            minSamples: options.minSamples,
            operator: operatorName(),
            ...(check?.forced === undefined ? {} : { forced: check.forced }),
          }),
        id,
      );
      print(
        `persona ${id}: version ${number} serves ${percent} % of traffic; see persona-admin persona status ${id}`,
      );
    });
  persona
    .command("status")
    .argument("<personaId>")
    .option("--json", "JSON instead of text")
    .description(
      "live and canary versions, each version's requests, error rate, latency p50/p95, cost per request and online score since the canary began, sampling, and the canary history",
    )
    .action(async (id: string, options: { json?: boolean }) => {
      const status = await personaStatus(services, id);
      print(options.json === true ? status : statusText(status));
    });
}

// npm run bench:compare -w api -- ROOT [ROOT…]: /api/v1/generate on SQLite
// served by the built service of several checkouts of this repository (each
// ROOT a checkout with `npm run build` done, e.g. a `git worktree` of an
// older commit), interleaved round by round so that the machine's noise falls
// on all of them alike: requests/s and the service's CPU per request (every
// thread, /proc), the median round of each. Each checkout's own bench support
// onboards its own account (persona-admin of that checkout) on a database of
// its own. BENCH_COMPARE_UPSTREAM=mock routes the persona to an instant
// OpenAI-compatible upstream (mock-upstream.mjs) instead of the offline
// engine, which leaves the engine's own cost out. BENCH_ROUNDS (5) rounds of
// BENCH_DURATION_SECONDS (5) at BENCH_CONNECTIONS (10), after 2 s of warm-up
// per target per round. Prints a Markdown table; writes nothing.
import path from "node:path";

const roots = process.argv.slice(2).map((root) => path.resolve(root));
if (roots.length === 0) {
  console.error(
    "usage: checkout-compare-bench.mjs ROOT [ROOT…] (checkouts with npm run build done)",
  );
  process.exit(64);
}
const supports = await Promise.all(
  roots.map((root) => import(path.join(root, "api/bench/bench-support.mjs"))),
);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const duration = Number(process.env.BENCH_DURATION_SECONDS ?? 5);

let environment = {};
let route = [{ upstream: "offline", model: "offline" }];
if (process.env.BENCH_COMPARE_UPSTREAM === "mock") {
  const upstream = await supports[0].startReference("mock-upstream.mjs");
  environment = { PERSONA_OPENAI_BASE_URL: `${upstream.url}/v1`, PERSONA_OPENAI_API_KEY: "bench" };
  route = [{ upstream: "openai-compatible", model: "bench-model" }];
}

const targets = [];
for (const [index, support] of supports.entries()) {
  const database = path.join(support.directory, "compare.sqlite");
  const { apiKey, personaId } = support.onboard(database, route, environment);
  const { child, url } = await support.startService(database, environment);
  targets.push({
    name: roots[index],
    support,
    child,
    urls: [`${url}/api/v1/generate`],
    headers: { authorization: `Bearer ${apiKey}` },
    body: support.generateBody(personaId),
    runs: [],
  });
}

const cpuMs = (target) =>
  [...target.support.threadCpu(target.child.pid).values()].reduce((a, b) => a + b, 0);
try {
  for (let round = 1; round <= rounds; round += 1) {
    for (const target of targets) {
      await target.support.load(target, 2);
      const before = cpuMs(target);
      const run = await target.support.load(target, duration);
      const cpuUs = ((cpuMs(target) - before) * 1000) / run.requests;
      target.runs.push({ rps: run.rps, cpuUs });
      console.error(
        `round ${round} ${target.name}: ${Math.round(run.rps)} requests/s, ${Math.round(cpuUs)} µs CPU a request`,
      );
    }
  }
  console.log(
    "| checkout | requests/s (median round) | CPU µs/request (median round) | rounds (requests/s) |",
  );
  console.log("|---|---:|---:|---|");
  for (const target of targets) {
    const median = (key) => target.support.median(target.runs.map((run) => run[key]));
    const each = target.runs.map((run) => Math.round(run.rps)).join(", ");
    console.log(
      `| ${target.name} | ${Math.round(median("rps"))} | ${Math.round(median("cpuUs"))} | ${each} |`,
    );
  }
} finally {
  for (const support of supports) support.cleanUp();
}
process.exit(0);

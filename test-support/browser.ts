import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import axe from "axe-core";
import { type Browser, chromium, type Locator, type Page } from "playwright-core";
import { describe, it } from "vitest";

// Real-browser tests: Debian's chromium driven by playwright-core (which
// never downloads a browser of its own). `.ci/run` installs chromium with
// apt-get when it is missing.

/** Debian's chromium. */
export const CHROMIUM_PATH = "/usr/bin/chromium";
/** Where page screenshots go (gitignored); CI keeps them as test artefacts. */
export const ARTIFACTS_DIRECTORY = fileURLToPath(new URL("../test-artifacts/", import.meta.url));

const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** Whether chromium is installed here. */
export function chromiumAvailable(): boolean {
  try {
    fs.accessSync(CHROMIUM_PATH, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * A `describe` for tests that need the real browser. Without chromium the
 * suite is skipped with the reason in its name — except under `CI=true`,
 * where a missing browser is a failure.
 */
export function describeWithBrowser(name: string, suite: () => void): void {
  if (chromiumAvailable()) {
    describe(name, suite);
  } else if (process.env.CI === "true") {
    describe(name, () => {
      it("needs chromium", () => {
        throw new Error(`${CHROMIUM_PATH} is missing; .ci/run installs it with apt-get`);
      });
    });
  } else {
    describe.skip(
      `${name} (skipped: chromium not found at ${CHROMIUM_PATH}; apt-get install chromium)`,
      suite,
    );
  }
}

/** Launches headless chromium. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}

/**
 * Saves a full-page screenshot as `test-artifacts/<name>.png` (`name` may hold a folder).
 *
 * @param mask - elements painted over in the picture, e.g. a key shown once:
 *   no capture may hold a plaintext key
 */
export async function saveScreenshot(
  page: Page,
  name: string,
  mask: Locator[] = [],
): Promise<string> {
  const file = path.join(ARTIFACTS_DIRECTORY, `${name}.png`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  await page.screenshot({ path: file, fullPage: true, mask });
  return file;
}

/**
 * Waits until every finite CSS animation and transition of the page has
 * finished (a chat bubble's 180 ms fade-in, say), so what is checked is
 * what a reader sees once it settles; infinite ones (a typing indicator)
 * are not waited for. At most `timeoutMs`.
 */
export async function finiteAnimationsSettled(page: Page, timeoutMs = 2_000): Promise<void> {
  // A string, as for axe below: this package is typed without the DOM library.
  await page.evaluate(`Promise.race([
    Promise.allSettled(document.getAnimations()
      .filter((animation) => animation.effect?.getComputedTiming().endTime !== Infinity)
      .map((animation) => animation.finished)),
    new Promise((resolve) => setTimeout(resolve, ${Number(timeoutMs)})),
  ])`);
}

/**
 * Runs axe-core in the page and returns its serious and critical
 * violations, one line each (rule, impact, up to five targets); `[]` when
 * clean. Finite animations are let finish first (a half-faded element
 * fails the contrast rule). The script is evaluated through the DevTools
 * protocol, which the page's Content-Security-Policy does not govern.
 */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  await finiteAnimationsSettled(page);
  await page.evaluate(axe.source);
  const result = (await page.evaluate(`axe
    .run(document, { resultTypes: ["violations"] })
    .then((outcome) => outcome.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact ?? "",
      targets: violation.nodes.map((node) => node.target.join(" ")).slice(0, 5),
    })))`)) as Array<{ id: string; impact: string; targets: string[] }>;
  return result
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.targets.join(", ")}`);
}

/**
 * Elements that must never scroll sideways: the page's cards, notices,
 * table frames, chat bubbles and folded sections (the service's pages and
 * the example app's alike). Regions meant to scroll (a chart's
 * `.chart-scroll`, a `pre`) are not among them.
 */
export const CARD_SELECTOR =
  ".stat, .chart, .notice, .table-scroll, .chat-log, .turn, .bubble, .message, details, .card";

/**
 * What overflows sideways: the page itself (`document.documentElement`)
 * and every element matching {@link CARD_SELECTOR}, each as
 * `"<what>: <n> px"`, where n = scrollWidth − clientWidth; `[]` when
 * nothing does.
 */
export async function horizontalOverflows(page: Page): Promise<string[]> {
  return (await page.evaluate(`(() => {
    const found = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth) found.push("page: " + (root.scrollWidth - root.clientWidth) + " px");
    for (const element of document.querySelectorAll(${JSON.stringify(CARD_SELECTOR)})) {
      if (element.scrollWidth > element.clientWidth) {
        const name = element.tagName.toLowerCase() + (element.id ? "#" + element.id : "") + "." + String(element.className).trim().split(/\\s+/).join(".");
        found.push(name + ": " + (element.scrollWidth - element.clientWidth) + " px");
      }
    }
    return found;
  })()`)) as string[];
}

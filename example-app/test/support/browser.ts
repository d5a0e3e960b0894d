import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { CHROMIUM_PATH } from "../../../test-support/browser.js";

export { CHROMIUM_PATH, launchChromium } from "../../../test-support/browser.js";

/** Whether the browser is there. */
export const HAS_CHROMIUM = fs.existsSync(CHROMIUM_PATH);

/** Whether this is a CI run, where a missing browser is a failure rather than a skip. */
export const IN_CI = process.env.CI === "true" || process.env.CI === "1";

/** Where screenshots go: `test-artifacts/example-app/` at the repository root (gitignored). */
export const ARTIFACTS_DIRECTORY = fileURLToPath(
  new URL("../../../test-artifacts/example-app/", import.meta.url),
);

/** Saves a full-page screenshot as `test-artifacts/example-app/NAME.png`. */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(ARTIFACTS_DIRECTORY, { recursive: true });
  const file = path.join(ARTIFACTS_DIRECTORY, `${name}.png`);
  // Finished animations, so a bubble that is still fading in shows as it will stay.
  await page.screenshot({ path: file, fullPage: true, animations: "disabled" });
  return file;
}

/**
 * Collects what would show in the browser console as a problem: uncaught
 * errors, console errors (a script or request blocked by the content
 * security policy shows there), and failed requests. Error statuses the
 * routes answer on purpose are not problems.
 */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    // An error status of /api is an answer the page shows, not a problem.
    const answered = message.text().startsWith("Failed to load resource: the server responded");
    if (message.type() === "error" && !answered) problems.push(`console: ${message.text()}`);
  });
  page.on("requestfailed", (request) => {
    problems.push(`request failed: ${request.url()} ${request.failure()?.errorText ?? ""}`);
  });
  return problems;
}

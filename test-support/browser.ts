import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
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

import fs from "node:fs";
import { expect, it } from "vitest";
import { SERVER_VERSION } from "./server-info.js";

it("reports the package's version in serverInfo", () => {
  const packageJson = JSON.parse(
    fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
  ) as { version: string };
  expect(SERVER_VERSION).toBe(packageJson.version);
});

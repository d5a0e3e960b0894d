import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.js";

const KEY = `prk_${"Zq7".repeat(13)}`;

function capture() {
  const lines: string[] = [];
  return { lines, stream: { write: (text: string) => lines.push(text) } };
}

describe("createLogger", () => {
  it("writes level-prefixed lines at or above its level", () => {
    const { lines, stream } = capture();
    const logger = createLogger({ level: "warn", stream });
    logger.info("not written");
    logger.debug("not written");
    logger.warn("careful");
    logger.error("broken");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^persona-mcp \d{4}-\d\d-\d\dT[\d:.]+Z warn: careful\n$/u);
    expect(lines[1]).toMatch(/ error: broken\n$/u);
  });

  it("masks the given secrets and anything shaped like a key", () => {
    const { lines, stream } = capture();
    const logger = createLogger({ stream, secrets: () => ["short-secret-value"] });
    logger.info(`key ${KEY} and short-secret-value`);
    expect(lines[0]).not.toContain(KEY);
    expect(lines[0]).not.toContain("short-secret-value");
    expect(lines[0]).toContain(`prk_…${KEY.slice(-4)}`);
  });

  it("keeps one entry per line by indenting continuation lines", () => {
    const { lines, stream } = capture();
    createLogger({ stream }).info("first\nsecond");
    expect(lines[0]).toMatch(/info: first\n {2}second\n$/u);
  });
});

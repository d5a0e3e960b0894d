import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { askConfirmation } from "./ask-confirmation.js";

function terminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = "";
  output.on("data", (chunk: Buffer) => {
    shown += chunk.toString("utf8");
  });
  return { input, output, shown: () => shown };
}

describe("askConfirmation", () => {
  it.each([
    ["y\n", true],
    ["Yes\n", true],
    ["n\n", false],
    ["\n", false],
    ["sure\n", false],
  ])("answers %j as %s", async (typed, expected) => {
    const streams = terminal();
    const answer = askConfirmation("Write the key to /work/app/.env? [y/N] ", streams);
    streams.input.write(typed);
    expect(await answer).toBe(expected);
    expect(streams.shown()).toContain("Write the key to /work/app/.env? [y/N] ");
  });

  it("answers no when the input ends or the signal aborts", async () => {
    const ended = terminal();
    const first = askConfirmation("Write? ", ended);
    ended.input.end();
    expect(await first).toBe(false);

    const aborted = terminal();
    const controller = new AbortController();
    const second = askConfirmation("Write? ", aborted, controller.signal);
    controller.abort();
    expect(await second).toBe(false);
  });
});

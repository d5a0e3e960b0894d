import type { Response } from "express";

/**
 * An abort signal that fires when the browser goes away before the answer
 * is written, so the service call it was waiting for is cancelled too.
 */
export function abortOnClose(response: Response): AbortSignal {
  const controller = new AbortController();
  response.on("close", () => {
    if (!response.writableFinished) controller.abort();
  });
  return controller.signal;
}

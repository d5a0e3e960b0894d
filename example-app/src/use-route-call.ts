import { useCallback, useEffect, useRef, useState } from "react";
import { ApiError, postJson } from "./api-client.js";

/** Where a call to a route stands. */
export type CallState<T> =
  | { status: "idle" }
  | { status: "pending" }
  | { status: "done"; value: T; sequence: number }
  | { status: "failed"; error: ApiError };

/**
 * Calls one route of the example server and tracks its state. A new call
 * cancels the one in flight, and so does leaving the page.
 *
 * @example
 * const { state, call } = useRouteCall<QuickstartResponse>("/api/quickstart");
 * call({ prompt: "Hi!" });
 */
export function useRouteCall<T>(path: string): {
  state: CallState<T>;
  call: (body: unknown) => void;
} {
  const [state, setState] = useState<CallState<T>>({ status: "idle" });
  const controller = useRef<AbortController | null>(null);
  const sequence = useRef(0);
  useEffect(() => () => controller.current?.abort(), []);
  const call = useCallback(
    (body: unknown) => {
      controller.current?.abort();
      const current = new AbortController();
      controller.current = current;
      setState({ status: "pending" });
      postJson<T>(path, body, current.signal).then(
        (value) => {
          sequence.current += 1;
          if (!current.signal.aborted)
            setState({ status: "done", value, sequence: sequence.current });
        },
        (error: unknown) => {
          if (current.signal.aborted) return;
          setState({
            status: "failed",
            error:
              error instanceof ApiError
                ? error
                : new ApiError("network", undefined, "The call failed in the browser."),
          });
        },
      );
    },
    [path],
  );
  return { state, call };
}

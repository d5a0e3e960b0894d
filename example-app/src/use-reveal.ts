import { useEffect, useState } from "react";

/** Pause between two chunks appearing, in milliseconds. */
export const REVEAL_INTERVAL_MS = 450;

function prefersReducedMotion(): boolean {
  return window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
}

/**
 * How many of `total` chunks to show: one more every
 * {@link REVEAL_INTERVAL_MS}, like messages arriving one after another; all
 * at once when the user asked for reduced motion. A component showing a new
 * reply gets a new `key`, so the count starts again.
 */
export function useReveal(total: number): number {
  const [shown, setShown] = useState(() => (prefersReducedMotion() ? total : Math.min(1, total)));
  useEffect(() => {
    if (prefersReducedMotion() || total <= 1) {
      setShown(total);
      return;
    }
    const timer = window.setInterval(() => {
      setShown((count) => {
        if (count + 1 >= total) window.clearInterval(timer);
        return Math.min(count + 1, total);
      });
    }, REVEAL_INTERVAL_MS);
    return () => window.clearInterval(timer);
  }, [total]);
  return Math.min(shown, total);
}

import { useSyncExternalStore } from "react";

// A router for three pages: the History API and one React hook, rather than
// a routing library the example does not need.

const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener("popstate", listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("popstate", listener);
  };
}

/** The current path (`location.pathname`), re-rendering on navigation and on Back/Forward. */
export function usePathname(): string {
  return useSyncExternalStore(subscribe, () => window.location.pathname);
}

/**
 * Goes to another page of the app without reloading it.
 *
 * @example
 * navigate("/chat");
 */
export function navigate(path: string): void {
  if (path === window.location.pathname) return;
  window.history.pushState(null, "", path);
  for (const listener of listeners) listener();
}

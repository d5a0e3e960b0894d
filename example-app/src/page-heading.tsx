import type { ReactNode } from "react";

/**
 * A page's `<h1>`. It can take focus (`tabIndex={-1}`), so that after a
 * navigation focus moves to the new page's title and screen readers read it.
 */
export function PageHeading({ children }: { children: ReactNode }) {
  return (
    <h1 tabIndex={-1} className="page-heading">
      {children}
    </h1>
  );
}

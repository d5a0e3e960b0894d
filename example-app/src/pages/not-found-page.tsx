import { Link } from "../link.js";
import { PageHeading } from "../page-heading.js";

/** Any other path: says so and links home. */
export function NotFoundPage() {
  return (
    <>
      <PageHeading>Page not found</PageHeading>
      <p className="lead">
        This example app has three pages. Start with the <Link href="/">quickstart</Link>.
      </p>
    </>
  );
}

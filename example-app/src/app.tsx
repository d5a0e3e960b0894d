import { type ComponentType, useEffect, useRef } from "react";
import { Link } from "./link.js";
import { ChatPage } from "./pages/chat-page.js";
import { NotFoundPage } from "./pages/not-found-page.js";
import { PersonifyPage } from "./pages/personify-page.js";
import { QuickstartPage } from "./pages/quickstart-page.js";
import { usePathname } from "./router.js";

/** The pages (docs/API.md §4.6): path, name in the navigation, component. */
const PAGES: ReadonlyArray<{ path: string; name: string; Page: ComponentType }> = [
  { path: "/", name: "Quickstart", Page: QuickstartPage },
  { path: "/chat", name: "Chat", Page: ChatPage },
  { path: "/personify", name: "Personify", Page: PersonifyPage },
];

/** The app shell: skip link, navigation, the current page. */
export function App() {
  const pathname = usePathname();
  const page = PAGES.find((candidate) => candidate.path === pathname);
  const Page = page?.Page ?? NotFoundPage;
  const firstRender = useRef(true);

  // After a navigation (not on first load), move focus to the new page's
  // title so keyboard and screen-reader users land on the new content.
  useEffect(() => {
    document.title = `${page?.name ?? "Not found"} — Persona Reply example app`;
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    document.querySelector<HTMLElement>("main h1")?.focus();
  }, [page]);

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="site-header">
        <p className="brand">
          Persona Reply <span>example app</span>
        </p>
        <nav aria-label="Pages">
          <ul>
            {PAGES.map((candidate) => (
              <li key={candidate.path}>
                <Link
                  href={candidate.path}
                  aria-current={candidate.path === pathname ? "page" : undefined}
                >
                  {candidate.name}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        <Page />
      </main>
      <footer className="site-footer">
        <p>
          The API key stays on this app's server: the browser only talks to <code>/api/*</code> of
          this origin.
        </p>
      </footer>
    </>
  );
}

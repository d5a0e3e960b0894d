import type { LoginSource } from "@persona-reply/shared";

/** Who asked for the key, by the login's `source` (docs/API.md §4.5), and where the person goes back to. */
const REQUESTERS: Record<LoginSource, { name: string; place: string }> = {
  cli: { name: "The persona command-line tool", place: "your terminal" },
  codex: { name: "Codex (the Persona Reply plugin)", place: "Codex" },
  claude_code: { name: "Claude Code (the Persona Reply plugin)", place: "Claude Code" },
};

function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
}

/**
 * The sentence of a successful login's last page, naming who received the
 * key by the login's `source`: "Claude Code (the Persona Reply plugin)
 * received your new key (prk_…abcd)."
 */
export function receivedSentence(source: LoginSource, maskedApiKey: string): string {
  return `${REQUESTERS[source].name} received your new key (${maskedApiKey}).`;
}

/**
 * The page the browser shows after the redirect to the loopback callback:
 * the outcome, the detail (escaped), and where to go back to — the
 * terminal, Claude Code or Codex, by the login's `source`.
 */
export function callbackPage(
  outcome: "saved" | "refused",
  detail: string,
  source: LoginSource = "cli",
): string {
  const title = outcome === "saved" ? "Login complete" : "Login not completed";
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${title} · Persona Reply</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;line-height:1.5}</style>
</head>
<body>
<h1>${title}</h1>
<p>${escapeHtml(detail)}</p>
<p>You can close this tab and go back to ${REQUESTERS[source].place}.</p>
</body>
</html>
`;
}

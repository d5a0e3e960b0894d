/** The page the browser shows after the redirect to the loopback callback. */
export function callbackPage(outcome: "saved" | "refused", detail: string): string {
  const title = outcome === "saved" ? "Login complete" : "Login not completed";
  const escaped = detail
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${title} · Persona Reply</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;line-height:1.5}</style>
</head>
<body>
<h1>${title}</h1>
<p>${escaped}</p>
<p>You can close this tab and go back to your terminal.</p>
</body>
</html>
`;
}

import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../..", import.meta.url));

/** Folders served to the page, by URL prefix: the built library and what it imports. */
const FOLDERS: Record<string, string> = {
  "/client/": path.join(root, "client/dist"),
  "/shared/": path.join(root, "shared/dist"),
  "/zod/": path.join(root, "node_modules/zod"),
};

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>client in a browser</title>
<script type="importmap">
{ "imports": { "@persona-reply/shared": "/shared/index.js", "zod": "/zod/index.js" } }
</script>
<script type="module">
import * as library from "/client/index.js";
window.personaLibrary = library;
</script></head><body>library test page</body></html>`;

/** Response headers of the service that the page should see. */
const FORWARDED = ["content-type", "x-request-id", "retry-after"];

/**
 * A page origin for the browser test: serves a page whose module script
 * imports the built library entry as `window.personaLibrary` (no bundler: an
 * import map resolves `@persona-reply/shared` and `zod`), and forwards `/api/v1/*` to the real service, so the page calls
 * the API on its own origin as a deployed site behind a proxy would.
 */
export async function startPageServer(serviceUrl: string) {
  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://page");
    if (url.pathname === "/") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(PAGE);
      return;
    }
    if (url.pathname.startsWith("/api/")) {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const headers: Record<string, string> = {};
      for (const name of ["content-type", "x-api-key", "x-request-id"]) {
        const value = request.headers[name];
        if (typeof value === "string") headers[name] = value;
      }
      const answer = await fetch(`${serviceUrl}${url.pathname}`, {
        method: request.method ?? "GET",
        headers,
        body: Buffer.concat(chunks),
      });
      const forwarded: Record<string, string> = {};
      for (const name of FORWARDED) {
        const value = answer.headers.get(name);
        if (value !== null) forwarded[name] = value;
      }
      response.writeHead(answer.status, forwarded);
      response.end(Buffer.from(await answer.arrayBuffer()));
      return;
    }
    const prefix = Object.keys(FOLDERS).find((candidate) => url.pathname.startsWith(candidate));
    const folder = prefix === undefined ? undefined : FOLDERS[prefix];
    const file =
      prefix === undefined || folder === undefined
        ? undefined
        : path.join(folder, url.pathname.slice(prefix.length));
    if (file === undefined || !file.startsWith(folder ?? "") || !fs.existsSync(file)) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": "text/javascript; charset=utf-8" });
    response.end(fs.readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

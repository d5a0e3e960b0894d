import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

/** A loopback Git server over smart HTTP, serving one repository. */
export interface GitHttpServer {
  /** The repository's clone URL, e.g. `http://127.0.0.1:41234/persona-reply.git`. */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `git http-backend` (Git's own smart-HTTP server, run as CGI) on
 * 127.0.0.1 with a port the system picks, with a bare repository holding
 * this repository's committed HEAD as `main` — what a user's `git clone`
 * of the published repository gets. Smart HTTP, because Claude Code
 * clones a marketplace shallowly, which Git's plain (dumb) HTTP cannot.
 *
 * @param repository - the working repository whose HEAD is served
 * @param folder - an empty folder for the bare repository
 */
export async function serveRepositoryOverHttp(
  repository: string,
  folder: string,
): Promise<GitHttpServer> {
  const bare = path.join(folder, "persona-reply.git");
  const git = (args: string[], cwd: string) =>
    execFileSync("git", args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
  git(["init", "--quiet", "--bare", bare], folder);
  // CI may run in a shallow clone, whose HEAD a bare repository takes only with this.
  git(["config", "receive.shallowUpdate", "true"], bare);
  git(["push", "--quiet", bare, "HEAD:refs/heads/main"], repository);
  git(["symbolic-ref", "HEAD", "refs/heads/main"], bare);

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const backend = spawn("git", ["http-backend"], {
      env: {
        PATH: process.env.PATH ?? "",
        GIT_PROJECT_ROOT: folder,
        GIT_HTTP_EXPORT_ALL: "1",
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: request.method ?? "GET",
        CONTENT_TYPE: request.headers["content-type"] ?? "",
        GIT_PROTOCOL: String(request.headers["git-protocol"] ?? ""),
        HTTP_CONTENT_ENCODING: String(request.headers["content-encoding"] ?? ""),
        REMOTE_ADDR: "127.0.0.1",
      },
      stdio: ["pipe", "pipe", "ignore"],
    });
    request.pipe(backend.stdin);
    // CGI output: header lines, an empty line, then the body.
    let head = Buffer.alloc(0);
    let bodyStarted = false;
    backend.stdout.on("data", (chunk: Buffer) => {
      if (bodyStarted) {
        response.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end === -1) return;
      bodyStarted = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString("latin1").split("\r\n")) {
        const colon = line.indexOf(":");
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === "status") status = Number.parseInt(value, 10);
        else response.setHeader(name, value);
      }
      response.writeHead(status);
      response.write(head.subarray(end + 4));
    });
    backend.stdout.on("end", () => response.end());
    backend.once("error", () => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/persona-reply.git`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        fs.rmSync(bare, { recursive: true, force: true });
      }),
  };
}

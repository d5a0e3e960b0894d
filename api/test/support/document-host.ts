import { execFileSync } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/** A certificate authority of the test's own and a server certificate it signed for 127.0.0.1 and localhost. */
export interface TestCertificates {
  /** The CA certificate (PEM), to trust. */
  ca: string;
  key: string;
  cert: string;
}

/** Makes a CA and a server certificate with the `openssl` CLI in a temporary directory. */
export function makeTestCertificates(): TestCertificates {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-test-ca-"));
  const file = (name: string) => path.join(directory, name);
  const openssl = (...args: string[]) => execFileSync("openssl", args, { stdio: "pipe" });
  try {
    openssl(
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      file("ca.key"),
      "-out",
      file("ca.pem"),
      "-days",
      "2",
      "-subj",
      "/CN=Persona test CA",
    );
    openssl(
      "req",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      file("server.key"),
      "-out",
      file("server.csr"),
      "-subj",
      "/CN=127.0.0.1",
    );
    fs.writeFileSync(
      file("server.ext"),
      "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n",
    );
    openssl(
      "x509",
      "-req",
      "-in",
      file("server.csr"),
      "-CA",
      file("ca.pem"),
      "-CAkey",
      file("ca.key"),
      "-CAcreateserial",
      "-out",
      file("server.pem"),
      "-days",
      "2",
      "-extfile",
      file("server.ext"),
    );
    return {
      ca: fs.readFileSync(file("ca.pem"), "utf8"),
      key: fs.readFileSync(file("server.key"), "utf8"),
      cert: fs.readFileSync(file("server.pem"), "utf8"),
    };
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

/** What the document host answers at a path. */
export interface HostedDocument {
  status?: number;
  headers?: Record<string, string>;
  /** The body, written in 1 KiB chunks without Content-Length (a JSON value is serialized). */
  body: unknown;
}

/** An HTTPS server on 127.0.0.1 serving client metadata documents, counting requests per path. */
export interface DocumentHost {
  /** `https://127.0.0.1:PORT` */
  origin: string;
  port: number;
  documents: Map<string, HostedDocument>;
  hits: Map<string, number>;
  close(): Promise<void>;
}

/** Starts a {@link DocumentHost} with the given certificate. */
export async function startDocumentHost(certificates: TestCertificates): Promise<DocumentHost> {
  const documents = new Map<string, HostedDocument>();
  const hits = new Map<string, number>();
  const server = https.createServer(
    { key: certificates.key, cert: certificates.cert },
    (request, response) => {
      const pathname = new URL(request.url ?? "/", "https://x").pathname;
      hits.set(pathname, (hits.get(pathname) ?? 0) + 1);
      const document = documents.get(pathname);
      if (document === undefined) {
        response.writeHead(404).end();
        return;
      }
      const body =
        typeof document.body === "string" ? document.body : JSON.stringify(document.body);
      response.writeHead(document.status ?? 200, {
        "content-type": "application/json",
        ...document.headers,
      });
      for (let start = 0; start < body.length; start += 1024) {
        response.write(body.slice(start, start + 1024));
      }
      response.end();
    },
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `https://127.0.0.1:${port}`,
    port,
    documents,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A TCP server that accepts connections and never sends a byte (a host that does not answer). */
export async function startSilentHost(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

import http from "node:http";
import net from "node:net";

/**
 * The ways clients send a request body that the servers must answer
 * whatever its size: each writes the whole body, and none asks first
 * (`Expect: 100-continue`).
 *
 * - `fetch`: Node's global fetch (undici), as the OpenAI and Anthropic SDKs
 *   send; it reads while it writes.
 * - `node:http`: `http.request(…).end(body)`.
 * - `write-then-read`: a bare connection that writes the request whole and
 *   only then reads, as Python's urllib, requests and httpx do (they also
 *   send `Connection: close`, as this one does).
 */
export const BODY_CLIENTS = ["fetch", "node:http", "write-then-read"] as const;

/** One of {@link BODY_CLIENTS}. */
export type BodyClient = (typeof BODY_CLIENTS)[number];

/** What came back: the status, the headers by lower-case name, the body as text. */
export interface ClientAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/**
 * POSTs `body` to `url` with one of {@link BODY_CLIENTS} and reads the
 * answer.
 *
 * @throws the client's error when the connection fails before an answer was
 *   read (EPIPE, ECONNRESET: what a server that closes on a client still
 *   writing causes)
 */
export function postWith(
  client: BodyClient,
  url: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<ClientAnswer> {
  if (client === "fetch") return postWithFetch(url, headers, body);
  if (client === "node:http") return postWithNodeHttp(url, headers, body);
  return postThenRead(url, headers, body);
}

async function postWithFetch(
  url: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<ClientAnswer> {
  // A copy on an ArrayBuffer of its own: what fetch's types take, with or without the DOM's.
  const response = await fetch(url, { method: "POST", headers, body: Uint8Array.from(body) });
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    text: await response.text(),
  };
}

function postWithNodeHttp(
  url: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<ClientAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: "POST", headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", reject);
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: Object.fromEntries(
            Object.entries(response.headers).map(([name, value]) => [name, String(value)]),
          ),
          text: Buffer.concat(chunks).toString("utf8"),
        }),
      );
    });
    // A write that fails after the answer was read is the client's to ignore; before, it is the failure.
    request.on("error", reject);
    request.end(body);
  });
}

/** The content of a chunked body (RFC 9112 §7.1), without extensions or trailers. */
function unchunk(body: Buffer): Buffer {
  const chunks: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = body.indexOf("\r\n", offset);
    const size = lineEnd < 0 ? 0 : Number.parseInt(body.subarray(offset, lineEnd).toString(), 16);
    if (!(size > 0)) return Buffer.concat(chunks);
    chunks.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
}

/** Splits a raw HTTP/1.1 answer (framed by Content-Length, chunks or the end of the connection) into its parts. */
function parseAnswer(raw: Buffer): ClientAnswer {
  const end = raw.indexOf("\r\n\r\n");
  if (end < 0) throw new Error(`no answer, only ${raw.length} bytes: ${raw.toString("latin1")}`);
  const [statusLine = "", ...lines] = raw.subarray(0, end).toString("latin1").split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = raw.subarray(end + 4);
  const body =
    headers["content-length"] !== undefined
      ? rest.subarray(0, Number(headers["content-length"]))
      : /chunked/iu.test(headers["transfer-encoding"] ?? "")
        ? unchunk(rest)
        : rest;
  return {
    status: Number(/^HTTP\/1\.[01] (\d{3})/u.exec(statusLine)?.[1] ?? 0),
    headers,
    text: body.toString("utf8"),
  };
}

function postThenRead(
  url: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<ClientAnswer> {
  const target = new URL(url);
  const head =
    `POST ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\n` +
    Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("") +
    `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(target.port), target.hostname);
    const received: Buffer[] = [];
    // Nothing is read until the whole request is written.
    socket.pause();
    socket.on("error", reject);
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    socket.on("end", () => {
      try {
        resolve(parseAnswer(Buffer.concat(received)));
      } catch (error) {
        reject(error);
      }
    });
    socket.once("connect", () => {
      socket.write(Buffer.concat([Buffer.from(head, "latin1"), body]), (error) => {
        if (error === undefined || error === null) socket.resume();
      });
    });
  });
}

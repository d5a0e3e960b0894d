import type http from "node:http";

/**
 * Reads a test server's request body whole, as UTF-8 text (the test
 * doubles of the service, an upstream, a facilitator and the example app's
 * service all answer only after the whole body arrived).
 *
 * @returns the body, `""` when there was none
 * @throws when the request is aborted or fails before its end
 *
 * @example
 * http.createServer(async (request, response) => {
 *   const body = await readBodyText(request);
 *   response.end(body);
 * });
 */
export async function readBodyText(request: http.IncomingMessage): Promise<string> {
  let body = "";
  request.setEncoding("utf8");
  for await (const chunk of request) body += chunk as string;
  return body;
}

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../../test-support/raw-request.js";
import { startTestService, type TestService } from "./support/test-service.js";

// The DNS-rebinding guard (createHostCheck of @persona-reply/shared/node): a page whose own name was made
// to resolve to 127.0.0.1 reaches a loopback service from the browser, with
// its own name in `Host`. /metrics without a token, and the pages, answer
// loopback clients only under a loopback name, an IP address or an allowed name.

let service: TestService;
let port: number;
beforeAll(async () => {
  service = await startTestService({
    PERSONA_ALLOWED_HOSTS: "persona.test, .corp.example",
    PERSONA_PUBLIC_URL: "http://public.example:8080",
  });
  port = Number(new URL(service.url).port);
});
afterAll(() => service.stop());

/** A GET under a chosen Host, with the body as text. */
async function getWithHost(
  pathname: string,
  host: string,
): Promise<{ status: number; type: string; body: string }> {
  const answer = await rawRequest(service.url, pathname, { host });
  return { status: answer.status, type: answer.type, body: answer.text };
}

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]", "app.localhost"];

describe("GET /metrics without a token: loopback clients under a loopback Host only", () => {
  it("answers loopback names and IP addresses, with a port or without, and the allowed names", async () => {
    for (const name of [...LOOPBACK_NAMES, "persona.test", "a.corp.example"]) {
      for (const host of [name, `${name}:${port}`]) {
        const answer = await getWithHost("/metrics", host);
        expect(answer.status, host).toBe(200);
        expect(answer.body).toContain("# HELP");
      }
    }
  });

  it("refuses any other Host with a 403 in its JSON error format, the public URL's host too", async () => {
    for (const host of [
      "evil.example",
      `evil.example:${port}`,
      "localhost.evil.example",
      "public.example:8080",
    ]) {
      const answer = await getWithHost("/metrics", host);
      expect(answer.status, host).toBe(403);
      expect(answer.type).toMatch(/^application\/json/u);
      const body = JSON.parse(answer.body) as { error: { type: string; message: string } };
      expect(body.error.type).toBe("host_not_allowed");
      expect(body.error.message).toContain("PERSONA_ALLOWED_HOSTS");
      expect(answer.body).not.toContain("# HELP");
    }
  });
});

describe("pages on a loopback connection: the same Host check", () => {
  it("serves the sign-in page under loopback names, allowed names and the public URL's host", async () => {
    for (const host of [
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      "persona.test",
      "public.example:8080",
    ]) {
      const answer = await getWithHost("/sign-in", host);
      expect(answer.status, host).toBe(200);
      expect(answer.body).toContain('name="email"');
    }
  });

  it("refuses another Host with a 403 page, and no form on it", async () => {
    for (const path of ["/sign-in", "/keys", "/docs", "/api/persona/cli/login?state=x"]) {
      const answer = await getWithHost(path, `evil.example:${port}`);
      expect(answer.status, path).toBe(403);
      expect(answer.type, path).toMatch(/^text\/html/u);
      expect(answer.body).toContain("PERSONA_ALLOWED_HOSTS");
      expect(answer.body).not.toContain("_csrf");
    }
  });

  it("leaves the API endpoints alone (a browser holds no API key)", async () => {
    const answer = await getWithHost("/healthz", "evil.example");
    expect(answer.status).toBe(200);
  });
});

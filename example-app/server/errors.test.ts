import {
  ConfigurationError,
  ConnectionError,
  NotFoundError,
  RateLimitError,
  TimeoutError,
} from "@persona-reply/client";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { ExampleAppError, toErrorResponse } from "./errors.js";

const headers = new Headers({ "content-type": "application/json" });

describe("toErrorResponse (docs/API.md §4.6 error body)", () => {
  it("answers the app's own errors as they are", () => {
    expect(toErrorResponse(new ExampleAppError("validation", 400, "prompt: is required"))).toEqual({
      status: 400,
      body: { error: { type: "validation", message: "prompt: is required" } },
    });
  });

  it("passes a 4xx of the openai client through with the service's message", () => {
    const error = OpenAI.APIError.generate(
      429,
      {
        error: { message: "quota exhausted", type: "insufficient_quota", param: null, code: null },
      },
      undefined,
      headers,
    );
    expect(toErrorResponse(error)).toEqual({
      status: 429,
      body: { error: { type: "provider", message: "quota exhausted" } },
    });
  });

  it("turns a 5xx into 502, and reads a plain-text body without the SDK's status prefix", () => {
    const error = OpenAI.APIError.generate(503, undefined, "the upstream is down", headers);
    expect(toErrorResponse(error)).toEqual({
      status: 502,
      body: { error: { type: "provider", message: "the upstream is down" } },
    });
  });

  it("says the service could not be reached (503) or was too slow (504), without its address", () => {
    for (const error of [
      new OpenAI.APIConnectionError({ message: "Connection error." }),
      new ConnectionError("POST /api/v1/personify: could not reach http://10.0.0.7:8787"),
    ]) {
      const { status, body } = toErrorResponse(error);
      expect(status).toBe(503);
      expect(body.error.type).toBe("provider");
      expect(body.error.message).toBe(
        "could not reach the service; the example server's log names the address it tried",
      );
      expect(body.error.message).not.toMatch(/http|10\.0\.0\.7/u);
    }
    for (const error of [
      new OpenAI.APIConnectionTimeoutError(),
      new TimeoutError("timed out", 1000),
    ]) {
      expect(toErrorResponse(error)).toEqual({
        status: 504,
        body: { error: { type: "provider", message: "the service did not answer in time" } },
      });
    }
  });

  it("maps the client library's errors by status", () => {
    expect(toErrorResponse(new NotFoundError("unknown personaId", { status: 404 }))).toEqual({
      status: 404,
      body: { error: { type: "provider", message: "unknown personaId" } },
    });
    expect(toErrorResponse(new RateLimitError("slow down", { status: 429 })).status).toBe(429);
    expect(toErrorResponse(new ConfigurationError("no API key")).body.error.type).toBe("config");
  });

  it("answers anything else as a 502 provider error without its details", () => {
    expect(toErrorResponse(new Error("prk_secret in a stack"))).toEqual({
      status: 502,
      body: { error: { type: "provider", message: "the call to the service failed unexpectedly" } },
    });
  });
});

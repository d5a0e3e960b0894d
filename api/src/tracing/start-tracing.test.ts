import { describe, expect, it } from "vitest";
import { loadConfig } from "../config/config.js";
import { createLogger } from "../logging/logger.js";
import { startTracing, tracesDestination } from "./start-tracing.js";

const configOf = (environment: Record<string, string>) =>
  loadConfig({ PERSONA_DATABASE_URL: ":memory:", ...environment });

describe("tracesDestination", () => {
  it("is off unless an endpoint or an exporter is set", () => {
    expect(tracesDestination(configOf({}))).toBeUndefined();
    expect(tracesDestination(configOf({ OTEL_SERVICE_NAME: "x" }))).toBeUndefined();
  });
  it("appends /v1/traces to the general endpoint and takes the traces endpoint as given", () => {
    expect(
      tracesDestination(configOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" })),
    ).toBe("http://collector:4318/v1/traces");
    expect(
      tracesDestination(
        configOf({
          OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://other:9999/traces",
        }),
      ),
    ).toBe("http://other:9999/traces");
    expect(tracesDestination(configOf({ OTEL_TRACES_EXPORTER: "otlp" }))).toBe(
      "http://localhost:4318/v1/traces",
    );
    expect(tracesDestination(configOf({ OTEL_TRACES_EXPORTER: "console" }))).toBe("console");
  });
  it("OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none turn it off", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" };
    expect(tracesDestination(configOf({ ...endpoint, OTEL_SDK_DISABLED: "true" }))).toBeUndefined();
    expect(
      tracesDestination(configOf({ ...endpoint, OTEL_TRACES_EXPORTER: "none" })),
    ).toBeUndefined();
  });
  it("refuses an endpoint that is not an http(s) URL, naming the variable", () => {
    expect(() => configOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/u,
    );
  });
  it("starts nothing when off", async () => {
    await expect(startTracing(configOf({}), createLogger("silent"))).resolves.toBeUndefined();
  });
});

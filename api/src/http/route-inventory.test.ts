import express from "express";
import { describe, expect, it } from "vitest";
import { routeLabel } from "../metrics/metrics-middleware.js";
import { listRoutes, routeMatchers } from "./route-inventory.js";

function sampleApp() {
  const app = express();
  app.get("/healthz", (_request, response) => {
    response.end();
  });
  const api = express.Router();
  api.post("/generate", (_request, response) => {
    response.end();
  });
  app.use("/api/v1", api);
  const pages = express.Router();
  pages.post("/keys/:id/revoke", (_request, response) => {
    response.end();
  });
  app.use(pages);
  app.all("/api/v1/generate", (_request, response) => {
    response.end();
  });
  return app;
}

describe("listRoutes (the app's routes, from its router stack)", () => {
  it("lists routes of nested routers with their mount path, and app.all as ALL", () => {
    expect(listRoutes(sampleApp())).toEqual([
      { method: "GET", path: "/healthz" },
      { method: "POST", path: "/api/v1/generate" },
      { method: "POST", path: "/keys/:id/revoke" },
      { method: "ALL", path: "/api/v1/generate" },
    ]);
  });

  it("labels concrete paths with their template, preferring the route of the method", () => {
    const matchers = routeMatchers(listRoutes(sampleApp()));
    expect(routeLabel(matchers, "POST", "/api/v1/generate")).toBe("/api/v1/generate");
    expect(routeLabel(matchers, "PUT", "/api/v1/generate")).toBe("/api/v1/generate");
    expect(routeLabel(matchers, "POST", "/keys/4f2a/revoke")).toBe("/keys/:id/revoke");
    expect(routeLabel(matchers, "HEAD", "/healthz")).toBe("/healthz");
    expect(routeLabel(matchers, "GET", "/keys/4f2a/revoke")).toBe("unmatched");
    expect(routeLabel(matchers, "GET", "/api/v1/generate/extra")).toBe("unmatched");
  });
});

import fs from "node:fs";
import path from "node:path";
import { refuseOversizeBodies } from "@persona-reply/shared/node";
import express, {
  type ErrorRequestHandler,
  type Express,
  type Request,
  type RequestHandler,
  type Response,
} from "express";
import type { ExampleConfig } from "./config.js";
import { bodyReadError, ExampleAppError, toErrorResponse } from "./errors.js";
import { checkHost } from "./host-check.js";
import { type Logger, silentLogger } from "./logger.js";
import { chatRoute } from "./routes/chat-route.js";
import { personifyRoute } from "./routes/personify-route.js";
import { quickstartRoute } from "./routes/quickstart-route.js";
import { createTargetResolver } from "./service-access.js";

/** The pages of the front end (docs/API.md §4.6): each answers the built `index.html`. */
export const PAGE_PATHS = ["/", "/chat", "/personify"] as const;

/** The API routes (docs/API.md §4.6). */
export const API_ROUTES = ["/api/quickstart", "/api/chat", "/api/personify"] as const;

/** Largest JSON body accepted, in bytes (a 500-message history of long messages fits). */
export const BODY_LIMIT_BYTES = 2 * 1024 * 1024;
/** {@link BODY_LIMIT_BYTES} as the error message says it. */
const BODY_LIMIT = "2mb";

/**
 * Headers of every response: the pages load scripts and styles from this
 * origin only, and talk to this origin only (the key never leaves the
 * server, so the browser has no reason to reach the service itself).
 */
const securityHeaders: RequestHandler = (_request, response, next) => {
  response.setHeader(
    "Content-Security-Policy",
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
  );
  response.setHeader("X-Content-Type-Options", "nosniff");
  response.setHeader("Referrer-Policy", "no-referrer");
  next();
};

/** Options of {@link createApp}. */
export interface AppOptions {
  /** Where log lines go (default: nowhere). */
  log?: Logger;
}

/**
 * Builds the example app's express server: `POST /api/quickstart`,
 * `POST /api/chat`, `POST /api/personify` (docs/API.md §4.6), and the built front
 * end for `GET /`, `/chat`, `/personify` with its assets. Every failure of
 * an `/api` route is answered `{ error: { type, message } }`. Loopback
 * requests under a foreign `Host` are refused first (DNS rebinding; see
 * {@link checkHost}).
 *
 * @param config - from {@link loadConfig}
 * @example
 * const app = createApp(loadConfig(), { log: jsonLogger() });
 * app.listen(5173, "127.0.0.1");
 */
export function createApp(config: ExampleConfig, options: AppOptions = {}): Express {
  const log = options.log ?? silentLogger;
  const resolveTarget = createTargetResolver(config);
  const app = express();
  app.disable("x-powered-by");
  app.use(securityHeaders);
  app.use(checkHost(config.allowedHosts));

  // strict: false parses any JSON value, so `null` or `[]` is told apart from
  // malformed JSON and answered "must be a JSON object" by the route. A body
  // over the limit is refused before it is read (body-parser alone reads it
  // all first); the server then reads the rest within bounds (server.ts).
  const readJson = refuseOversizeBodies<Request, Response>(
    express.json({ limit: BODY_LIMIT_BYTES, strict: false }),
    BODY_LIMIT_BYTES,
  );
  // A body that cannot be read is the client's fault: 400 validation, the service never called.
  app.use("/api", (request, response, next) => {
    readJson(request, response, (error?: unknown) => {
      next(error === undefined ? undefined : bodyReadError(error, BODY_LIMIT));
    });
  });
  app.post("/api/quickstart", quickstartRoute(resolveTarget));
  app.post("/api/chat", chatRoute(resolveTarget));
  app.post("/api/personify", personifyRoute(resolveTarget));
  app.all("/api/{*rest}", (request, response) => {
    const known = (API_ROUTES as readonly string[]).includes(request.path);
    if (known) response.setHeader("Allow", "POST");
    const message = known
      ? `${request.path} accepts POST only`
      : `there is no route ${request.path}; the routes are ${API_ROUTES.join(", ")}`;
    response.status(known ? 405 : 404).json({ error: { type: "validation", message } });
  });

  const indexFile = path.join(config.webDirectory, "index.html");
  app.use(
    express.static(config.webDirectory, {
      index: false,
      setHeaders(response, file) {
        // Vite puts a content hash in every asset name, so an asset never changes.
        if (file.includes(`${path.sep}assets${path.sep}`)) {
          response.setHeader("Cache-Control", "public, max-age=31536000, immutable");
        }
      },
    }),
  );
  /** The front end's page: the app shows the page of the path, or its "Page not found". */
  const sendIndex = (response: express.Response, status: number) => {
    if (!fs.existsSync(indexFile)) {
      response
        .status(status === 404 ? 404 : 503)
        .type("text/plain")
        .send(
          status === 404
            ? "Page not found. (The front end is not built either: run `npm run build -w @persona-reply/example-app`.)"
            : "The front end is not built: run `npm run build -w @persona-reply/example-app`, or `npm run dev` in example-app/.",
        );
      return;
    }
    response.setHeader("Cache-Control", "no-cache");
    response.status(status).sendFile(indexFile);
  };
  app.get([...PAGE_PATHS], (_request, response) => sendIndex(response, 200));
  // Any other path: a 404 with the app's own "Page not found" page, not express's "Cannot GET".
  app.use((_request, response) => sendIndex(response, 404));

  const errorHandler: ErrorRequestHandler = (failure, request, response, next) => {
    if (response.headersSent) {
      next(failure);
      return;
    }
    const { status, body } = toErrorResponse(failure);
    if (body.error.type !== "validation") {
      // Statuses, types, the error's class and message, and where the service
      // was looked for (never sent to the browser): the service never echoes a
      // key, and the server never puts one in a message.
      log(status >= 500 ? "error" : "warn", "request failed", {
        route: request.path,
        status,
        type: body.error.type,
        ...(body.error.type === "provider" && config.service.ok
          ? { service: config.service.origin }
          : {}),
        ...(failure instanceof ExampleAppError
          ? {}
          : {
              error: failure instanceof Error ? `${failure.name}: ${failure.message}` : "unknown",
            }),
      });
    }
    response.status(status).json(body);
  };
  app.use(errorHandler);
  return app;
}

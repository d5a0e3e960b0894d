import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createHostCheck, isLoopbackAddress } from "@persona-reply/shared/node";
import cookieParser from "cookie-parser";
import { doubleCsrf } from "csrf-csrf";
import type { Request, RequestHandler, Response } from "express";
import helmet from "helmet";
import { readFormBody } from "../http/read-body.js";
import { ServiceError } from "../http/service-error.js";
import type { Services } from "../services.js";
import type { PageSession, SessionLookup } from "./page-session.js";

/** What the page middleware leaves in `response.locals` for the handlers. */
export interface PageLocals {
  /** The signed-in session, when the browser has a live one. */
  session: PageSession | undefined;
  /** Extra origins a form on this page may submit to (CSP `form-action`). */
  formActionOrigins: string[];
  /** Answer errors of this route as JSON (the playground's fetch endpoints) instead of a page. */
  jsonErrors: boolean;
}

/** Reads the page locals of a response (set by {@link WebSupport.page}). */
export function pageLocals(response: Response): PageLocals {
  return response.locals as PageLocals;
}

/**
 * The shared machinery of server-rendered pages: security headers, cookies,
 * sessions, CSRF. `Sessions` is the session store it was given (the
 * playground's `SessionStore`, whose sign-in and session pages use more of it).
 */
export interface WebSupport<Sessions extends SessionLookup = SessionLookup> {
  services: Services;
  sessions: Sessions;
  /** Whether the public origin is HTTPS (cookies get `Secure`, HSTS is sent). */
  secure: boolean;
  /**
   * Middleware for every page route, in order: helmet, the `Host` check of
   * requests that arrive on a loopback address (DNS rebinding),
   * `Cache-Control: no-store`, cookie parsing, session loading, form body
   * parsing, CSRF check on state-changing methods.
   */
  page: RequestHandler[];
  /** The CSRF token to put in this response's forms (sets its cookie too). */
  csrfToken(request: Request, response: Response): string;
  /** Sets the session cookie after sign-in. */
  setSessionCookie(response: Response, token: string): void;
  /** Clears the session cookie (sign-out, dead session). */
  clearSessionCookie(response: Response): void;
  /**
   * The session cookie's secret sent with a request (check the session
   * first), to seal what only that browser may read back. Never log it.
   */
  sessionSecret(request: Request): string | undefined;
  /**
   * The site origin for links in mail: `PERSONA_PUBLIC_URL` when set,
   * otherwise the address the request arrived on (never the Host header,
   * which a client controls).
   */
  origin(request: Request): string;
}

/** Largest form body a page accepts, in bytes (a larger one is a 413 page). */
export const FORM_BODY_LIMIT_BYTES = 32 * 1024;
/** Most fields of a page's form (more is a 413 page). */
export const FORM_FIELD_LIMIT = 50;

/** Name of the field (or `x-csrf-token` header) carrying the CSRF token. */
export const CSRF_FIELD = "_csrf";

/** A single string form field, or undefined when absent or sent more than once. */
export function formField(request: Request, name: string): string | undefined {
  const body: unknown = request.body;
  if (typeof body !== "object" || body === null) return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === "string" ? value : undefined;
}

function socketOrigin(request: Request): string {
  const address = (request.socket.localAddress ?? "127.0.0.1").replace(/^::ffff:/u, "");
  const host = address.includes(":") ? `[${address}]` : address;
  return `http://${host}:${request.socket.localPort ?? 80}`;
}

/**
 * Builds the page machinery from the services. Cookies: the session cookie
 * (HttpOnly, SameSite=Lax, Secure behind HTTPS, holding a 256-bit secret
 * whose hash is stored), a browser cookie that binds CSRF tokens before
 * sign-in, and csrf-csrf's signed double-submit cookie (SameSite=Strict).
 */
export function createWebSupport<Sessions extends SessionLookup>(
  services: Services,
  sessions: Sessions,
): WebSupport<Sessions> {
  const { config, logger } = services;
  const publicUrl = config.PERSONA_PUBLIC_URL?.replace(/\/+$/u, "");
  const secure = publicUrl?.startsWith("https:") ?? false;
  // The __Host- prefix pins a cookie to this origin, but browsers accept it only with Secure.
  const cookiePrefix = secure ? "__Host-" : "";
  const sessionCookie = `${cookiePrefix}persona_session`;
  const browserCookie = `${cookiePrefix}persona_browser`;
  const secret = config.PERSONA_SESSION_SECRET ?? randomBytes(32).toString("base64url");
  if (config.PERSONA_SESSION_SECRET === undefined) {
    logger.debug("PERSONA_SESSION_SECRET not set: CSRF tokens use a per-process secret");
  }
  // What CSRF tokens are bound to: the session secret once signed in, the browser cookie before.
  const csrfIdentity = new WeakMap<Request, string>();
  const cookieBase = { httpOnly: true, secure, path: "/" } as const;

  const csrf = doubleCsrf({
    getSecret: () => secret,
    getSessionIdentifier: (request) => csrfIdentity.get(request) ?? "",
    cookieName: `${cookiePrefix}persona_csrf`,
    cookieOptions: { ...cookieBase, sameSite: "strict" },
    getCsrfTokenFromRequest: (request) =>
      formField(request, CSRF_FIELD) ?? request.headers["x-csrf-token"],
  });

  const securityHeaders = helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", "data:"],
        connectSrc: ["'self'"],
        // A form's redirect target counts for form-action, so the consent page adds the callback.
        formAction: [
          (_request: IncomingMessage, response: ServerResponse) =>
            ["'self'", ...((response as Response).locals.formActionOrigins ?? [])].join(" "),
        ],
        frameAncestors: ["'none'"],
        upgradeInsecureRequests: secure ? [] : null,
      },
    },
    strictTransportSecurity: secure,
    referrerPolicy: { policy: "no-referrer" },
  });

  const loadSession: RequestHandler = async (request, response, next) => {
    const locals = pageLocals(response);
    locals.formActionOrigins ??= [];
    locals.jsonErrors ??= false;
    locals.session = undefined;
    const cookies = request.cookies as Record<string, string | undefined>;
    const token = cookies[sessionCookie];
    if (token !== undefined) {
      locals.session = await sessions.findByToken(token);
      if (locals.session === undefined) {
        response.clearCookie(sessionCookie, cookieBase);
      } else {
        csrfIdentity.set(request, `session:${token}`);
        void sessions.touch(locals.session).catch(() => undefined);
      }
    }
    if (!csrfIdentity.has(request)) {
      let browser = cookies[browserCookie];
      if (browser === undefined || !/^[\w-]{43}$/u.test(browser)) {
        browser = randomBytes(32).toString("base64url");
        response.cookie(browserCookie, browser, { ...cookieBase, sameSite: "lax" });
      }
      csrfIdentity.set(request, `browser:${browser}`);
    }
    next();
  };

  // A page that rebinds its own name to 127.0.0.1 could reach the sign-in form of a service
  // bound to loopback (its mails, its limits); it never has the session cookie, which is
  // bound to the name the person signed in under. Loopback requests must name a known host.
  const hostAllowed = createHostCheck([
    ...config.PERSONA_ALLOWED_HOSTS,
    ...(publicUrl === undefined ? [] : [new URL(publicUrl).hostname]),
  ]);
  const checkHost: RequestHandler = (request, _response, next) => {
    if (isLoopbackAddress(request.socket.localAddress) && !hostAllowed(request.headers.host)) {
      throw new ServiceError(
        "host_not_allowed",
        "This address is not one this service answers on. Open it as localhost or 127.0.0.1, or ask the operator to add the host name to PERSONA_ALLOWED_HOSTS.",
      );
    }
    next();
  };

  const noStore: RequestHandler = (_request, response, next) => {
    // Pages can show a key once, or a session's forms: never keep them in a cache.
    response.setHeader("Cache-Control", "no-store");
    next();
  };

  return {
    services,
    sessions,
    secure,
    page: [
      securityHeaders,
      checkHost,
      noStore,
      cookieParser(),
      loadSession,
      readFormBody(FORM_BODY_LIMIT_BYTES, FORM_FIELD_LIMIT),
      csrf.doubleCsrfProtection,
    ],
    csrfToken: (request, response) => csrf.generateCsrfToken(request, response),
    setSessionCookie(response, token) {
      response.cookie(sessionCookie, token, {
        ...cookieBase,
        sameSite: "lax",
        maxAge: sessions.lifetimeMs,
      });
    },
    clearSessionCookie(response) {
      response.clearCookie(sessionCookie, cookieBase);
    },
    sessionSecret: (request) =>
      (request.cookies as Record<string, string | undefined> | undefined)?.[sessionCookie],
    origin: (request) => publicUrl ?? socketOrigin(request),
  };
}

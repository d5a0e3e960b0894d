import {
  LOGIN_PATH,
  LOGIN_SOURCES,
  MAX_REDIRECT_URI_LENGTH,
  MAX_STATE_LENGTH,
  MIN_STATE_LENGTH,
} from "@persona-reply/shared";
import type { SchemaObject } from "openapi3-ts/oas31";
import { APPLICATION_FIELD_LIMITS, EXPECTED_VOLUMES } from "../applications/application-fields.js";

/** A field of a form or a query parameter of a page route. */
export interface Field {
  name: string;
  description: string;
  required?: boolean;
  schema?: SchemaObject;
}

/** A server-rendered page route of the playground or the browser login. */
export interface DocumentedPage {
  method: "get" | "post";
  path: string;
  operationId: string;
  tag: "Browser login" | "Playground" | "Remote MCP";
  summary: string;
  description: string;
  /** Needs a signed-in playground session. */
  session: boolean;
  query?: Field[];
  pathParameters?: Field[];
  /** Fields of the urlencoded form (the CSRF field is added to every POST). */
  form?: Field[];
  /** Status → what it means. 2xx are pages (303 redirects); others are error pages. */
  responses: Record<string, string>;
}

const string = (extra: SchemaObject = {}): SchemaObject => ({ type: "string", ...extra });

/** The parameters of the browser login route (docs/API.md §4.5), with the checks the route makes. */
const LOGIN_FIELDS: Field[] = [
  {
    name: "state",
    required: true,
    description:
      "Random value made by the caller to protect the login session; returned unchanged.",
    schema: string({
      minLength: MIN_STATE_LENGTH,
      maxLength: MAX_STATE_LENGTH,
      pattern: "^[A-Za-z0-9._~-]+$",
    }),
  },
  {
    name: "redirect_uri",
    required: true,
    description:
      "The local callback: an http URL on 127.0.0.1, localhost or [::1] with an explicit port, no user, password or fragment.",
    schema: string({ maxLength: MAX_REDIRECT_URI_LENGTH }),
  },
  {
    name: "recipient_public_key_jwk",
    required: true,
    description: "base64url-encoded RSA public JWK (2048–8192 bits) the new key is encrypted to.",
  },
  { name: "name", description: "Display name of the created key (1–100 characters)." },
  {
    name: "source",
    description: "Who asks: the command-line tool or a coding-agent plugin.",
    schema: string({ enum: [...LOGIN_SOURCES] }),
  },
];

/** The authorization request the consent page carries (oauth/consent-routes.ts). */
const OAUTH_CONSENT_FIELDS: Field[] = [
  { name: "client_id", required: true, description: "The registered client." },
  { name: "redirect_uri", required: true, description: "One of the client's redirect URIs." },
  { name: "code_challenge", required: true, description: "The PKCE S256 challenge." },
  { name: "resource", required: true, description: "This service's `/mcp` URL." },
  { name: "state", description: "The client's state, returned on the redirect." },
];

/** What a signed-out GET of a session page answers. */
export const SIGNED_OUT_GET = "Not signed in: to /sign-in, which brings the browser back here.";

/**
 * The server-rendered routes of the browser login (docs/API.md §4.5) and the
 * playground (docs/API.md §1.6, §5.3), as the OpenAPI document describes them.
 */
export const DOCUMENTED_PAGES: DocumentedPage[] = [
  {
    method: "get",
    path: LOGIN_PATH,
    operationId: "cliLoginConsent",
    tag: "Browser login",
    summary: "Browser login: consent page",
    description:
      "Checks every parameter (a 400 page names a bad one; never a redirect), sends a visitor who is not signed in through the sign-in, then shows the consent page. GET never creates a key.",
    session: true,
    query: LOGIN_FIELDS,
    responses: {
      "200": "The consent page (Approve / Deny).",
      "303": SIGNED_OUT_GET,
      "400":
        "A parameter is missing, repeated or invalid (the page names it), or this login (its state) was answered already.",
      "403": "The account is not active.",
    },
  },
  {
    method: "post",
    path: LOGIN_PATH,
    operationId: "cliLoginDecision",
    tag: "Browser login",
    summary: "Browser login: approve or deny",
    description:
      "Approve creates a key for the signed-in account, encrypts it to the JWK (compact JWE, RSA-OAEP-256 + A256GCM) and redirects to the callback with `state` and `encrypted_api_key` only; Deny redirects with `state` and `error=access_denied`. Each login (its `state`) is answered once.",
    session: true,
    form: [
      ...LOGIN_FIELDS,
      {
        name: "decision",
        required: true,
        description: "approve or deny.",
        schema: string({ enum: ["approve", "deny"] }),
      },
    ],
    responses: {
      "303": "To the callback with state and encrypted_api_key, or state and error=access_denied.",
      "400":
        "A parameter is invalid, no decision, or this login (its state) was approved or denied already: a consent is used once and a second post creates nothing.",
      "401": "Not signed in.",
      "403": "The CSRF token is missing or wrong, or the account is not active.",
      "409": "The account already has the most active keys allowed.",
    },
  },
  {
    method: "get",
    path: "/apply",
    operationId: "applicationForm",
    tag: "Playground",
    summary: "Apply for access",
    description:
      "The application form of the early-access beta: what happens next, then e-mail, name, company, what the persona is for, expected volume and the consent to be contacted. No script.",
    session: false,
    responses: { "200": "The application form." },
  },
  {
    method: "post",
    path: "/apply",
    operationId: "submitApplication",
    tag: "Playground",
    summary: "Send an application",
    description:
      "Stores the application, one per address, and mails a link that confirms the address (24 hours); only a confirmed application enters review. The answer is the same for a new address and one that applied before; an address whose application is confirmed already gets its status by mail, not a second application. Limited per client (5 a minute, 20 an hour, 50 a day) and per address (3 a minute, 6 an hour, 12 a day).",
    session: false,
    form: [
      {
        name: "email",
        required: true,
        description: "The applicant's e-mail address.",
        schema: string({ maxLength: APPLICATION_FIELD_LIMITS.email }),
      },
      {
        name: "name",
        required: true,
        description: "The applicant's name.",
        schema: string({ maxLength: APPLICATION_FIELD_LIMITS.name }),
      },
      {
        name: "company",
        required: true,
        description: "The company; the account is named after it.",
        schema: string({ maxLength: APPLICATION_FIELD_LIMITS.company }),
      },
      {
        name: "purpose",
        required: true,
        description: "What the persona is for.",
        schema: string({ maxLength: APPLICATION_FIELD_LIMITS.purpose }),
      },
      {
        name: "expected_volume",
        required: true,
        description: "Expected requests a month.",
        schema: string({ enum: EXPECTED_VOLUMES.map((volume) => volume.value) }),
      },
      {
        name: "contact_consent",
        required: true,
        description: "Consent to be contacted about the application.",
        schema: string({ enum: ["yes"] }),
      },
    ],
    responses: {
      "200": "“Check your e-mail”, with what happens next and when.",
      "400":
        "A field is missing, too long or not one of the choices (the form again, the field marked).",
      "403": "The CSRF token is missing or wrong.",
      "429": "Too many applications from this client or for this address (Retry-After).",
    },
  },
  {
    method: "get",
    path: "/apply/confirm",
    operationId: "confirmApplicationPage",
    tag: "Playground",
    summary: "Confirm an application: page",
    description:
      "The mailed link: shows the application and a Confirm button; following the link changes nothing (mail scanners).",
    session: false,
    query: [{ name: "token", required: true, description: "The one-time token from the mail." }],
    responses: {
      "200": "The confirm page.",
      "400": "The link was used, expired or cut short.",
    },
  },
  {
    method: "post",
    path: "/apply/confirm",
    operationId: "confirmApplication",
    tag: "Playground",
    summary: "Confirm an application",
    description: "Confirms the address; the application enters review. A link works once.",
    session: false,
    form: [{ name: "token", required: true, description: "The one-time token from the mail." }],
    responses: {
      "200": "“Application in review”, with how long a review takes.",
      "400": "The link was used, expired or cut short.",
      "403": "The CSRF token is missing or wrong.",
    },
  },
  {
    method: "get",
    path: "/account",
    operationId: "accountPage",
    tag: "Playground",
    summary: "Your account",
    description:
      "Where sign-in lands: the account's personas with their IDs and versions, the next steps (a key, the playground, the example app) and what is pending (the onboarding call, an empty balance, an account that is not active).",
    session: true,
    responses: { "200": "The account page.", "303": SIGNED_OUT_GET },
  },
  {
    method: "get",
    path: "/sign-in",
    operationId: "signInPage",
    tag: "Playground",
    summary: "Sign-in page",
    description: "Asks for the e-mail address the operator allowed for the playground.",
    session: false,
    query: [{ name: "return_to", description: "A local path to come back to after signing in." }],
    responses: {
      "200": "The sign-in form.",
      "303": "Already signed in: to return_to or /account.",
    },
  },
  {
    method: "post",
    path: "/sign-in",
    operationId: "requestSignInLink",
    tag: "Playground",
    summary: "Ask for a sign-in link",
    description:
      "Mails a one-time link (15 minutes) when the address is allowed; the answer is the same for allowed and unknown addresses.",
    session: false,
    form: [
      { name: "email", required: true, description: "The e-mail address." },
      { name: "return_to", description: "A local path to come back to." },
    ],
    responses: {
      "200": "“Check your e-mail”.",
      "400": "Not a valid e-mail address.",
      "403": "The CSRF token is missing or wrong.",
      "429": "Too many sign-in requests (Retry-After).",
    },
  },
  {
    method: "get",
    path: "/sign-in/verify",
    operationId: "confirmSignInPage",
    tag: "Playground",
    summary: "Sign-in link: confirm page",
    description:
      "The mailed link opens a confirm page, so mail scanners that follow links do not use it up.",
    session: false,
    query: [{ name: "token", required: true, description: "The link's one-time token." }],
    responses: { "200": "The confirm page.", "400": "The link was used, expired or cut short." },
  },
  {
    method: "post",
    path: "/sign-in/verify",
    operationId: "confirmSignIn",
    tag: "Playground",
    summary: "Sign-in link: start the session",
    description: "Uses the token once and sets the session cookie (HttpOnly, SameSite=Lax).",
    session: false,
    form: [{ name: "token", required: true, description: "The link's one-time token." }],
    responses: {
      "303": "Signed in: to the page that asked for sign-in, or /account.",
      "400": "The link was used, expired, or the address is no longer allowed.",
      "403": "The CSRF token is missing or wrong.",
    },
  },
  {
    method: "post",
    path: "/sign-out",
    operationId: "signOut",
    tag: "Playground",
    summary: "Sign out",
    description: "Ends this browser's session.",
    session: false,
    responses: { "303": "To /sign-in.", "403": "The CSRF token is missing or wrong." },
  },
  {
    method: "get",
    path: "/sessions",
    operationId: "sessionsPage",
    tag: "Playground",
    summary: "Signed-in browsers",
    description: "The person's sessions, each revocable.",
    session: true,
    responses: { "200": "The sessions page.", "303": SIGNED_OUT_GET },
  },
  {
    method: "post",
    path: "/sessions/{id}/revoke",
    operationId: "revokeSession",
    tag: "Playground",
    summary: "Revoke a session",
    description: "Ends one of the person's sessions.",
    session: true,
    pathParameters: [{ name: "id", description: "The session's ID." }],
    responses: {
      "303": "To /sessions (or /sign-in when this browser's own session was revoked).",
      "401": "Not signed in.",
      "403": "The CSRF token is missing or wrong.",
      "404": "No such session, or it already ended.",
    },
  },
  {
    method: "get",
    path: "/usage",
    operationId: "usagePage",
    tag: "Playground",
    summary: "Usage, spend, balance and limits",
    description:
      "The signed-in account's last 30 days (UTC): requests and spend per day by persona and by endpoint as charts (SVG drawn on the server, each with a text summary), the balance now and at the end of each day (from the ledger), the current rate-limit windows of each active key (used of limit, reset time), and a table of every figure.",
    session: true,
    responses: { "200": "The usage page.", "303": SIGNED_OUT_GET },
  },
  {
    method: "get",
    path: "/keys",
    operationId: "keysPage",
    tag: "Playground",
    summary: "API keys",
    description:
      "The account's keys: name, masked key (prk_…abcd), created, last used. Right after POST /keys it also shows the new key, once.",
    session: true,
    responses: { "200": "The keys page.", "303": SIGNED_OUT_GET },
  },
  {
    method: "post",
    path: "/keys",
    operationId: "createKey",
    tag: "Playground",
    summary: "Create an API key",
    description:
      "Creates a key and redirects to GET /keys, which shows it once (no-store) with a Copy button: post, redirect, get, so a reload creates no second key. The key waits for that page sealed with the session's cookie secret, never in the URL.",
    session: true,
    form: [{ name: "name", required: true, description: "Key name, 1–100 characters." }],
    responses: {
      "303": "To /keys, which shows the new key once.",
      "400": "Invalid key name.",
      "401": "Not signed in.",
      "403": "The CSRF token is missing or wrong, or the account is not active.",
      "409": "The account already has the most active keys allowed.",
    },
  },
  {
    method: "post",
    path: "/keys/{id}/revoke",
    operationId: "revokeKey",
    tag: "Playground",
    summary: "Revoke an API key",
    description: "The key answers 401 from then on.",
    session: true,
    pathParameters: [{ name: "id", description: "The key's ID." }],
    responses: {
      "303": "To /keys.",
      "401": "Not signed in.",
      "403": "The CSRF token is missing or wrong.",
      "404": "No such active key of this account.",
    },
  },
  {
    method: "post",
    path: "/keys/apps/{id}/revoke",
    operationId: "revokeConnectedApp",
    tag: "Playground",
    summary: "Disconnect an app",
    description:
      "Revokes a connected app's grant: its access and refresh tokens answer 401 from then on.",
    session: true,
    pathParameters: [{ name: "id", description: "The connected app's (grant's) ID." }],
    responses: {
      "303": "To /keys.",
      "401": "Not signed in.",
      "403": "The CSRF token is missing or wrong.",
      "404": "No such active connected app of this account.",
    },
  },
  {
    method: "get",
    path: "/oauth/consent",
    operationId: "oauthConsentPage",
    tag: "Remote MCP",
    summary: "Connect an app: consent page",
    description:
      "Where /authorize sends the browser. Checks the request again (a 400 page, never a redirect), signs the person in first, then names the app and its redirect URI and offers the account's personas.",
    session: true,
    query: OAUTH_CONSENT_FIELDS,
    responses: {
      "200": "The consent page (persona choice, Approve / Deny).",
      "303": SIGNED_OUT_GET,
      "400":
        "An unknown client, a redirect URI it did not register, no S256 challenge, or another resource.",
      "403": "The account is not active.",
      "409": "The account has no persona.",
    },
  },
  {
    method: "post",
    path: "/oauth/consent",
    operationId: "oauthConsentDecision",
    tag: "Remote MCP",
    summary: "Connect an app: approve or deny",
    description:
      "Approve redirects to the redirect URI with `code` (60 s, used once), `state` and `iss`; Deny with `error=access_denied` and `state`.",
    session: true,
    form: [
      ...OAUTH_CONSENT_FIELDS,
      { name: "persona_id", description: "The persona the app speaks as (Approve)." },
      {
        name: "decision",
        required: true,
        description: "approve or deny.",
        schema: string({ enum: ["approve", "deny"] }),
      },
    ],
    responses: {
      "303": "To the redirect URI with code and state, or error=access_denied and state.",
      "400": "The request is invalid, no decision, or a persona of another account.",
      "401": "Not signed in.",
      "403": "The CSRF token is missing or wrong, or the account is not active.",
    },
  },
  {
    method: "get",
    path: "/playground",
    operationId: "playgroundPage",
    tag: "Playground",
    summary: "Chat playground",
    description: "Chat with the account's personas and try /personify; history kept in the page.",
    session: true,
    responses: { "200": "The playground page.", "303": SIGNED_OUT_GET },
  },
];

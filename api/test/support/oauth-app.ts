import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { hiddenField, type PageClient } from "./page-client.js";

/** The redirect URI of the test app: a loopback callback, as a native app has (RFC 8252). */
export const APP_CALLBACK = "http://127.0.0.1:53682/callback";

/**
 * An MCP app's OAuth state in memory, as the MCP SDK's client drives it:
 * registration, the authorization URL it would open in a browser, the PKCE
 * verifier and the tokens.
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  /** Where the app would send the browser (set by the SDK after a 401). */
  authorizationUrl: URL | undefined;

  /** The app's client ID metadata document: the SDK uses it as client_id when the server supports it. */
  readonly clientMetadataUrl?: string;

  /**
   * @param clientMetadataUrl - the app's client ID metadata document URL, instead of registering
   */
  constructor(
    private readonly name = "Test agent",
    clientMetadataUrl?: string,
  ) {
    if (clientMetadataUrl !== undefined) this.clientMetadataUrl = clientMetadataUrl;
  }

  get redirectUrl(): string {
    return APP_CALLBACK;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [APP_CALLBACK],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.client = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/**
 * What a signed-in person does in the browser with an authorization URL:
 * opens it (the service sends it to the consent page), then posts the
 * consent form as shown, choosing `personaId`.
 *
 * @param change - edits the form before it is posted (hostile cases)
 * @returns the answer of the consent POST (303 to the app's callback when approved)
 */
export async function approveInBrowser(
  browser: PageClient,
  authorizationUrl: URL | string,
  personaId: string,
  change: (form: Record<string, string>) => void = () => {},
): Promise<Response> {
  const url = new URL(authorizationUrl);
  const opened = await browser.request(url.pathname + url.search);
  const consentPath = opened.headers.get("location");
  if (opened.status !== 302 || consentPath === null) {
    throw new Error(`authorize answered ${opened.status}: ${await opened.text()}`);
  }
  const consent = await browser.page(consentPath);
  if (consent.status !== 200) throw new Error(`consent page ${consent.status}: ${consent.html}`);
  const form: Record<string, string> = {
    _csrf: consent.csrf,
    decision: "approve",
    persona_id: personaId,
  };
  for (const name of ["client_id", "redirect_uri", "code_challenge", "resource", "state"]) {
    const value = hiddenField(consent.html, name);
    if (value !== undefined) form[name] = value;
  }
  change(form);
  return browser.postForm("/oauth/consent", form);
}

/** The `code` of an approval's redirect to the app's callback. */
export function codeOf(answer: Response): string {
  const location = answer.headers.get("location");
  if (answer.status !== 303 || location === null) throw new Error(`no redirect: ${answer.status}`);
  const code = new URL(location).searchParams.get("code");
  if (code === null) throw new Error(`no code in ${location}`);
  return code;
}

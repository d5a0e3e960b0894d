import type { OAuthRegisteredClientsStore } from "@modelcontextprotocol/sdk/server/auth/clients.js";
import {
  InvalidClientMetadataError,
  InvalidGrantError,
  InvalidTargetError,
  InvalidTokenError,
} from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type {
  AuthorizationParams,
  OAuthServerProvider,
} from "@modelcontextprotocol/sdk/server/auth/provider.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type {
  OAuthClientInformationFull,
  OAuthTokenRevocationRequest,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Response } from "express";
import type { OAuthClients } from "./oauth-clients.js";
import type { Exchange, OAuthStore } from "./oauth-store.js";
import { isAllowedRedirectUri } from "./redirect-uri.js";

/** Path of the consent page the authorization endpoint sends the browser to. */
export const CONSENT_PATH = "/oauth/consent";

function tokensOf(exchange: Exchange): OAuthTokens {
  if (!exchange.ok) {
    const words = {
      unknown: "the grant is unknown or was issued to another client",
      expired: "the grant has expired",
      reused: "the grant was used already; every token issued from it is revoked",
      revoked: "the grant was revoked",
      mismatch: "redirect_uri or resource differs from the authorization request's",
    } as const;
    throw new InvalidGrantError(words[exchange.reason]);
  }
  return {
    access_token: exchange.tokens.accessToken,
    token_type: "Bearer",
    expires_in: exchange.tokens.expiresIn,
    refresh_token: exchange.tokens.refreshToken,
  };
}

/**
 * The service as an OAuth 2.1 authorization server for its `/mcp` endpoint,
 * as the MCP SDK's `mcpAuthRouter` drives it. Clients register
 * dynamically (RFC 7591) or are named by an https URL whose client ID
 * metadata document describes them (oauth-clients.ts), and are always
 * public (no secret: PKCE S256 proves the caller); redirect URIs are https
 * or loopback. Authorization goes
 * through the signed-in consent page ({@link CONSENT_PATH}); tokens are
 * bound to the `/mcp` resource (RFC 8707) of this origin and to one
 * account and persona.
 */
export class PersonaOAuthProvider implements OAuthServerProvider {
  readonly clientsStore: OAuthRegisteredClientsStore;

  /**
   * @param clients - where `getClient` looks clients up (registered, or by their metadata document)
   * @param resource - the `/mcp` URL of this origin, the only resource tokens are issued for
   */
  constructor(
    private readonly store: OAuthStore,
    clients: OAuthClients,
    readonly resource: URL,
  ) {
    this.clientsStore = {
      // Throws the SDK's InvalidClientError for a URL client ID whose document cannot be used:
      // the SDK's authorize and client-authentication steps answer it as a 400 RFC 6749 error.
      getClient: (clientId) => clients.find(clientId),
      registerClient: async (client) => {
        for (const uri of client.redirect_uris) {
          if (!isAllowedRedirectUri(uri)) {
            throw new InvalidClientMetadataError(
              "every redirect_uri must be https, or http on a loopback host (localhost, 127.0.0.1, [::1])",
            );
          }
        }
        // Public clients only: the SDK's generated secret is dropped, PKCE stands in.
        const { client_secret: _secret, client_secret_expires_at: _expiry, ...rest } = client;
        const registered = {
          ...rest,
          token_endpoint_auth_method: "none",
        } as OAuthClientInformationFull;
        await store.registerClient(registered);
        return registered;
      },
    };
  }

  /** Refuses a resource other than this origin's `/mcp` (RFC 8707 `invalid_target`). */
  private checkResource(resource: URL | undefined): void {
    if (resource !== undefined && resource.href !== this.resource.href) {
      throw new InvalidTargetError(`this server issues tokens for ${this.resource.href} only`);
    }
  }

  /** Sends the browser to the consent page with the checked request (sign-in comes first there). */
  async authorize(
    client: OAuthClientInformationFull,
    params: AuthorizationParams,
    response: Response,
  ): Promise<void> {
    this.checkResource(params.resource);
    const query = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: params.redirectUri,
      code_challenge: params.codeChallenge,
      resource: this.resource.href,
    });
    if (params.state !== undefined) query.set("state", params.state);
    response.redirect(302, `${CONSENT_PATH}?${query}`);
  }

  async challengeForAuthorizationCode(
    client: OAuthClientInformationFull,
    authorizationCode: string,
  ): Promise<string> {
    const challenge = await this.store.challengeOf(client.client_id, authorizationCode);
    if (challenge === undefined) {
      throw new InvalidGrantError("the grant is unknown or was issued to another client");
    }
    return challenge;
  }

  async exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    authorizationCode: string,
    _codeVerifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    this.checkResource(resource);
    return tokensOf(
      await this.store.exchangeCode(
        client.client_id,
        authorizationCode,
        redirectUri,
        resource?.href,
      ),
    );
  }

  async exchangeRefreshToken(
    client: OAuthClientInformationFull,
    refreshToken: string,
    _scopes?: string[],
    resource?: URL,
  ): Promise<OAuthTokens> {
    this.checkResource(resource);
    return tokensOf(
      await this.store.exchangeRefresh(client.client_id, refreshToken, resource?.href),
    );
  }

  /**
   * What an access token stands for. The SDK's bearer middleware then
   * checks its resource against `/mcp` and its expiry.
   *
   * @throws {InvalidTokenError} for an unknown or revoked token, or an account that is not active
   */
  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const access = await this.store.findAccess(token);
    if (access === undefined || access.revoked) {
      throw new InvalidTokenError("the access token is unknown or revoked");
    }
    if (access.accountStatus !== "active") {
      throw new InvalidTokenError("the account of this access token is not active");
    }
    return {
      token,
      clientId: access.clientId,
      scopes: [],
      expiresAt: access.expiresAt,
      resource: new URL(access.resource),
      extra: { personaId: access.personaId, grantId: access.grantId },
    };
  }

  /** RFC 7009: revoking any token of a grant revokes the grant (every token of its family). */
  async revokeToken(
    client: OAuthClientInformationFull,
    request: OAuthTokenRevocationRequest,
  ): Promise<void> {
    const grantId = await this.store.grantOfToken(client.client_id, request.token);
    if (grantId !== undefined) await this.store.revokeGrant(grantId);
  }
}

/**
 * A signed-in browser session, as the pages see it (stored by the
 * playground's `SessionStore`, docs/API.md §1.6).
 */
export interface PageSession {
  /** Public identifier, used to list and revoke the session. */
  id: string;
  accountId: string;
  email: string;
  userAgent: string | null;
  createdAt: string;
  expiresAt: string;
  lastSeenAt: string;
}

/** What the page middleware needs of the session store: the cookie's session, and noting its use. */
export interface SessionLookup {
  /** How long a session lasts after sign-in, in milliseconds (the cookie's max age). */
  readonly lifetimeMs: number;
  /** The live session whose cookie secret is `token`, or undefined. */
  findByToken(token: string): Promise<PageSession | undefined>;
  /** Notes that the session was used just now (its `lastSeenAt`). */
  touch(session: PageSession): Promise<void>;
}

import { isLoopbackHost } from "@persona-reply/shared/node";

/**
 * Whether a redirect URI may be registered: `https:`, or `http:` on a
 * loopback host (RFC 8252 §7.3: any port is then accepted at authorization),
 * without a fragment (RFC 6749 §3.1.2).
 */
export function isAllowedRedirectUri(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.hash !== "" || value.includes("#")) return false;
  if (url.username !== "" || url.password !== "") return false;
  if (url.protocol === "https:") return true;
  return url.protocol === "http:" && isLoopbackHost(url.host);
}

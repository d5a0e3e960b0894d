import http from "node:http";

/** Options of {@link PageClient}. */
export interface PageClientOptions {
  /**
   * Loopback address to connect from (e.g. `127.0.0.2`), so a test can be
   * a second client as the service sees it (its peer address).
   */
  localAddress?: string;
}

/** A fetch without redirects, from a chosen local address (node:http; fetch cannot bind one). */
function fetchFrom(localAddress: string, url: URL, init: RequestInit): Promise<Response> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: init.method ?? "GET",
        headers: init.headers as Record<string, string>,
        localAddress,
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
        incoming.on("error", reject);
        incoming.on("end", () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(incoming.headers)) {
            for (const item of Array.isArray(value) ? value : [value ?? ""]) {
              headers.append(name, item);
            }
          }
          const status = incoming.statusCode ?? 0;
          const body = status === 204 || status === 304 ? null : Buffer.concat(chunks);
          resolve(new Response(body, { status, headers }));
        });
      },
    );
    request.on("error", reject);
    request.end(typeof init.body === "string" ? init.body : undefined);
  });
}

/**
 * A minimal browser stand-in for page tests over fetch: keeps cookies,
 * never follows redirects (tests look at each `Location`), and reads the
 * CSRF token out of a page's form.
 */
export class PageClient {
  readonly cookies = new Map<string, string>();

  constructor(
    readonly baseUrl: string,
    private readonly options: PageClientOptions = {},
  ) {}

  /** Sends a request with the stored cookies and stores the ones set in the answer. */
  async request(
    pathname: string,
    options: {
      method?: string;
      form?: Record<string, string>;
      headers?: Record<string, string>;
      body?: string;
    } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookies.size > 0) {
      headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    }
    let body = options.body;
    if (options.form !== undefined) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(options.form).toString();
    }
    const init: RequestInit = {
      method: options.method ?? (body === undefined ? "GET" : "POST"),
      headers,
      redirect: "manual",
      ...(body === undefined ? {} : { body }),
    };
    const url = new URL(pathname, this.baseUrl);
    const { localAddress } = this.options;
    const response = await (localAddress === undefined
      ? fetch(url, init)
      : fetchFrom(localAddress, url, init));
    for (const line of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";");
      const index = pair.indexOf("=");
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      const expired = attributes.some((attribute) =>
        /^\s*(max-age=0|expires=thu, 01 jan 1970)/iu.test(attribute),
      );
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  /** GETs a page and returns its status, HTML and CSRF token (when it has a form). */
  async page(
    pathname: string,
  ): Promise<{ status: number; html: string; csrf: string; response: Response }> {
    const response = await this.request(pathname);
    const html = await response.text();
    return { status: response.status, html, csrf: csrfIn(html), response };
  }

  /** POSTs a form. */
  postForm(pathname: string, form: Record<string, string>): Promise<Response> {
    return this.request(pathname, { form });
  }
}

/** The CSRF token of the first form (or the chat root) in a page, or "". */
export function csrfIn(html: string): string {
  return (
    /name="_csrf" value="([^"]+)"/u.exec(html)?.[1] ?? /data-csrf="([^"]+)"/u.exec(html)?.[1] ?? ""
  );
}

/** The value of a hidden field in a page, unescaped. */
export function hiddenField(html: string, name: string): string | undefined {
  const value = new RegExp(`name="${name}" value="([^"]*)"`, "u").exec(html)?.[1];
  return value
    ?.replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
}

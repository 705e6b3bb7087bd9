import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from './test-app';

/**
 * A minimal browser for the install page over `fastify.inject`: keeps cookies like a browser
 * (per name, honouring deletion), follows nothing by itself, and reads forms out of the HTML
 * so tests submit exactly what the page rendered.
 */
export class InstallPageBrowser {
  readonly cookies = new Map<string, string>();

  /** `headers`: sent with every request (e.g. X-Forwarded-For, as a proxy would add it). */
  constructor(
    private readonly t: TestApp,
    private readonly headers: Record<string, string> = {},
  ) {}

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.keepCookies(await this.t.inject({ method: 'GET', url, headers: this.cookieHeader() }));
  }

  async post(url: string, fields: Record<string, string>): Promise<LightMyRequestResponse> {
    return this.keepCookies(
      await this.t.inject({
        method: 'POST',
        url,
        headers: { ...this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(fields).toString(),
      }),
    );
  }

  /** Submits the page's form with `action`, its hidden fields plus `extra` (what the user typed or clicked). */
  async submit(
    page: LightMyRequestResponse,
    action: string,
    extra: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> {
    return this.post(action, { ...formFields(page.body, action), ...extra });
  }

  private cookieHeader(): Record<string, string> {
    if (this.cookies.size === 0) return { ...this.headers };
    return { ...this.headers, cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
  }

  private keepCookies(response: LightMyRequestResponse): LightMyRequestResponse {
    for (const c of response.cookies as Array<{ name: string; value: string; maxAge?: number; expires?: Date }>) {
      const expired =
        c.maxAge === 0 || (c.expires !== undefined && c.expires.getTime() <= Date.now()) || c.value === '';
      if (expired) this.cookies.delete(c.name);
      else this.cookies.set(c.name, encodeURIComponent(c.value));
    }
    return response;
  }
}

const unescapeHtml = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The hidden inputs of the (first) form posting to `action`. */
export function formFields(html: string, action: string): Record<string, string> {
  const start = html.indexOf(`action="${action}"`);
  if (start < 0) throw new Error(`no form with action ${action} in:\n${html}`);
  const form = html.slice(start, html.indexOf('</form>', start));
  const fields: Record<string, string> = {};
  for (const m of form.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)"\s*\/?>/g))
    fields[unescapeHtml(m[1]!)] = unescapeHtml(m[2]!);
  return fields;
}

/** What the page shows as text (tags dropped, entities decoded), for assertions on wording. */
export function textOf(html: string): string {
  return unescapeHtml(html.replace(/<style>[\s\S]*?<\/style>/g, '').replace(/<[^>]+>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();
}

import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from './test-app';

/** A browser-like client of the console over inject: keeps its cookie, reads each page's CSRF token. */
export class ConsoleClient {
  cookie = '';
  csrf = '';

  /** `headers` go with every request (X-Forwarded-For behind a trusted proxy, say). */
  constructor(
    private readonly t: TestApp,
    private readonly headers: Record<string, string> = {},
  ) {}

  private keep(r: LightMyRequestResponse): LightMyRequestResponse {
    const set = r.headers['set-cookie'];
    for (const c of [set ?? []].flat()) if (c.startsWith('hs_console_session=')) this.cookie = c.split(';')[0]!;
    const token = /name="_csrf" value="([^"]+)"/.exec(r.body);
    if (token) this.csrf = token[1]!;
    return r;
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.keep(
      await this.t.inject({
        method: 'GET',
        url,
        headers: { ...this.headers, ...(this.cookie ? { cookie: this.cookie } : {}) },
      }),
    );
  }

  /** A form POST; `_csrf` is the last page's token unless the form names its own (or null: none). */
  async post(
    url: string,
    form: Record<string, string> = {},
    csrf: string | null = this.csrf,
  ): Promise<LightMyRequestResponse> {
    const body = new URLSearchParams({ ...(csrf === null ? {} : { _csrf: csrf }), ...form }).toString();
    return this.keep(
      await this.t.inject({
        method: 'POST',
        url,
        headers: {
          ...this.headers,
          'content-type': 'application/x-www-form-urlencoded',
          ...(this.cookie ? { cookie: this.cookie } : {}),
        },
        payload: body,
      }),
    );
  }

  async signIn(key = this.t.adminKey): Promise<LightMyRequestResponse> {
    await this.get('/console/sign-in');
    return this.post('/console/sign-in', { adminKey: key });
  }
}

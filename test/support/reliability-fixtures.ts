import { jsonRequest, type Json } from './reliability-service';

/** Directory and OAuth set-up over real HTTP (admin API, programmatic install, token endpoint). */
export class HttpFixtures {
  private n = 0;
  constructor(
    readonly url: string,
    readonly adminKey: string,
  ) {}

  private unique(): string {
    return `${process.pid.toString(36)}${Date.now().toString(36)}${(this.n++).toString(36)}`;
  }

  async admin<T = Json>(method: string, path: string, json?: unknown): Promise<{ status: number; body: T }> {
    return jsonRequest<T>(`${this.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.adminKey}` },
      ...(json !== undefined ? { json } : {}),
    });
  }

  private async created<T>(path: string, json: unknown): Promise<T> {
    const r = await this.admin<T>('POST', path, json);
    if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }

  account(tier = 'enterprise'): Promise<{ hubId: number; domain: string }> {
    return this.created('/admin/v1/accounts', { domain: `rel-${this.unique()}.example.com`, tier });
  }

  user(hubIds: number[]): Promise<{ userId: number; email: string }> {
    return this.created('/admin/v1/users', {
      email: `rel-${this.unique()}@example.com`,
      password: 'correct horse battery staple',
      hubIds,
    });
  }

  app(
    developerHubId: number,
    requiredScopes: string[],
    optionalScopes: string[] = [],
  ): Promise<{ appId: number; clientId: string; clientSecret: string; redirectUrls: string[] }> {
    return this.created('/admin/v1/apps', {
      developerHubId,
      name: `Reliability ${this.unique()}`,
      redirectUrls: ['https://app.example.com/oauth/callback'],
      requiredScopes,
      optionalScopes,
    });
  }

  async installCode(appId: number, hubId: number, userId: number): Promise<string> {
    const body = await this.created<{ code: string }>(`/admin/v1/apps/${appId}/installs`, {
      hubId,
      userId,
      redirectUri: 'https://app.example.com/oauth/callback',
    });
    return body.code;
  }

  token(form: Record<string, string>) {
    return jsonRequest<TokenBody>(`${this.url}/oauth/v1/token`, { method: 'POST', form });
  }

  exchange(app: { clientId: string; clientSecret: string }, code: string) {
    return this.token({
      grant_type: 'authorization_code',
      client_id: app.clientId,
      client_secret: app.clientSecret,
      redirect_uri: 'https://app.example.com/oauth/callback',
      code,
    });
  }

  refresh(app: { clientId: string; clientSecret: string }, refreshToken: string) {
    return this.token({
      grant_type: 'refresh_token',
      client_id: app.clientId,
      client_secret: app.clientSecret,
      refresh_token: refreshToken,
    });
  }

  bearer<T = Json>(method: string, path: string, accessToken: string, json?: unknown) {
    return jsonRequest<T>(`${this.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${accessToken}` },
      ...(json !== undefined ? { json } : {}),
    });
  }
}

export interface TokenBody {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  hub_id: number;
  user_id: number;
  scopes: string[];
}

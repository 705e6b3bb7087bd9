import { Client } from '@hubspot/api-client';
import type { LightMyRequestResponse } from 'fastify';
import { EVENT_STORE, EventStore } from '../../src/platform/event-store/event-store.port';
import { expectOAuthSchema } from './oauth-schema';
import { createAccount, createApp, createUser, type TestService } from './test-app';

export interface OAuthFixture {
  hubId: number;
  domain: string;
  userId: number;
  email: string;
  appId: number;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  requiredScopes: string[];
  optionalScopes: string[];
}

/** An account (tier as given), a user of it, and an app registered by it. */
export async function oauthFixture(
  t: TestService,
  options: { tier?: string; requiredScopes?: string[]; optionalScopes?: string[]; redirectUrls?: string[] } = {},
): Promise<OAuthFixture> {
  const account = await createAccount(t, { tier: options.tier ?? 'enterprise' });
  const user = await createUser(t, { hubIds: [account.hubId] });
  const app = await createApp(t, {
    developerHubId: account.hubId,
    redirectUrls: options.redirectUrls ?? ['https://app.example.com/oauth/callback'],
    requiredScopes: options.requiredScopes ?? ['oauth', 'crm.objects.contacts.read'],
    optionalScopes: options.optionalScopes ?? ['crm.objects.custom.read', 'tickets'],
  });
  return {
    hubId: account.hubId,
    domain: account.domain,
    userId: user.userId,
    email: user.email,
    appId: app.appId,
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    redirectUri: app.redirectUrls[0]!,
    requiredScopes: app.requiredScopes,
    optionalScopes: app.optionalScopes,
  };
}

/** The programmatic install: POST /admin/v1/apps/{appId}/installs. */
export async function installCode(
  t: TestService,
  f: OAuthFixture,
  extra: Record<string, unknown> = {},
): Promise<{ code: string; redirectUrl: string; scopes: string[] }> {
  const r = await t.admin('POST', `/admin/v1/apps/${f.appId}/installs`, {
    hubId: f.hubId,
    userId: f.userId,
    redirectUri: f.redirectUri,
    ...extra,
  });
  if (r.statusCode !== 201) throw new Error(`install: ${r.statusCode} ${r.body}`);
  return r.json();
}

/** POST /oauth/v1/token as a form. */
export function tokenRequest(
  t: TestService,
  form: Record<string, string | undefined>,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const body = new URLSearchParams(
    Object.entries(form).filter((e): e is [string, string] => e[1] !== undefined),
  ).toString();
  return t.inject({
    method: 'POST',
    url: '/oauth/v1/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: body,
  });
}

export function exchangeCode(
  t: TestService,
  f: OAuthFixture,
  code: string,
  extra: Record<string, string | undefined> = {},
) {
  return tokenRequest(t, {
    grant_type: 'authorization_code',
    client_id: f.clientId,
    client_secret: f.clientSecret,
    redirect_uri: f.redirectUri,
    code,
    ...extra,
  });
}

export function refresh(
  t: TestService,
  f: OAuthFixture,
  refreshToken: string,
  extra: Record<string, string | undefined> = {},
) {
  return tokenRequest(t, {
    grant_type: 'refresh_token',
    client_id: f.clientId,
    client_secret: f.clientSecret,
    refresh_token: refreshToken,
    ...extra,
  });
}

/** Installs and exchanges the code: a ready token response. */
export async function installAndExchange(t: TestService, f: OAuthFixture) {
  const { code } = await installCode(t, f);
  const r = await exchangeCode(t, f, code);
  if (r.statusCode !== 200) throw new Error(`exchange: ${r.statusCode} ${r.body}`);
  return r.json() as {
    access_token: string;
    refresh_token: string;
    expires_in: number;
    hub_id: number;
    user_id: number;
    scopes: string[];
  };
}

/** Every stored event, from the store itself (the audit trail). */
export async function allEvents(t: TestService) {
  const store = t.app.get<EventStore>(EVENT_STORE);
  const out = [];
  for (let after = 0; ;) {
    const page = await store.readAll({ after, limit: 1000 });
    if (page.length === 0) return out;
    out.push(...page);
    after = page[page.length - 1]!.position;
  }
}

/** A HubSpot error body: Error schema, uuid correlation id, and the OAuth extras when asked. */
export function expectOAuthError(
  r: LightMyRequestResponse,
  httpStatus: number,
  status: string,
  error?: string,
): Record<string, unknown> {
  expect({ code: r.statusCode, body: r.json() }).toMatchObject({ code: httpStatus, body: { status } });
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  const body = r.json() as Record<string, unknown>;
  expectOAuthSchema('Error', body);
  if (error !== undefined) {
    expect(body.error).toBe(error);
    expect(body.error_description).toBe(body.message);
  }
  return body;
}

/**
 * `@hubspot/api-client` on a developer API key of the account (what the webhooks' settings and
 * subscriptions take), subscribed to `contact.creation` with `targetUrl` and `maxConcurrentRequests`.
 */
export async function contactCreationWebhooks(
  t: TestService,
  f: OAuthFixture,
  targetUrl: string,
  maxConcurrentRequests: number,
): Promise<Client> {
  const key = (await t.admin('POST', `/admin/v1/accounts/${f.hubId}/developer-api-keys`)).json() as {
    developerApiKey: string;
  };
  const dev = new Client({ developerApiKey: key.developerApiKey, basePath: t.url });
  await dev.webhooks.settingsApi.configure(f.appId, { targetUrl, throttling: { maxConcurrentRequests } });
  await dev.webhooks.subscriptionsApi.create(f.appId, { eventType: 'contact.creation' as never, active: true });
  return dev;
}

import type { TestApp } from './test-app';
import { jsonRequest, type Json } from './reliability-service';

export interface SendOptions {
  headers?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
}
export type Send = (method: string, path: string, options?: SendOptions) => Promise<{ status: number; body: Json }>;

/** Requests through fastify.inject (in-process app). */
export function injectSender(t: TestApp): Send {
  return async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    let payload: string | undefined;
    if (o.json !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(o.json);
    } else if (o.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      payload = new URLSearchParams(o.form).toString();
    }
    const r = await t.inject({
      method: method as never,
      url: path,
      headers,
      ...(payload !== undefined ? { payload } : {}),
    });
    let body: unknown;
    try {
      body = r.body === '' ? undefined : JSON.parse(r.body);
    } catch {
      body = r.body;
    }
    return { status: r.statusCode, body };
  };
}

/** Requests over real HTTP (spawned service). */
export function httpSender(baseUrl: string): Send {
  return (method, path, o = {}) => jsonRequest(`${baseUrl}${path}`, { method, ...o });
}

const REDIRECT = 'https://app.example.com/oauth/callback';

export interface WorkloadSummary {
  requests: number;
  accounts: number;
  migratedAccounts: number;
}

/**
 * A mixed workload touching every module and every projection: directory (accounts, users,
 * apps), OAuth (installs, code exchanges, refreshes, a deleted refresh token, an uninstall and a
 * re-install), cards (legacy cards created, updated, deleted; an app card; a migration run to its
 * end) and limits (calculated properties, custom object types created and archived, an
 * account override set and cleared, a refusal at the ceiling). Every step checks its status,
 * so a workload that silently did nothing cannot pass.
 */
export async function runMixedWorkload(
  send: Send,
  adminKey: string,
  /** In-process callers wait on the event feed (a tight inject loop would starve the worker); HTTP callers poll. */
  migrationEnded?: () => Promise<unknown>,
): Promise<WorkloadSummary> {
  let requests = 0;
  const admin = { authorization: `Bearer ${adminKey}` };
  const call = async (expected: number | number[], method: string, path: string, o: SendOptions = {}) => {
    requests++;
    const r = await send(method, path, o);
    const ok = Array.isArray(expected) ? expected.includes(r.status) : r.status === expected;
    if (!ok)
      throw new Error(`${method} ${path}: expected ${String(expected)}, got ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const tag = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  const account = async (tier: string, i: number) =>
    (
      await call(201, 'POST', '/admin/v1/accounts', {
        headers: admin,
        json: { domain: `mix-${tag}-${i}.example.com`, tier },
      })
    ).hubId as number;

  const dev = await account('enterprise', 0);
  const pro = await account('professional', 1);
  const ent = await account('enterprise', 2);
  const starter = await account('starter', 3);
  const free = await account('free', 4);
  const u1 = (
    await call(201, 'POST', '/admin/v1/users', {
      headers: admin,
      json: {
        email: `u1-${tag}@example.com`,
        password: 'correct horse battery staple',
        hubIds: [dev, pro, ent, starter, free],
      },
    })
  ).userId as number;
  const u2 = (
    await call(201, 'POST', '/admin/v1/users', {
      headers: admin,
      json: { email: `u2-${tag}@example.com`, password: 'another correct horse', hubIds: [pro, ent] },
    })
  ).userId as number;
  const appA = await call(201, 'POST', '/admin/v1/apps', {
    headers: admin,
    json: {
      developerHubId: dev,
      name: `Mix A ${tag}`,
      redirectUrls: [REDIRECT],
      requiredScopes: [
        'oauth',
        'developers-read',
        'developers-write',
        'crm.schemas.contacts.read',
        'crm.schemas.contacts.write',
        'crm.schemas.deals.read',
        'crm.schemas.deals.write',
        'crm.objects.deals.read',
      ],
      optionalScopes: ['crm.schemas.custom.read', 'crm.schemas.custom.write'],
    },
  });
  const appB = await call(201, 'POST', '/admin/v1/apps', {
    headers: admin,
    json: {
      developerHubId: dev,
      name: `Mix B ${tag}`,
      redirectUrls: [REDIRECT],
      requiredScopes: ['oauth'],
      optionalScopes: [],
    },
  });

  const installAndExchange = async (app: Json, hubId: number, userId: number) => {
    const { code } = await call(201, 'POST', `/admin/v1/apps/${app.appId}/installs`, {
      headers: admin,
      json: { hubId, userId, redirectUri: REDIRECT },
    });
    return call(200, 'POST', '/oauth/v1/token', {
      form: {
        grant_type: 'authorization_code',
        client_id: app.clientId,
        client_secret: app.clientSecret,
        redirect_uri: REDIRECT,
        code,
      },
    });
  };
  const refresh = (app: Json, refreshToken: string) =>
    call(200, 'POST', '/oauth/v1/token', {
      form: {
        grant_type: 'refresh_token',
        client_id: app.clientId,
        client_secret: app.clientSecret,
        refresh_token: refreshToken,
      },
    });

  // OAuth
  const devTokens = await installAndExchange(appA, dev, u1);
  const proTokens = await installAndExchange(appA, pro, u2);
  const entTokens = await installAndExchange(appA, ent, u1);
  await installAndExchange(appB, starter, u1);
  const freeB = await installAndExchange(appB, free, u1);
  for (const t of [devTokens, proTokens, entTokens]) {
    await refresh(appA, t.refresh_token);
    await refresh(appA, t.refresh_token);
  }
  await call(204, 'DELETE', `/oauth/v1/refresh-tokens/${freeB.refresh_token}`);
  await call(204, 'DELETE', `/admin/v1/accounts/${starter}/installs/${appB.appId}`, { headers: admin });
  await installAndExchange(appB, starter, u1);
  await installAndExchange(appB, pro, u2);

  // Cards
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const devAuth = bearer((await refresh(appA, devTokens.refresh_token)).access_token);
  const legacyCard = (title: string, objectTypes: string[]) => ({
    title,
    fetch: {
      targetUrl: 'https://example.com/fetch',
      objectTypes: objectTypes.map((name) => ({ name, propertiesToSend: ['email'] })),
    },
    display: { properties: [{ name: 'pet', label: 'Pet', dataType: 'STRING', options: [] }] },
    actions: { baseUrls: ['https://example.com'] },
  });
  const cards = `/crm/v3/extensions/cards-dev/${appA.appId}`;
  const l1 = (await call(201, 'POST', cards, { headers: devAuth, json: legacyCard('L1', ['contacts', 'deals']) })).id;
  await call(201, 'POST', cards, { headers: devAuth, json: legacyCard('L2', ['tickets']) });
  const l3 = (await call(201, 'POST', cards, { headers: devAuth, json: legacyCard('L3', ['companies']) })).id;
  await call(200, 'PATCH', `${cards}/${l1}`, { headers: devAuth, json: { title: 'L1 renamed' } });
  await call(204, 'DELETE', `${cards}/${l3}`, { headers: devAuth });
  const appCard = (
    await call(201, 'POST', `/admin/v1/apps/${appA.appId}/app-cards`, {
      headers: admin,
      json: { title: 'AC1', objectTypes: ['contacts', 'deals'] },
    })
  ).id;
  const started = await call(200, 'POST', `${cards}/views/migrate`, {
    headers: devAuth,
    json: { legacyCrmCardId: l1, appCardId: appCard, allowDuplicateAppCardIds: false },
  });
  let migration: Json;
  if (migrationEnded) await migrationEnded();
  for (let polls = 0; ; polls++) {
    migration = (
      await call(200, 'GET', `/admin/v1/apps/${appA.appId}/card-migrations`, { headers: admin })
    ).results.find((m: Json) => m.legacyCardId === l1);
    if (migration?.endedAt !== null && migration?.endedAt !== undefined) break;
    if (polls > 20_000) throw new Error(`migration did not end: ${JSON.stringify(migration)}`);
  }
  if (migration.migratedPortalCount !== started.totalPortalCount) {
    throw new Error(`migration counts: ${JSON.stringify(migration)} vs ${JSON.stringify(started)}`);
  }

  // Limits
  const entAuth = bearer((await refresh(appA, entTokens.refresh_token)).access_token);
  const proAuth = bearer((await refresh(appA, proTokens.refresh_token)).access_token);
  const calc = (name: string, formula: string, groupName = 'contactinformation') => ({
    name,
    label: name,
    type: 'number',
    fieldType: 'calculation_equation',
    groupName,
    calculationFormula: formula,
  });
  const schema = (name: string) => ({
    name,
    labels: { singular: name, plural: `${name}s` },
    primaryDisplayProperty: 'title',
    requiredProperties: ['title'],
    properties: [{ name: 'title', label: 'Title', type: 'string', fieldType: 'text' }],
    associatedObjects: ['CONTACT'],
  });
  await call(201, 'POST', '/crm/v3/properties/contacts', {
    headers: entAuth,
    json: calc('score_x2', 'hs_object_id * 2'),
  });
  await call(201, 'POST', '/crm/v3/properties/deals', {
    headers: entAuth,
    json: calc('amount_net', 'amount * 0.8', 'dealinformation'),
  });
  await call(204, 'DELETE', '/crm/v3/properties/deals/amount_net', { headers: entAuth });
  await call(201, 'POST', '/crm/v3/schemas', { headers: entAuth, json: schema('project') });
  await call(201, 'POST', '/crm/v3/schemas', { headers: entAuth, json: schema('vehicle') });
  await call(204, 'DELETE', '/crm/v3/schemas/vehicle', { headers: entAuth });
  await call(201, 'POST', '/crm/v3/properties/contacts', {
    headers: proAuth,
    json: calc('pro_calc', 'hs_object_id + 1'),
  });
  await call(200, 'PUT', `/admin/v1/accounts/${pro}/limits`, { headers: admin, json: { calculatedProperties: 1 } });
  await call([400, 403], 'POST', '/crm/v3/properties/contacts', {
    headers: proAuth,
    json: calc('pro_calc_2', 'hs_object_id + 2'),
  });
  await call(200, 'PUT', `/admin/v1/accounts/${pro}/limits`, { headers: admin, json: { calculatedProperties: null } });
  await call(201, 'POST', '/crm/v3/properties/contacts', {
    headers: proAuth,
    json: calc('pro_calc_2', 'hs_object_id + 2'),
  });
  await call(200, 'GET', '/crm/v3/limits/calculated-properties', { headers: proAuth });

  return { requests, accounts: 5, migratedAccounts: migration.migratedPortalCount };
}

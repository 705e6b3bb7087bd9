import { Client } from '@hubspot/api-client';
import { DemoSeeder } from '../../src/directory/seed/demo-seeder';
import { CrmSchemaModule } from '../../src/crm-schema/crm-schema.module';
import { OAuthModule } from '../../src/oauth/oauth.module';
import { validateResponse } from '../support/limits-schema';
import { mintLimitsToken } from '../support/limits-tokens';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The acceptance, as a new user would try it: the demo seed, the app installed through the
 * admin install endpoint, the code exchanged at /oauth/v1/token, then the official client with the
 * access token it got. Nothing here is minted by hand except where said.
 */
let t: TestApp;
let seed: { hubIds: number[]; appId: number; userId: number };

async function installAndGetToken(hubId: number): Promise<{ token: string; scopes: string[] }> {
  const app = DemoSeeder.load().app;
  const install = await t.admin('POST', `/admin/v1/apps/${seed.appId}/installs`, {
    hubId,
    userId: seed.userId,
    redirectUri: app.redirectUrls[0],
  });
  expect(install.statusCode).toBe(201);
  const token = await t.inject({
    method: 'POST',
    url: '/oauth/v1/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'authorization_code',
      code: install.json().code,
      redirect_uri: app.redirectUrls[0]!,
      client_id: app.clientId,
      client_secret: app.clientSecret,
    }).toString(),
  });
  expect(token.statusCode).toBe(200);
  return { token: token.json().access_token, scopes: install.json().scopes };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON body checked against the spec just below
type Json = any;

async function limits(c: Client, path: string): Promise<Json> {
  const r = await c.apiRequest({ method: 'GET', path });
  expect(r.status).toBe(200);
  const body = (await r.json()) as Json;
  expect(validateResponse('limitsTracking.json', 'GET', path, body)).toEqual([]);
  return body;
}

async function failure(p: Promise<unknown>): Promise<{ code: number; body: Record<string, unknown> }> {
  try {
    await p;
  } catch (error) {
    const e = error as { code: number; body: unknown };
    return { code: e.code, body: (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as never };
  }
  throw new Error('expected the call to fail');
}

beforeAll(async () => {
  // OAuthModule's constructor takes providers; StartOptions.modules only admits zero-argument classes.
  t = await startTestApp({ modules: [OAuthModule as unknown as new () => unknown, CrmSchemaModule], listen: true });
  seed = await t.app.get(DemoSeeder).apply();
});

afterAll(async () => {
  await t?.close();
});

const calc = (name: string, formula: string) => ({
  name,
  label: name,
  type: 'number' as never,
  fieldType: 'calculation_equation' as never,
  groupName: 'contactinformation',
  calculationFormula: formula,
});
const egg = (name: string) => ({
  name,
  labels: { singular: name, plural: `${name}s` },
  primaryDisplayProperty: 'title',
  requiredProperties: ['title'],
  properties: [{ name: 'title', label: 'Title', type: 'string' as never, fieldType: 'text' }],
  associatedObjects: ['CONTACT'],
});

describe('acceptance with the demo seed', () => {
  it('enterprise: calculated properties on contacts and deals, two custom object types; counts move; archiving drops them', async () => {
    const enterprise = seed.hubIds[2]!; // globex-enterprise.example.com
    const { token, scopes } = await installAndGetToken(enterprise);
    expect(scopes).toEqual(
      expect.arrayContaining(['crm.schemas.custom.write', 'crm.objects.contacts.sensitive.read.v2']),
    );
    const client = new Client({ accessToken: token, basePath: t.url });

    expect(await limits(client, '/crm/v3/limits/calculated-properties')).toEqual({
      overallLimit: 400,
      overallUsage: 0,
      overallPercentage: 0,
      byObjectType: [],
    });
    expect(await limits(client, '/crm/v3/limits/custom-object-types')).toEqual({ limit: 10, usage: 0, percentage: 0 });

    await client.crm.properties.coreApi.create('contacts', calc('score_x2', 'hs_object_id * 2'));
    await client.crm.properties.coreApi.create('deals', {
      ...calc('amount_net', 'amount * 0.8'),
      groupName: 'dealinformation',
    });
    await client.crm.schemas.coreApi.create(egg('project'));
    await client.crm.schemas.coreApi.create(egg('vehicle'));

    expect(await limits(client, '/crm/v3/limits/calculated-properties')).toEqual({
      overallLimit: 400,
      overallUsage: 2,
      overallPercentage: 0.5,
      byObjectType: [
        { objectTypeId: '0-1', singularLabel: 'Contact', pluralLabel: 'Contacts', usage: 1 },
        { objectTypeId: '0-3', singularLabel: 'Deal', pluralLabel: 'Deals', usage: 1 },
      ],
    });
    expect(await limits(client, '/crm/v3/limits/custom-object-types')).toEqual({ limit: 10, usage: 2, percentage: 20 });

    await client.crm.properties.coreApi.archive('deals', 'amount_net');
    await client.crm.schemas.coreApi.archive('vehicle');
    expect(await limits(client, '/crm/v3/limits/calculated-properties')).toMatchObject({
      overallUsage: 1,
      overallPercentage: 0.25,
    });
    expect(await limits(client, '/crm/v3/limits/custom-object-types')).toEqual({ limit: 10, usage: 1, percentage: 10 });
  });

  it('professional: custom object types are refused with a clear message', async () => {
    const professional = seed.hubIds[1]!; // acme-professional.example.com
    const { token, scopes } = await installAndGetToken(professional);
    const client = new Client({ accessToken: token, basePath: t.url });

    // The install grants the custom-object scopes, so it is the tier ceiling that refuses.
    expect(scopes).toEqual(expect.arrayContaining(['crm.schemas.custom.read', 'crm.schemas.custom.write']));
    const refused = await failure(client.crm.schemas.coreApi.create(egg('project')));
    expect(refused.code).toBe(400);
    expect(refused.body).toMatchObject({
      category: 'VALIDATION_ERROR',
      subCategory: 'LIMITS.CUSTOM_OBJECT_TYPES_LIMIT_EXCEEDED',
    });
    expect(refused.body.message).toBe(
      'You have reached your limit of custom object types: 0 of 0 in use (limit of the professional tier). ' +
        'Cannot create another custom object type; archive unused custom object types or ask for a higher limit.',
    );
    expect(await limits(client, '/crm/v3/limits/custom-object-types')).toEqual({ limit: 0, usage: 0, percentage: 0 });

    // calculated properties are part of professional (read here with a token holding only one of
    // the endpoint's official scopes)
    await client.crm.properties.coreApi.create('contacts', calc('score_x3', 'hs_object_id * 3'));
    const reader = new Client({
      accessToken: mintLimitsToken(t, { hubId: professional, scopes: ['crm.objects.contacts.read'] }),
      basePath: t.url,
    });
    expect(await limits(reader, '/crm/v3/limits/calculated-properties')).toMatchObject({
      overallLimit: 200,
      overallUsage: 1,
      overallPercentage: 0.5,
    });
  });
});

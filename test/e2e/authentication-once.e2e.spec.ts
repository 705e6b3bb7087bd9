import { CrmSchemaModule } from '../../src/crm-schema/crm-schema.module';
import { AccessTokenVerifier } from '../../src/oauth/application/access-token-verifier';
import { LIMITS_TEST_SCOPES, mintLimitsToken } from '../support/limits-tokens';
import { createAccount, startTestApp, TestApp } from '../support/test-app';

/**
 * `@Authenticated` checks a request's access token once: in onRequest on routes with a body (so a
 * bad token is refused before the body is read), else in the guard, which reuses the first answer.
 */
let t: TestApp;
let checks: jest.SpyInstance;
let hubId: number;

beforeAll(async () => {
  t = await startTestApp({ modules: [CrmSchemaModule] });
  hubId = (await createAccount(t)).hubId;
  checks = jest.spyOn(t.app.get(AccessTokenVerifier), 'check');
});
afterAll(() => t.close());
beforeEach(() => checks.mockClear());

const token = (scopes = LIMITS_TEST_SCOPES) => mintLimitsToken(t, { hubId, scopes });

it('a POST route verifies the token once (before the body), and the guard checks the scopes with it', async () => {
  const res = await t.inject({
    method: 'POST',
    url: '/crm/v3/properties/contacts',
    headers: { authorization: `Bearer ${token()}`, 'content-type': 'application/json' },
    payload: {
      name: 'once_checked',
      label: 'Once',
      type: 'string',
      fieldType: 'text',
      groupName: 'contactinformation',
    },
  });
  expect(res.statusCode).toBe(201);
  expect(checks).toHaveBeenCalledTimes(1);
});

it('a GET route verifies the token once, in the guard', async () => {
  const res = await t.inject({
    method: 'GET',
    url: '/crm/v3/properties/contacts',
    headers: { authorization: `Bearer ${token()}` },
  });
  expect(res.statusCode).toBe(200);
  expect(checks).toHaveBeenCalledTimes(1);
});

it('a scope the route does not accept is refused 403 after one check', async () => {
  const res = await t.inject({
    method: 'POST',
    url: '/crm/v3/properties/deals',
    headers: { authorization: `Bearer ${token(['crm.schemas.contacts.write'])}`, 'content-type': 'application/json' },
    payload: { name: 'x', label: 'X', type: 'string', fieldType: 'text', groupName: 'dealinformation' },
  });
  expect(res.statusCode).toBe(403);
  expect(res.json()).toMatchObject({
    category: 'MISSING_SCOPES',
    context: { requiredScopes: ['crm.schemas.deals.write', 'crm.objects.deals.write'] },
  });
  expect(checks).toHaveBeenCalledTimes(1);
});

it('a bad token on a POST route is refused 401 before the body is read', async () => {
  const res = await t.inject({
    method: 'POST',
    url: '/crm/v3/properties/contacts',
    headers: { authorization: 'Bearer not-a-token', 'content-type': 'application/json' },
    payload: '{ not json',
  });
  expect(res.statusCode).toBe(401);
  expect(checks).toHaveBeenCalledTimes(1);
});

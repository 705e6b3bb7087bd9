import { LEGACY_CONTACT_PAGE_SCHEMA, LEGACY_CONTACT_SCHEMA } from '../../src/contacts-v1/http/wire-schemas';
import { installCode, oauthFixture } from '../support/oauth-fixtures';
import { mintRecordsToken } from '../support/records-tokens';
import { createAccount, startTestApp, type TestApp } from '../support/test-app';
import { wireProblems } from '../support/wire-schemas';

/**
 * HubSpot's legacy Contacts API (v1), read-only, over the records the objects API writes: the call
 * HubSpot's OAuth quickstart makes right after its code exchange
 * (`GET /contacts/v1/lists/all/contacts/all?count=1`, then `contacts[0].properties.firstname.value`),
 * paging by vid-offset, history, profiles by vid and e-mail, and bad input.
 */
let t: TestApp;
let hubId: number;
let token: string;
const ids: number[] = [];

const get = (url: string, bearer: string | null = token) =>
  t.inject({ method: 'GET', url, headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });

async function createContact(properties: Record<string, string>): Promise<number> {
  const r = await t.inject({
    method: 'POST',
    url: '/crm/v3/objects/contacts',
    headers: { authorization: `Bearer ${token}` },
    payload: { properties },
  });
  expect(r.statusCode).toBe(201);
  return Number(r.json().id);
}

beforeAll(async () => {
  t = await startTestApp();
  hubId = (await createAccount(t, { tier: 'enterprise' })).hubId;
  token = mintRecordsToken(t, hubId);
  for (let i = 0; i < 5; i++) {
    ids.push(await createContact({ email: `v1-${i}@Example.com`, firstname: `First${i}`, lastname: `Last${i}` }));
  }
});

afterAll(async () => {
  await t?.close();
});

describe('GET /contacts/v1/lists/all/contacts/all', () => {
  it('answers HubSpot’s quickstart: the first contact with firstname and lastname values', async () => {
    const f = await oauthFixture(t);
    const { code } = await installCode(t, f);
    // The quickstart exchanges at /oauth/v3/token, then reads contacts with the access token.
    const exchanged = await t.inject({
      method: 'POST',
      url: '/oauth/v3/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: f.clientId,
        client_secret: f.clientSecret,
        redirect_uri: f.redirectUri,
        code,
      }).toString(),
    });
    expect(exchanged.statusCode).toBe(200);
    const accessToken = exchanged.json().access_token as string;
    const own = mintRecordsToken(t, f.hubId);
    const made = await t.inject({
      method: 'POST',
      url: '/crm/v3/objects/contacts',
      headers: { authorization: `Bearer ${own}` },
      payload: { properties: { email: 'bob@example.com', firstname: 'Bob', lastname: 'Record' } },
    });
    expect(made.statusCode).toBe(201);
    const r = await get('/contacts/v1/lists/all/contacts/all?count=1', accessToken);
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(wireProblems(LEGACY_CONTACT_PAGE_SCHEMA, body)).toEqual([]);
    const { firstname, lastname } = body.contacts[0].properties;
    expect(`${firstname.value} ${lastname.value}`).toBe('Bob Record');
    expect(body.contacts[0]['portal-id']).toBe(f.hubId);
  });

  it('lists in vid order with the four default properties, dates as epoch milliseconds', async () => {
    const r = await get('/contacts/v1/lists/all/contacts/all');
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(wireProblems(LEGACY_CONTACT_PAGE_SCHEMA, body)).toEqual([]);
    expect(body.contacts.map((c: { vid: number }) => c.vid)).toEqual(ids);
    expect(body['has-more']).toBe(false);
    expect(body['vid-offset']).toBe(ids[4]);
    const first = body.contacts[0];
    expect(Object.keys(first.properties).sort()).toEqual(['firstname', 'lastmodifieddate', 'lastname']);
    expect(first.properties.lastmodifieddate.value).toMatch(/^\d{13}$/);
    expect(first['canonical-vid']).toBe(first.vid);
    expect(first['is-contact']).toBe(true);
    expect(first.addedAt).toEqual(expect.any(Number));
    expect(first['identity-profiles'][0].identities[0]).toMatchObject({
      type: 'EMAIL',
      value: 'v1-0@Example.com',
      'is-primary': true,
    });
    expect(first.properties.firstname.versions).toBeUndefined();
  });

  it('pages with count and vidOffset until has-more is false', async () => {
    const seen: number[] = [];
    let offset = 0;
    for (let pages = 0; pages < 10; pages++) {
      const body = (await get(`/contacts/v1/lists/all/contacts/all?count=2&vidOffset=${offset}`)).json();
      seen.push(...body.contacts.map((c: { vid: number }) => c.vid));
      if (!body['has-more']) break;
      offset = body['vid-offset'];
    }
    expect(seen).toEqual(ids);
  });

  it('shows the named properties instead, with their history when propertyMode=value_and_history', async () => {
    const patched = await t.inject({
      method: 'PATCH',
      url: `/crm/v3/objects/contacts/${ids[1]}`,
      headers: { authorization: `Bearer ${token}` },
      payload: { properties: { firstname: 'Renamed' } },
    });
    expect(patched.statusCode).toBe(200);
    const r = await get(
      `/contacts/v1/lists/all/contacts/all?property=email&property=firstname&propertyMode=value_and_history&vidOffset=${ids[0]}&count=1`,
    );
    const body = r.json();
    expect(wireProblems(LEGACY_CONTACT_PAGE_SCHEMA, body)).toEqual([]);
    const contact = body.contacts[0];
    expect(contact.vid).toBe(ids[1]);
    expect(Object.keys(contact.properties).sort()).toEqual(['email', 'firstname']);
    expect(contact.properties.firstname.value).toBe('Renamed');
    expect(contact.properties.firstname.versions.map((v: { value: string }) => v.value)).toEqual(['Renamed', 'First1']);
    expect(contact.properties.firstname.versions[0]).toMatchObject({ selected: true, 'source-type': 'INTEGRATION' });
    expect(contact.properties.firstname.versions[1].selected).toBe(false);
  });

  it('leaves archived contacts out', async () => {
    const extra = await createContact({ email: 'gone@example.com', firstname: 'Gone' });
    const archived = await t.inject({
      method: 'DELETE',
      url: `/crm/v3/objects/contacts/${extra}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(archived.statusCode).toBe(204);
    const body = (await get('/contacts/v1/lists/all/contacts/all?count=100')).json();
    expect(body.contacts.map((c: { vid: number }) => c.vid)).not.toContain(extra);
  });
});

describe('GET /contacts/v1/contact/{vid|email}/profile', () => {
  it('answers a contact by vid with every property that has a value, and its history', async () => {
    const r = await get(`/contacts/v1/contact/vid/${ids[2]}/profile`);
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(wireProblems(LEGACY_CONTACT_SCHEMA, body)).toEqual([]);
    expect(body.vid).toBe(ids[2]);
    expect(body.addedAt).toBeUndefined();
    expect(body['list-memberships']).toEqual([]);
    expect(body.properties.email.value).toBe('v1-2@Example.com');
    expect(body.properties.hs_object_id.value).toBe(String(ids[2]));
    expect(body.properties.createdate.value).toMatch(/^\d{13}$/);
    expect(body.properties.firstname.versions).toHaveLength(1);
  });

  it('answers a contact by e-mail in any case, value_only when asked', async () => {
    const r = await get('/contacts/v1/contact/email/V1-3@EXAMPLE.com/profile?propertyMode=value_only');
    expect(r.statusCode).toBe(200);
    expect(r.json().vid).toBe(ids[3]);
    expect(r.json().properties.firstname).toEqual({ value: 'First3' });
  });

  it('404 with HubSpot’s v1 text for an unknown vid, an unknown e-mail and another account’s contact', async () => {
    const other = (await createAccount(t, {})).hubId;
    const otherToken = mintRecordsToken(t, other);
    for (const [url, bearer] of [
      ['/contacts/v1/contact/vid/999999999/profile', token],
      ['/contacts/v1/contact/email/nobody@example.com/profile', token],
      [`/contacts/v1/contact/vid/${ids[0]}/profile`, otherToken],
    ] as const) {
      const r = await get(url, bearer);
      expect(r.statusCode).toBe(404);
      expect(r.json()).toMatchObject({
        status: 'error',
        message: 'contact does not exist',
        category: 'OBJECT_NOT_FOUND',
      });
    }
  });
});

describe('bad input and authentication', () => {
  it.each([
    ['/contacts/v1/lists/all/contacts/all?count=abc', 'count'],
    ['/contacts/v1/lists/all/contacts/all?count=0', 'count'],
    ['/contacts/v1/lists/all/contacts/all?count=1&count=2', 'count'],
    ['/contacts/v1/lists/all/contacts/all?vidOffset=-1', 'vidOffset'],
    ['/contacts/v1/lists/all/contacts/all?propertyMode=all', 'propertyMode'],
    ['/contacts/v1/lists/all/contacts/all?formSubmissionMode=some', 'formSubmissionMode'],
    ['/contacts/v1/lists/all/contacts/all?showListMemberships=yes', 'showListMemberships'],
    ['/contacts/v1/lists/all/contacts/all?property=a%00b', 'property'],
    ['/contacts/v1/contact/vid/abc/profile', 'vid'],
    ['/contacts/v1/contact/vid/0/profile', 'vid'],
  ])('%s → 400 naming %s', async (url, field) => {
    const r = await get(url);
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ category: 'VALIDATION_ERROR', errors: [{ in: field }] });
  });

  it('a count above 100 is read as 100', async () => {
    const r = await get('/contacts/v1/lists/all/contacts/all?count=500');
    expect(r.statusCode).toBe(200);
  });

  it('401 without a token, 403 MISSING_SCOPES without a contacts read scope', async () => {
    expect((await get('/contacts/v1/lists/all/contacts/all', null)).statusCode).toBe(401);
    const noContacts = mintRecordsToken(t, hubId, ['crm.objects.deals.read']);
    const r = await get(`/contacts/v1/contact/vid/${ids[0]}/profile`, noContacts);
    expect(r.statusCode).toBe(403);
    expect(r.json()).toMatchObject({ category: 'MISSING_SCOPES' });
  });
});

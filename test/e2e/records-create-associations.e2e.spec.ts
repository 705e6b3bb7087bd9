import { Client } from '@hubspot/api-client';
import { mintRecordsToken } from '../support/records-tokens';
import { createAccount, startTestApp, type TestApp } from '../support/test-app';

/**
 * Associations inside creates (HubSpot's v3 `associations` of a create and a batch create), made
 * through the associations module's command; reads show them. @hubspot/api-client 14, basePath only.
 */
let t: TestApp;
let client: Client;

/** The client's enum value (its string), as apps send it. */
const HUBSPOT_DEFINED = 'HUBSPOT_DEFINED' as never;
/** contact→company (unlabeled) and deal→contact, HubSpot's type ids. */
const CONTACT_TO_COMPANY = 279;
const DEAL_TO_CONTACT = 3;

beforeAll(async () => {
  t = await startTestApp({ listen: true });
  const hubId = (await createAccount(t)).hubId;
  client = new Client({ accessToken: mintRecordsToken(t, hubId), basePath: t.url });
});

afterAll(async () => {
  await t?.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function failure(p: Promise<unknown>): Promise<{ code: number; body: Record<string, any> }> {
  try {
    await p;
  } catch (error) {
    const e = error as { code: number; body: unknown };
    return { code: e.code, body: (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as never };
  }
  throw new Error('expected the call to fail');
}

const to = (id: string, associationTypeId: number) => ({
  to: { id },
  types: [{ associationCategory: HUBSPOT_DEFINED, associationTypeId }],
});

describe('associations in creates', () => {
  it('a company created with an association to a contact (280, company→contact): both ends see it', async () => {
    const contact = await client.crm.contacts.basicApi.create({ properties: { email: 'other-way@example.com' } });
    const company = await client.crm.companies.basicApi.create({
      properties: { name: 'Other Way' },
      associations: [to(contact.id, 280)],
    });
    const fromContact = await client.crm.contacts.basicApi.getById(contact.id, undefined, undefined, ['companies']);
    expect(fromContact.associations?.companies?.results.map((r) => r.id)).toEqual([company.id]);
    const fromCompany = await client.crm.companies.basicApi.getById(company.id, undefined, undefined, ['contacts']);
    expect(fromCompany.associations?.contacts?.results.map((r) => r.id)).toEqual([contact.id]);
  });

  it('basicApi.create and batchApi.create associate the new records; reads show it', async () => {
    const company = await client.crm.companies.basicApi.create({ properties: { name: 'Acme' }, associations: [] });
    const contact = await client.crm.contacts.basicApi.create({
      properties: { email: 'assoc@example.com' },
      associations: [to(company.id, CONTACT_TO_COMPANY)],
    });
    const read = await client.crm.contacts.basicApi.getById(contact.id, undefined, undefined, ['companies']);
    expect(read.associations?.companies?.results).toEqual([
      expect.objectContaining({ id: company.id, type: 'contact_to_company_unlabeled' }),
    ]);
    // The other end sees it too (both directions are one association).
    const fromCompany = await client.crm.companies.basicApi.getById(company.id, undefined, undefined, ['contacts']);
    expect(fromCompany.associations?.contacts?.results.map((r) => r.id)).toEqual([contact.id]);

    const deals = await client.crm.deals.batchApi.create({
      inputs: [
        { properties: { dealname: 'One' }, associations: [to(contact.id, DEAL_TO_CONTACT)] },
        { properties: { dealname: 'Two' }, associations: [] },
      ],
    });
    const [one, two] = [...deals.results].sort((a, b) => Number(a.id) - Number(b.id));
    const page = await client.crm.deals.basicApi.getPage(10, undefined, undefined, undefined, ['contacts']);
    const byId = Object.fromEntries(
      page.results.map((d) => [d.id, d.associations?.contacts?.results.map((r) => r.id)]),
    );
    expect(byId).toEqual({ [one!.id]: [contact.id], [two!.id]: undefined });
  });

  it('an unknown target: 404 naming it, and no record is created; a type from another object type: 400', async () => {
    const before = (await client.crm.contacts.basicApi.getPage(100)).results.length;
    const missing = await failure(
      client.crm.contacts.basicApi.create({
        properties: { email: 'nobody@example.com' },
        associations: [to('987654321', CONTACT_TO_COMPANY)],
      }),
    );
    expect(missing).toMatchObject({
      code: 404,
      body: {
        category: 'OBJECT_NOT_FOUND',
        message: 'No 0-2 objects with ids: 987654321',
        context: { ids: ['987654321'] },
      },
    });
    expect((await client.crm.contacts.basicApi.getPage(100)).results.length).toBe(before);
    // 3 is deal→contact: not a type a contact's create can carry.
    const wrong = await failure(
      client.crm.contacts.basicApi.create({ properties: {}, associations: [to('1', DEAL_TO_CONTACT)] }),
    );
    expect(wrong).toMatchObject({ code: 400, body: { category: 'VALIDATION_ERROR' } });
    // In a batch, the input with the unknown target is refused, the others are created.
    const batch = await client.crm.contacts.batchApi.create({
      inputs: [
        { properties: { email: 'fine@example.com' }, associations: [] },
        { properties: { email: 'lost@example.com' }, associations: [to('987654321', CONTACT_TO_COMPANY)] },
      ],
    });
    expect(batch.results.map((r) => r.properties.email)).toEqual(['fine@example.com']);
    expect((batch as unknown as { errors: Array<{ context: Record<string, string[]> }> }).errors).toEqual([
      expect.objectContaining({ category: 'OBJECT_NOT_FOUND', context: { ids: ['987654321'], inputIndex: ['1'] } }),
    ]);
  });

  it('a malformed association: 400 naming the field', async () => {
    const r = await fetch(`${t.url}/crm/v3/objects/contacts`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${mintRecordsToken(t, (await createAccount(t)).hubId)}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        properties: {},
        associations: [{ to: {}, types: [{ associationCategory: 'NOPE', associationTypeId: 'x' }] }],
      }),
    });
    expect(r.status).toBe(400);
    const body = (await r.json()) as { errors: Array<{ in: string }> };
    expect(body.errors.map((e) => e.in)).toEqual([
      'associations.0.to.id',
      'associations.0.types.0.associationCategory',
      'associations.0.types.0.associationTypeId',
    ]);
  });
});

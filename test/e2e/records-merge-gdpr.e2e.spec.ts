import { Client } from '@hubspot/api-client';
import type Database from 'better-sqlite3';
import { recordStream } from '../../src/crm-records/domain/record-events';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { EventStoreDbEventStore } from '../../src/platform/event-store/eventstoredb-event-store';
import { EsdbStandIn } from '../support/esdb-standin/server';
import { READ_MODEL_DB } from '../../src/platform/projections/read-model-database';
import { mintRecordsToken } from '../support/records-tokens';
import { createAccount, startTestApp, type TestApp } from '../support/test-app';
import { operationProblems } from '../support/wire-schemas';

/**
 * Merge of two contacts or two companies, and GDPR delete, with @hubspot/api-client v14: what
 * stays in the store and the read models afterwards.
 */
let t: TestApp;
let client: Client;
let hubId: number;

beforeAll(async () => {
  t = await startTestApp({ listen: true });
  hubId = (await createAccount(t)).hubId;
  client = new Client({ accessToken: mintRecordsToken(t, hubId), basePath: t.url });
});

afterAll(async () => {
  await t?.close();
});

async function failure(p: Promise<unknown>): Promise<{ code: number; body: { category: string; message: string } }> {
  try {
    await p;
  } catch (error) {
    const e = error as { code: number; body: unknown };
    return { code: e.code, body: (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as never };
  }
  throw new Error('expected the call to fail');
}

describe('merge', () => {
  it('two contacts: the primary keeps its values and takes the other’s where it has none; the other is gone', async () => {
    const primary = await client.crm.contacts.basicApi.create({
      properties: { email: 'p@example.com', firstname: 'P' },
    });
    const other = await client.crm.contacts.basicApi.create({
      properties: { email: 'o@example.com', firstname: 'O', lastname: 'Other', phone: '123' },
    });
    const merged = await client.crm.contacts.basicApi.merge({
      primaryObjectId: primary.id,
      objectIdToMerge: other.id,
    });
    expect(merged.id).toBe(primary.id);
    expect(merged.properties).toMatchObject({
      email: 'p@example.com',
      firstname: 'P',
      lastname: 'Other',
      phone: '123',
      hs_merged_object_ids: other.id,
      hs_additional_emails: 'o@example.com',
    });
    expect(
      operationProblems('POST', '/crm/v3/objects/{objectType}/merge', 200, JSON.parse(JSON.stringify(merged))),
    ).toEqual([]);
    expect((await failure(client.crm.contacts.basicApi.getById(other.id))).code).toBe(404);
    expect(
      (await failure(client.crm.contacts.basicApi.getById(other.id, undefined, undefined, undefined, true))).code,
    ).toBe(404);
    // Merged away: it takes no more writes, and cannot be merged again.
    expect(
      (await failure(client.crm.contacts.basicApi.update(other.id, { properties: { firstname: 'X' } }))).code,
    ).toBe(404);
    expect(
      (await failure(client.crm.contacts.basicApi.merge({ primaryObjectId: primary.id, objectIdToMerge: other.id })))
        .code,
    ).toBe(404);
    // The merged contact's e-mail stays the primary's (an additional e-mail, as HubSpot keeps it):
    // a create with it is HubSpot's 409 naming the primary, in any case.
    expect(
      await failure(client.crm.contacts.basicApi.create({ properties: { email: 'O@Example.com' } })),
    ).toMatchObject({
      code: 409,
      body: { category: 'CONFLICT', message: `Contact already exists. Existing ID: ${primary.id}` },
    });
    const read = await client.crm.contacts.basicApi.getById(primary.id, ['hs_additional_emails']);
    expect(read.properties.hs_additional_emails).toBe('o@example.com');
    // A third contact merged in: its e-mail joins the list, the earlier one stays; archiving the primary frees both.
    const third = await client.crm.contacts.basicApi.create({ properties: { email: 'third@example.com' } });
    const again = await client.crm.contacts.basicApi.merge({ primaryObjectId: primary.id, objectIdToMerge: third.id });
    expect(again.properties.hs_additional_emails).toBe('o@example.com;third@example.com');
    expect(
      (await failure(client.crm.contacts.basicApi.create({ properties: { email: 'third@example.com' } }))).body.message,
    ).toBe(`Contact already exists. Existing ID: ${primary.id}`);
    await client.crm.contacts.basicApi.archive(primary.id);
    expect((await client.crm.contacts.basicApi.create({ properties: { email: 'o@example.com' } })).id).toEqual(
      expect.any(String),
    );
  });

  it('a primary without an e-mail takes the merged contact’s as its own (no additional e-mail)', async () => {
    const primary = await client.crm.contacts.basicApi.create({ properties: { firstname: 'NoMail' } });
    const other = await client.crm.contacts.basicApi.create({ properties: { email: 'moved@example.com' } });
    const merged = await client.crm.contacts.basicApi.merge({ primaryObjectId: primary.id, objectIdToMerge: other.id });
    expect(merged.properties.email).toBe('moved@example.com');
    expect(merged.properties.hs_additional_emails).toBeUndefined();
    expect(
      (await failure(client.crm.contacts.basicApi.create({ properties: { email: 'moved@example.com' } }))).body.message,
    ).toBe(`Contact already exists. Existing ID: ${primary.id}`);
  });

  it('two companies (no unique domain); a record into itself is 400; unknown ids 404', async () => {
    const a = await client.crm.companies.basicApi.create({ properties: { name: 'A' } });
    const b = await client.crm.companies.basicApi.create({ properties: { name: 'B', domain: 'b.example' } });
    const merged = await client.crm.companies.basicApi.merge({ primaryObjectId: a.id, objectIdToMerge: b.id });
    expect(merged.properties).toMatchObject({ name: 'A', domain: 'b.example' });
    expect(
      (await failure(client.crm.companies.basicApi.merge({ primaryObjectId: a.id, objectIdToMerge: a.id }))).code,
    ).toBe(400);
    expect(
      (await failure(client.crm.companies.basicApi.merge({ primaryObjectId: a.id, objectIdToMerge: '99999' }))).code,
    ).toBe(404);
    expect(
      (await failure(client.crm.companies.basicApi.merge({ primaryObjectId: '99999', objectIdToMerge: a.id }))).code,
    ).toBe(404);
  });
});

describe('GDPR delete', () => {
  it('by id: 404 afterwards even with archived=true; the store keeps only the purge; no read model keeps a value', async () => {
    const c = await client.crm.contacts.basicApi.create({
      properties: { email: 'forget.me@example.com', firstname: 'Forget', lastname: 'Me' },
    });
    await client.crm.contacts.basicApi.update(c.id, { properties: { phone: '+1 555 0100' } });
    await client.crm.contacts.basicApi.archive(c.id);
    await client.crm.contacts.basicApi.purge({ objectId: c.id });

    expect((await failure(client.crm.contacts.basicApi.getById(c.id))).code).toBe(404);
    expect(
      (await failure(client.crm.contacts.basicApi.getById(c.id, undefined, undefined, undefined, true))).code,
    ).toBe(404);

    const stored = await t.app.get<EventStore>(EVENT_STORE).readStream(recordStream(hubId, '0-1', Number(c.id)));
    expect(stored.map((e) => e.type)).toEqual(['crm.RecordPurged']);
    expect(JSON.stringify(stored)).not.toMatch(/forget|555 0100/i);
    // Nothing else in the store holds a value of it either (the e-mail's claim is named by a hash).
    const history = await t.admin('GET', '/admin/v1/events?limit=1000');
    expect(history.statusCode).toBe(200);
    expect(history.body).toContain('crm.RecordPurged');
    expect(history.body).not.toMatch(/forget|555 0100/i);

    const db = t.app.get<Database.Database>(READ_MODEL_DB);
    const rows = db.prepare('SELECT * FROM crm_records WHERE hub_id = ? AND id = ?').all(hubId, Number(c.id));
    expect(rows).toEqual([]);
    // Its e-mail may be used again.
    await client.crm.contacts.basicApi.create({ properties: { email: 'forget.me@example.com' } });
  });

  it('by e-mail (idProperty); an unknown contact is 204 too', async () => {
    const c = await client.crm.contacts.basicApi.create({ properties: { email: 'by.mail@example.com' } });
    await client.crm.contacts.basicApi.purge({ objectId: 'BY.mail@example.com', idProperty: 'email' });
    expect((await failure(client.crm.contacts.basicApi.getById(c.id))).code).toBe(404);
    const archived = await client.crm.contacts.basicApi.create({ properties: { email: 'archived.mail@example.com' } });
    await client.crm.contacts.basicApi.archive(archived.id);
    await client.crm.contacts.basicApi.purge({ objectId: 'archived.mail@example.com', idProperty: 'email' });
    const stored = await t.app.get<EventStore>(EVENT_STORE).readStream(recordStream(hubId, '0-1', Number(archived.id)));
    expect(stored.map((e) => e.type)).toEqual(['crm.RecordPurged']);
    await client.crm.contacts.basicApi.purge({ objectId: 'nobody@example.com', idProperty: 'email' });
    await client.crm.contacts.basicApi.purge({ objectId: '987654' });
  });
});

describe('GDPR delete on EventStoreDB (the stand-in: its protocol, not its engine)', () => {
  let standIn: EsdbStandIn;
  let esdb: TestApp;

  beforeAll(async () => {
    standIn = new EsdbStandIn();
    const connectionString = await standIn.start();
    esdb = await startTestApp({
      eventStore: new EventStoreDbEventStore(connectionString, {
        appendRetryDelayMs: 10,
        backoff: { initialMs: 10, maxMs: 100 },
      }),
    });
  }, 60_000);

  afterAll(async () => {
    await esdb?.close();
    await standIn?.stop();
  });

  it('the stream is truncated before the purge: a read of it holds only crm.RecordPurged', async () => {
    const hub = (await createAccount(esdb)).hubId;
    const auth = { authorization: `Bearer ${mintRecordsToken(esdb, hub)}`, 'content-type': 'application/json' };
    const created = await esdb.inject({
      method: 'POST',
      url: '/crm/v3/objects/contacts',
      headers: auth,
      payload: JSON.stringify({ properties: { email: 'esdb.forget@example.com', firstname: 'Esdb' } }),
    });
    expect(created.statusCode).toBe(201);
    const id = (created.json() as { id: string }).id;
    const purge = await esdb.inject({
      method: 'POST',
      url: '/crm/v3/objects/contacts/gdpr-delete',
      headers: auth,
      payload: JSON.stringify({ objectId: id }),
    });
    expect(purge.statusCode).toBe(204);
    const stored = await esdb.app.get<EventStore>(EVENT_STORE).readStream(recordStream(hub, '0-1', Number(id)));
    expect(stored.map((e) => e.type)).toEqual(['crm.RecordPurged']);
    const read = await esdb.inject({
      method: 'GET',
      url: `/crm/v3/objects/contacts/${id}?archived=true`,
      headers: auth,
    });
    expect(read.statusCode).toBe(404);
  });
});

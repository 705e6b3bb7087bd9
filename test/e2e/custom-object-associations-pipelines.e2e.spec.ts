import { Client } from '@hubspot/api-client';
import { mintRecordsToken } from '../support/records-tokens';
import { createAccount, startTestApp, type TestApp } from '../support/test-app';
import { operationProblems } from '../support/wire-schemas';

/**
 * Custom objects in associations v4 and pipelines, through @hubspot/api-client 14 (only basePath
 * changed): the schema's own association definitions are the pair's unlabeled USER_DEFINED types
 * (one per direction), labels on top of them, v4 and v3 reads; pipelines of a custom object type with
 * the custom scopes. Every answer checked against our wire schemas.
 */
let t: TestApp;
let hubId: number;
let client: Client;
let cars: string;
let definitionId: number;

async function call(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  body?: unknown,
  token = mintRecordsToken(t, hubId),
) {
  const r = await t.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
  return { status: r.statusCode, body: r.json() as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

beforeAll(async () => {
  t = await startTestApp({ listen: true });
  hubId = (await createAccount(t)).hubId;
  client = new Client({ accessToken: mintRecordsToken(t, hubId), basePath: t.url });
  const schema = await client.crm.schemas.coreApi.create({
    name: 'cars',
    labels: { singular: 'Car', plural: 'Cars' },
    primaryDisplayProperty: 'model',
    requiredProperties: ['model'],
    properties: [{ name: 'model', label: 'Model', type: 'string' as never, fieldType: 'text' }],
    associatedObjects: ['CONTACT'],
  });
  cars = schema.objectTypeId!;
  definitionId = Number(schema.associations.find((a) => a.toObjectTypeId === '0-1')!.id);
});

afterAll(async () => {
  await t?.close();
});

describe('associations v4 with a custom object type', () => {
  let car: string;
  let ada: string;
  let bob: string;

  beforeAll(async () => {
    car = (await client.crm.objects.basicApi.create(cars, { properties: { model: 'T' }, associations: [] })).id;
    ada = (await client.crm.contacts.basicApi.create({ properties: { firstname: 'Ada' }, associations: [] })).id;
    bob = (await client.crm.contacts.basicApi.create({ properties: { firstname: 'Bob' }, associations: [] })).id;
  });

  it('the schema’s definition is the pair’s unlabeled USER_DEFINED type, one id per direction', async () => {
    const forward = await client.crm.associations.v4.schema.definitionsApi.getAll(cars, 'contacts');
    expect(forward.results).toEqual([{ category: 'USER_DEFINED', typeId: definitionId }]);
    const back = await client.crm.associations.v4.schema.definitionsApi.getAll('contacts', `p${hubId}_cars`);
    expect(back.results).toHaveLength(1);
    expect(back.results[0]).toMatchObject({ category: 'USER_DEFINED' });
    expect(back.results[0]!.typeId).not.toBe(definitionId);
    const raw = await call('GET', `/crm/v4/associations/${cars}/contacts/labels`);
    expect(
      operationProblems('GET', '/crm/v4/associations/{fromObjectType}/{toObjectType}/labels', 200, raw.body),
    ).toEqual([]);
  });

  it('createDefault, getPage from both sides, a label on top, archive', async () => {
    const made = await client.crm.associations.v4.basicApi.createDefault(cars, car, 'contacts', ada);
    expect(made.results?.[0]?.associationSpec).toEqual({
      associationCategory: 'USER_DEFINED',
      associationTypeId: definitionId,
    });
    const fromCar = await client.crm.associations.v4.basicApi.getPage(cars, car, 'contacts');
    expect(fromCar.results).toEqual([
      { toObjectId: ada, associationTypes: [{ category: 'USER_DEFINED', typeId: definitionId }] },
    ]);
    const back = (await client.crm.associations.v4.schema.definitionsApi.getAll('contacts', cars)).results[0]!.typeId;
    const fromAda = await client.crm.associations.v4.basicApi.getPage('contacts', ada, 'cars');
    expect(fromAda.results).toEqual([
      { toObjectId: car, associationTypes: [{ category: 'USER_DEFINED', typeId: back }] },
    ]);

    // A label between the custom type and contacts brings the pair's unlabeled type with it.
    const label = await client.crm.associations.v4.schema.definitionsApi.create(cars, 'contacts', {
      name: 'car_driver',
      label: 'Driver',
    });
    const driver = label.results.find((r) => r.label === 'Driver')!.typeId;
    await client.crm.associations.v4.basicApi.create(cars, car, 'contacts', bob, [
      { associationCategory: 'USER_DEFINED' as never, associationTypeId: driver },
    ]);
    const both = await client.crm.associations.v4.basicApi.getPage(cars, car, 'contacts');
    expect(both.results.find((r) => r.toObjectId === bob)!.associationTypes).toEqual(
      expect.arrayContaining([
        { category: 'USER_DEFINED', typeId: definitionId },
        { category: 'USER_DEFINED', typeId: driver, label: 'Driver' },
      ]),
    );

    // v3 reads of a record list the custom object's associations too.
    const v3 = await call('GET', `/crm/v3/objects/contacts/${ada}?associations=${cars}`);
    expect(v3.status).toBe(200);
    const listed = Object.values(v3.body.associations ?? {}) as Array<{ results: Array<{ id: string }> }>;
    expect(listed.flatMap((l) => l.results.map((r) => r.id))).toEqual([car]);
    const batch = await client.crm.associations.v4.batchApi.getPage(cars, 'contacts', { inputs: [{ id: car }] });
    expect(batch.results[0]!.to.map((x) => x.toObjectId).sort()).toEqual([ada, bob].sort());

    await client.crm.associations.v4.basicApi.archive(cars, car, 'contacts', ada);
    const left = await client.crm.associations.v4.basicApi.getPage(cars, car, 'contacts');
    expect(left.results.map((r) => r.toObjectId)).toEqual([bob]);
  });

  it('a pair without a definition has no default type (HubSpot’s 400)', async () => {
    const deal = (await client.crm.deals.basicApi.create({ properties: { dealname: 'D' }, associations: [] })).id;
    const r = await call('PUT', `/crm/v4/objects/${cars}/${car}/associations/default/deals/${deal}`);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ category: 'VALIDATION_ERROR' });
  });
});

describe('pipelines of a custom object type', () => {
  it('none before a write; CRUD and stages through pipelinesApi and pipelineStagesApi, by id or name', async () => {
    expect((await client.crm.pipelines.pipelinesApi.getAll(cars)).results).toEqual([]);
    const created = await client.crm.pipelines.pipelinesApi.create(cars, {
      label: 'Assembly',
      displayOrder: 0,
      stages: [
        { label: 'Ordered', displayOrder: 0, metadata: {} },
        { label: 'Built', displayOrder: 1, metadata: { isClosed: 'true' } },
      ],
    });
    expect(created.stages.map((s) => [s.label, s.metadata])).toEqual([
      ['Ordered', { isClosed: 'false' }],
      ['Built', { isClosed: 'true' }],
    ]);
    const byName = await client.crm.pipelines.pipelinesApi.getAll('cars');
    expect(byName.results.map((p) => p.id)).toEqual([created.id]);
    const stage = await client.crm.pipelines.pipelineStagesApi.create(cars, created.id, {
      label: 'Shipped',
      displayOrder: 2,
      metadata: {},
    });
    expect((await client.crm.pipelines.pipelineStagesApi.getAll(cars, created.id)).results.map((s) => s.label)).toEqual(
      ['Ordered', 'Built', 'Shipped'],
    );
    await client.crm.pipelines.pipelineStagesApi.archive(cars, created.id, stage.id);
    const raw = await call('GET', `/crm/v3/pipelines/${cars}/${created.id}`);
    expect(raw.status).toBe(200);
    expect(operationProblems('GET', '/crm/v3/pipelines/{objectType}/{pipelineId}', 200, raw.body)).toEqual([]);
    const audit = await call('GET', `/crm/v3/pipelines/${cars}/${created.id}/audit`);
    expect(audit.body.results.map((a: { action: string }) => a.action)).toContain('CREATE');
  });

  it('records of the type sit in its pipelines: hs_pipeline and hs_pipeline_stage checked against them', async () => {
    const pipeline = await client.crm.pipelines.pipelinesApi.create(cars, {
      label: 'Delivery',
      displayOrder: 5,
      stages: [
        { label: 'Waiting', displayOrder: 0, metadata: {} },
        { label: 'Delivered', displayOrder: 1, metadata: { isClosed: 'true' } },
      ],
    });
    const [waiting, delivered] = pipeline.stages.map((s) => s.id);
    const car = await client.crm.objects.basicApi.create(cars, {
      properties: { model: 'S', hs_pipeline: pipeline.id, hs_pipeline_stage: waiting! },
      associations: [],
    });
    const moved = await client.crm.objects.basicApi.update(cars, car.id, {
      properties: { hs_pipeline_stage: delivered! },
    });
    expect(moved.properties.hs_pipeline_stage).toBe(delivered);
    const read = await client.crm.objects.basicApi.getById(cars, car.id, ['hs_pipeline', 'hs_pipeline_stage']);
    expect([read.properties.hs_pipeline, read.properties.hs_pipeline_stage]).toEqual([pipeline.id, delivered]);
    // A stage of no pipeline of the type, and a pipeline the account does not have: HubSpot's 400.
    const badStage = await call('PATCH', `/crm/v3/objects/${cars}/${car.id}`, {
      properties: { hs_pipeline_stage: 'nowhere' },
    });
    expect(badStage.status).toBe(400);
    expect(badStage.body).toMatchObject({ category: 'VALIDATION_ERROR' });
    expect(JSON.stringify(badStage.body)).toContain('INVALID_OPTION');
    const badPipeline = await call('POST', `/crm/v3/objects/${cars}`, {
      properties: { model: 'X', hs_pipeline: '999999', hs_pipeline_stage: waiting },
    });
    expect(badPipeline.status).toBe(400);
    expect(JSON.stringify(badPipeline.body)).toContain('INVALID_OPTION');
    // The pipelines module sees the record in its stage: the stage in use cannot go when validation is asked.
    const inUse = await call(
      'DELETE',
      `/crm/v3/pipelines/${cars}/${pipeline.id}/stages/${delivered}?validateReferencesBeforeDelete=true`,
    );
    expect(inUse.status).toBe(400);
    expect(inUse.body).toMatchObject({ subCategory: 'PIPELINE_STAGE_IN_USE', context: { stageIds: [delivered] } });
    // The properties are listed as the type's own, HubSpot-defined.
    const props = await client.crm.properties.coreApi.getAll(cars);
    expect(props.results.filter((p) => p.name.startsWith('hs_pipeline')).map((p) => p.name)).toEqual([
      'hs_pipeline',
      'hs_pipeline_stage',
    ]);
  });

  it('takes the custom object scopes; an unknown or archived type is HubSpot’s 400; contacts have none', async () => {
    const noCustom = mintRecordsToken(t, hubId, ['crm.objects.deals.read']);
    const refused = await call('GET', `/crm/v3/pipelines/${cars}`, undefined, noCustom);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ category: 'MISSING_SCOPES' });
    const readOnly = mintRecordsToken(t, hubId, ['crm.objects.custom.read']);
    expect((await call('GET', `/crm/v3/pipelines/${cars}`, undefined, readOnly)).status).toBe(200);
    const write = await call(
      'POST',
      `/crm/v3/pipelines/${cars}`,
      { label: 'X', displayOrder: 1, stages: [] },
      readOnly,
    );
    expect(write.status).toBe(403);
    const unknown = await call('GET', '/crm/v3/pipelines/2-999');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ category: 'VALIDATION_ERROR' });
    const contacts = await call('GET', '/crm/v3/pipelines/contacts');
    expect(contacts.body).toMatchObject({ message: 'Unable to infer object type from: contacts' });
    const bad = await call('POST', `/crm/v3/pipelines/${cars}`, { label: 'Empty', displayOrder: 1, stages: [] });
    expect(bad.status).toBe(400);
  });
});

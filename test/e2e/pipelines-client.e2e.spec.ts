import { Client } from '@hubspot/api-client';
import { mintRecordsToken, RECORDS_TEST_SCOPES } from '../support/records-tokens';
import { createAccount, startTestApp, type TestApp } from '../support/test-app';
import { operationProblems } from '../support/wire-schemas';

/**
 * Pipelines of deals and tickets through @hubspot/api-client v14 (crm.pipelines.pipelinesApi,
 * pipelineStagesApi, the audits) with only basePath changed, each route's bad input with HubSpot's
 * Error body, the dated paths, and the records module's deal-stage check.
 */
let t: TestApp;
let client: Client;
let hubId: number;
let token: string;

const SCOPES = [...RECORDS_TEST_SCOPES, 'crm.schemas.deals.read', 'crm.schemas.tickets.write'];

beforeAll(async () => {
  t = await startTestApp({ listen: true });
  hubId = (await createAccount(t, { tier: 'professional' })).hubId;
  token = mintRecordsToken(t, hubId, SCOPES);
  client = new Client({ accessToken: token, basePath: t.url });
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

async function call(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown, raw?: string) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  let payload: string | undefined;
  if (raw !== undefined || body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = raw ?? JSON.stringify(body);
  }
  const r = await t.inject({ method, url, headers, ...(payload !== undefined ? { payload } : {}) });
  return { status: r.statusCode, body: r.body === '' ? undefined : (r.json() as Record<string, any>) }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const stageInput = (label: string, displayOrder: number, probability = '0.5') => ({
  label,
  displayOrder,
  metadata: { probability },
});

describe('HubSpot’s default pipelines exist without a write', () => {
  it('deals: "default" with its seven stages and their probabilities; tickets: "0" with four', async () => {
    const deals = await client.crm.pipelines.pipelinesApi.getAll('deals');
    expect(deals.results.map((p) => p.id)).toEqual(['default']);
    const stages = deals.results[0]!.stages;
    expect(stages.map((s) => [s.id, s.metadata?.probability])).toEqual([
      ['appointmentscheduled', '0.2'],
      ['qualifiedtobuy', '0.4'],
      ['presentationscheduled', '0.6'],
      ['decisionmakerboughtin', '0.8'],
      ['contractsent', '0.9'],
      ['closedwon', '1.0'],
      ['closedlost', '0.0'],
    ]);
    expect(deals.results[0]!.createdAt).toEqual(new Date(0));
    const tickets = await client.crm.pipelines.pipelinesApi.getAll('tickets');
    expect(tickets.results[0]).toMatchObject({ id: '0', label: 'Support Pipeline' });
    expect(tickets.results[0]!.stages.map((s) => s.metadata?.ticketState)).toEqual(['OPEN', 'OPEN', 'OPEN', 'CLOSED']);

    for (const [url, template] of [
      ['/crm/v3/pipelines/deals', '/crm/v3/pipelines/{objectType}'],
      ['/crm/pipelines/2026-03/0-5', '/crm/pipelines/2026-03/{objectType}'],
      ['/crm/pipelines/2026-09/deal', '/crm/pipelines/2026-09/{objectType}'],
    ] as const) {
      const r = await call('GET', url);
      expect(r.status).toBe(200);
      expect(operationProblems('GET', template, 200, r.body)).toEqual([]);
    }
  });
});

describe('crm.pipelines.pipelinesApi and pipelineStagesApi', () => {
  it('create, getById, update, replace, stages CRUD, audits, archive', async () => {
    t.clock.advance(1000);
    const created = await client.crm.pipelines.pipelinesApi.create('deals', {
      label: 'Partners',
      displayOrder: 1,
      stages: [stageInput('Lead', 0, '0.1'), stageInput('Won', 1, '1.0')],
    });
    expect(created.id).toMatch(/^\d+$/);
    expect(created.stages.map((s) => s.label)).toEqual(['Lead', 'Won']);
    expect(created.stages[1]!.metadata).toEqual({ probability: '1.0', isClosed: 'true' });

    const read = await client.crm.pipelines.pipelinesApi.getById('deals', created.id);
    expect(read.label).toBe('Partners');
    const r = await call('GET', `/crm/v3/pipelines/deals/${created.id}`);
    expect(operationProblems('GET', '/crm/v3/pipelines/{objectType}/{pipelineId}', 200, r.body)).toEqual([]);

    const patched = await client.crm.pipelines.pipelinesApi.update('deals', created.id, { label: 'Partner deals' });
    expect(patched.label).toBe('Partner deals');

    const stage = await client.crm.pipelines.pipelineStagesApi.create(
      'deals',
      created.id,
      stageInput('Demo', 1, '0.5'),
    );
    expect(stage.metadata?.probability).toBe('0.5');
    const stages = await client.crm.pipelines.pipelineStagesApi.getAll('deals', created.id);
    expect(stages.results.map((s) => s.label)).toEqual(['Lead', 'Demo', 'Won']);
    const one = await client.crm.pipelines.pipelineStagesApi.getById('deals', created.id, stage.id);
    expect(one.label).toBe('Demo');
    const renamed = await client.crm.pipelines.pipelineStagesApi.update('deals', created.id, stage.id, {
      label: 'Demo given',
      metadata: {},
    });
    expect(renamed).toMatchObject({ label: 'Demo given', metadata: { probability: '0.5' } });
    const replacedStage = await client.crm.pipelines.pipelineStagesApi.replace(
      'deals',
      created.id,
      stage.id,
      stageInput('Demo booked', 2, '0.6'),
    );
    expect(replacedStage).toMatchObject({ id: stage.id, label: 'Demo booked', displayOrder: 2 });

    const audit = await client.crm.pipelines.pipelineAuditsApi.getAudit('deals', created.id);
    expect(audit.results.map((a) => a.action)).toEqual(['UPDATE', 'UPDATE', 'CREATE', 'UPDATE', 'CREATE']);
    expect(audit.results[4]).toMatchObject({ identifier: created.id, portalId: hubId, fromUserId: 7 });
    const stageAudit = await call('GET', `/crm/v3/pipelines/deals/${created.id}/stages/${stage.id}/audit`);
    expect(stageAudit.body!.results.map((a: { action: string }) => a.action)).toEqual(['UPDATE', 'UPDATE', 'CREATE']);
    expect(
      operationProblems(
        'GET',
        '/crm/v3/pipelines/{objectType}/{pipelineId}/stages/{stageId}/audit',
        200,
        stageAudit.body,
      ),
    ).toEqual([]);

    const replaced = await client.crm.pipelines.pipelinesApi.replace('deals', created.id, {
      label: 'Partners',
      displayOrder: 2,
      stages: [stageInput('Only', 0, '0.3')],
    });
    expect(replaced.stages.map((s) => s.label)).toEqual(['Only']);

    await client.crm.pipelines.pipelineStagesApi.create('deals', created.id, stageInput('Second', 1));
    const [first] = (await client.crm.pipelines.pipelineStagesApi.getAll('deals', created.id)).results;
    await client.crm.pipelines.pipelineStagesApi.archive('deals', created.id, first!.id);
    expect(
      (await client.crm.pipelines.pipelineStagesApi.getAll('deals', created.id)).results.map((s) => s.label),
    ).toEqual(['Second']);

    await client.crm.pipelines.pipelinesApi.archive('deals', created.id);
    const gone = await failure(client.crm.pipelines.pipelinesApi.getById('deals', created.id));
    expect(gone).toMatchObject({
      code: 404,
      body: { category: 'OBJECT_NOT_FOUND', message: `Unable to find pipeline with id ${created.id}` },
    });
  });

  it('ticket pipelines: ticketState OPEN or CLOSED', async () => {
    const created = await client.crm.pipelines.pipelinesApi.create('tickets', {
      label: 'Escalations',
      displayOrder: 3,
      stages: [
        { label: 'Open', displayOrder: 0, metadata: { ticketState: 'OPEN' } },
        { label: 'Done', displayOrder: 1, metadata: { ticketState: 'CLOSED' } },
      ],
    });
    expect(created.stages.map((s) => s.metadata?.ticketState)).toEqual(['OPEN', 'CLOSED']);
    const bad = await failure(
      client.crm.pipelines.pipelineStagesApi.create('tickets', created.id, {
        label: 'Limbo',
        displayOrder: 2,
        metadata: { ticketState: 'MAYBE' },
      }),
    );
    expect(bad).toMatchObject({
      code: 400,
      body: { category: 'VALIDATION_ERROR', errors: [{ in: 'metadata.ticketState' }] },
    });
  });
});

describe('a deal’s stage must be a stage of its pipeline', () => {
  it('create and update of deals are checked; tickets likewise', async () => {
    const ok = await client.crm.deals.basicApi.create({
      properties: { dealname: 'A', dealstage: 'qualifiedtobuy' },
      associations: [],
    });
    expect(ok.properties.dealstage).toBe('qualifiedtobuy');
    const bad = await failure(
      client.crm.deals.basicApi.create({ properties: { dealname: 'B', dealstage: 'nosuchstage' }, associations: [] }),
    );
    expect(bad.code).toBe(400);
    expect(bad.body).toMatchObject({
      category: 'VALIDATION_ERROR',
      errors: [{ in: 'dealstage', code: 'INVALID_OPTION' }],
    });
    expect(bad.body.message).toMatch(/^Property values were not valid: \[/);
    const badPipeline = await failure(
      client.crm.deals.basicApi.update(ok.id, { properties: { pipeline: 'nosuchpipeline' } }),
    );
    expect(badPipeline).toMatchObject({ code: 400, body: { errors: [{ in: 'pipeline' }] } });
    const moved = await failure(client.crm.deals.basicApi.update(ok.id, { properties: { dealstage: 'nope' } }));
    expect(moved.code).toBe(400);
    const ticket = await failure(
      client.crm.tickets.basicApi.create({
        properties: { subject: 'x', hs_pipeline: '0', hs_pipeline_stage: '99' },
        associations: [],
      }),
    );
    expect(ticket).toMatchObject({ code: 400, body: { errors: [{ in: 'hs_pipeline_stage' }] } });
  });

  it('a stage in use cannot be deleted when validation is asked; without it, it can', async () => {
    const p = await client.crm.pipelines.pipelinesApi.create('deals', {
      label: 'In use',
      displayOrder: 5,
      stages: [stageInput('One', 0), stageInput('Two', 1), stageInput('Three', 2)],
    });
    const [one, two] = p.stages;
    await client.crm.deals.basicApi.create({
      properties: { dealname: 'C', pipeline: p.id, dealstage: one!.id },
      associations: [],
    });
    const refused = await call(
      'DELETE',
      `/crm/v3/pipelines/deals/${p.id}/stages/${one!.id}?validateReferencesBeforeDelete=true`,
    );
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      category: 'VALIDATION_ERROR',
      subCategory: 'PIPELINE_STAGE_IN_USE',
      context: { stageIds: [one!.id] },
    });
    const pipelineRefused = await failure(client.crm.pipelines.pipelinesApi.archive('deals', p.id, false, true));
    expect(pipelineRefused).toMatchObject({ code: 400, body: { subCategory: 'PIPELINE_STAGE_IN_USE' } });
    const replaceRefused = await failure(
      client.crm.pipelines.pipelinesApi.replace(
        'deals',
        p.id,
        { label: 'In use', displayOrder: 5, stages: [stageInput('X', 0)] },
        undefined,
        true,
      ),
    );
    expect(replaceRefused.code).toBe(400);
    // A stage nobody is in goes with validation; the one in use without it.
    await client.crm.pipelines.pipelineStagesApi.archive('deals', p.id, two!.id);
    expect((await call('DELETE', `/crm/v3/pipelines/deals/${p.id}/stages/${one!.id}`)).status).toBe(204);
  });
});

describe('bad input, with HubSpot’s Error body', () => {
  it('an object type without pipelines', async () => {
    const r = await call('GET', '/crm/v3/pipelines/contacts');
    expect(r).toMatchObject({
      status: 400,
      body: { category: 'VALIDATION_ERROR', message: 'Unable to infer object type from: contacts' },
    });
    expect(typeof r.body!.correlationId).toBe('string');
  });

  it('bodies of the wrong shape report every bad field', async () => {
    const r = await call('POST', '/crm/v3/pipelines/deals', { label: 5, stages: 'x' });
    expect(r.status).toBe(400);
    expect(r.body!.errors.map((e: { in: string }) => e.in).sort()).toEqual(['displayOrder', 'label', 'stages']);
    expect((await call('POST', '/crm/v3/pipelines/deals', undefined, '{"label":')).status).toBe(400);
    expect((await call('POST', '/crm/v3/pipelines/deals', undefined, '[]')).status).toBe(400);
    const noStages = await call('POST', '/crm/v3/pipelines/deals', { label: 'Empty', displayOrder: 0, stages: [] });
    expect(noStages).toMatchObject({ status: 400, body: { errors: [{ in: 'stages' }] } });
    const noProbability = await call('POST', '/crm/v3/pipelines/deals', {
      label: 'P',
      displayOrder: 0,
      stages: [{ label: 'S', displayOrder: 0, metadata: {} }],
    });
    expect(noProbability).toMatchObject({ status: 400, body: { errors: [{ in: 'stages.0.metadata.probability' }] } });
    const patch = await call('PATCH', '/crm/v3/pipelines/deals/default', { archived: 'yes' });
    expect(patch).toMatchObject({ status: 400, body: { errors: [{ in: 'archived' }] } });
    // Every body route: one errors[] entry per bad field, dotted paths.
    const badStages = await call('POST', '/crm/v3/pipelines/deals', {
      label: '  ',
      displayOrder: 1.5,
      pipelineId: 'a b',
      stages: [{ label: 'S', displayOrder: 0, metadata: { probability: { x: 1 } } }, 7],
    });
    expect(badStages.body!.errors.map((e: { in: string }) => e.in).sort()).toEqual([
      'displayOrder',
      'label',
      'pipelineId',
      'stages.0.metadata',
      'stages.1',
    ]);
    const replace = await call('PUT', '/crm/v3/pipelines/deals/default', { label: 'X', displayOrder: 0 });
    expect(replace).toMatchObject({ status: 400, body: { errors: [{ in: 'stages' }] } });
    const stage = await call('POST', '/crm/v3/pipelines/deals/default/stages', { label: 'S', metadata: [] });
    expect(stage.body!.errors.map((e: { in: string }) => e.in)).toEqual(['displayOrder', 'metadata']);
    const stagePut = await call('PUT', '/crm/v3/pipelines/deals/default/stages/closedwon', { label: 5 });
    expect(stagePut.body!.errors.map((e: { in: string }) => e.in)).toEqual(['label', 'displayOrder', 'metadata']);
    const stagePatch = await call('PATCH', '/crm/v3/pipelines/deals/default/stages/closedwon', {
      displayOrder: 'first',
      metadata: 'x',
    });
    expect(stagePatch.body!.errors.map((e: { in: string }) => e.in)).toEqual(['displayOrder', 'metadata']);
    // Numbers and booleans in metadata are kept as their text; a stage may name its id.
    const made = await call('POST', '/crm/v3/pipelines/deals/default/stages', {
      label: 'Numbers',
      displayOrder: 9,
      stageId: 'numbers',
      metadata: { probability: 0.5, isClosed: false },
    });
    expect(made).toMatchObject({
      status: 201,
      body: { id: 'numbers', metadata: { probability: '0.5', isClosed: 'false' } },
    });
    expect((await call('DELETE', '/crm/v3/pipelines/deals/default/stages/numbers')).status).toBe(204);
    const flag = await call('DELETE', '/crm/v3/pipelines/deals/default?validateReferencesBeforeDelete=maybe');
    expect(flag).toMatchObject({ status: 400, body: { errors: [{ in: 'validateReferencesBeforeDelete' }] } });
  });

  it('duplicate labels, unknown ids, the last pipeline, the tier’s limit', async () => {
    const dup = await call('POST', '/crm/v3/pipelines/deals', {
      label: 'sales pipeline',
      displayOrder: 0,
      stages: [stageInput('S', 0)],
    });
    expect(dup).toMatchObject({ status: 409, body: { category: 'CONFLICT' } });
    expect((await call('GET', '/crm/v3/pipelines/deals/999')).status).toBe(404);
    expect((await call('GET', '/crm/v3/pipelines/deals/default/stages/nope')).status).toBe(404);
    expect(
      (await call('PUT', '/crm/v3/pipelines/deals/999', { label: 'x', displayOrder: 0, stages: [stageInput('S', 0)] }))
        .status,
    ).toBe(404);
    const lastTicket = await call('DELETE', '/crm/v3/pipelines/tickets/0');
    expect(lastTicket.status).toBe(204); // "Escalations" is left
    const free = (await createAccount(t, { tier: 'free' })).hubId;
    const freeToken = mintRecordsToken(t, free, SCOPES);
    const r = await t.inject({
      method: 'POST',
      url: '/crm/v3/pipelines/deals',
      headers: { authorization: `Bearer ${freeToken}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ label: 'Second', displayOrder: 1, stages: [stageInput('S', 0)] }),
    });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ errors: [{ code: 'PIPELINE_LIMIT_REACHED' }] });
    const last = await t.inject({
      method: 'DELETE',
      url: '/crm/v3/pipelines/deals/default',
      headers: { authorization: `Bearer ${freeToken}` },
    });
    expect(last.statusCode).toBe(400);
    expect(last.json()).toMatchObject({ errors: [{ code: 'LAST_PIPELINE' }] });
  });

  it('missing scopes: 403 with the accepted scopes', async () => {
    const narrow = mintRecordsToken(t, hubId, ['crm.objects.deals.read']);
    const r = await t.inject({
      method: 'POST',
      url: '/crm/v3/pipelines/deals',
      headers: { authorization: `Bearer ${narrow}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ label: 'x', displayOrder: 0, stages: [stageInput('S', 0)] }),
    });
    expect(r.statusCode).toBe(403);
    expect(r.json()).toMatchObject({
      category: 'MISSING_SCOPES',
      context: { requiredScopes: ['crm.schemas.deals.write'] },
    });
  });
});

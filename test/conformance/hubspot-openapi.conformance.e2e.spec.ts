import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  CRM_LIMITS_READ_SCOPES,
  crmLimitsReadScopes,
  CUSTOM_OBJECT_TYPE_LIMITS_SCOPES,
  propertyScopes,
} from '../../src/crm-schema/domain/scopes';
import { ERROR_WIRE_SCHEMA } from '../../src/platform/errors/error-wire-schema';
import type { WireOperation } from '../../src/platform/http/wire-schema';
import { mintCardsToken } from '../support/cards-tokens';
import { LIMITS_TEST_SCOPES, mintLimitsToken } from '../support/limits-tokens';
import { mintRecordsToken } from '../support/records-tokens';
import { installAndExchange, oauthFixture } from '../support/oauth-fixtures';
import {
  conformanceProblems,
  type OfficialDocument,
  officialProblems,
  officialResponseSchema,
} from '../support/spec-conformance';
import { createAccount, createApp, startTestApp, type TestApp } from '../support/test-app';
import { ALL_WIRE_OPERATIONS, wireProblems } from '../support/wire-schemas';

/**
 * Conformance with HubSpot's official OpenAPI files, an extra check on top of our own schemas. The
 * files are HubSpot's ("not licensed for external use"): never part of the project, so this runs
 * only when HUBSPOT_OPENAPI_DIR names a folder of them (HubSpot's collection layout: `oauth.json`,
 * `2026-03/limitsTracking.json`, `v3/properties.json`, ...). For every operation we serve: our schema
 * against theirs (test/support/spec-conformance.ts), and one answer recorded from the running app
 * against their file; and the accepted scopes the limits module copied from their files.
 */
const DIR = process.env.HUBSPOT_OPENAPI_DIR;

/**
 * Where we knowingly differ, and why. Each entry is the exact list of problems the comparison reports,
 * so a new difference, or one that went away, fails the suite.
 */
const KNOWN_DIFFERENCES: Record<string, string[]> = {};
// RFC 7662: introspection of a token that is not the caller's live one answers {"active": false}.
// HubSpot's 2026-03 (and v3) schema lists only the two active kinds.
for (const v of ['v3', '2026-03']) {
  KNOWN_DIFFERENCES[`POST /oauth/${v}/token/introspect 200`] = ["$: our oneOf alternative 2 matches none of HubSpot's"];
}

/** 2026-09's oauth.json declares no 200 body for its token endpoint: its answer is 2026-03's. */
const COMPARED_WITH: Record<string, { specFile: string; path: string }> = {
  'POST /oauth/2026-09/token 200': { specFile: '2026-03/oauth.json', path: '/oauth/2026-03/token' },
};

/**
 * The journal's single reads (earliest, latest, next) state no 200 body in webhooksJournal.json (only
 * `default`); HubSpot's guide shows them answering a JournalFetchResponse, the batch reads' item.
 */
const COMPARED_WITH_COMPONENT: Record<string, string> = {};
for (const journal of ['journal', 'journal-local']) {
  for (const read of ['earliest', 'latest', 'offset/{offset}/next']) {
    COMPARED_WITH_COMPONENT[`GET /webhooks-journal/${journal}/2026-03/${read} 200`] = 'JournalFetchResponse';
  }
}
const officialSchemaOf = (d: OfficialDocument, op: WireOperation, path: string) => {
  const component = COMPARED_WITH_COMPONENT[key(op)];
  return component
    ? { $ref: `#/components/schemas/${component}` }
    : officialResponseSchema(d, op.method, path, op.status);
};

// The default association PUT: HubSpot names its first two parameters {fromObjectType}/{fromObjectId};
// ours carry the names the records routes use at the same place of the path (one router node).
for (const [prefix, file] of [
  ['/crm/v4/objects', 'v4/associations.json'],
  ['/crm/objects/2026-03', '2026-03/associations.json'],
  ['/crm/objects/2026-09', '2026-09/associations.json'],
] as const) {
  COMPARED_WITH[`PUT ${prefix}/{objectType}/{objectId}/associations/default/{toObjectType}/{toObjectId} 200`] = {
    specFile: file,
    path: `${prefix}/{fromObjectType}/{fromObjectId}/associations/default/{toObjectType}/{toObjectId}`,
  };
}

const key = (o: Pick<WireOperation, 'method' | 'path' | 'status'>) => `${o.method} ${o.path} ${o.status}`;

const SKIP_REASON =
  'HubSpot official-spec conformance skipped: HUBSPOT_OPENAPI_DIR is not set (a folder of HubSpot’s OpenAPI files; .ci/run sets it when it has them)';

if (!DIR) {
  // One line in any reporter's output (a skipped test's title shows only with --verbose).
  process.stdout.write(`${SKIP_REASON}\n`);
  describe('HubSpot official-spec conformance', () => {
    it.skip(SKIP_REASON, () => {});
  });
} else {
  const docs = new Map<string, OfficialDocument>();
  const doc = (file: string): OfficialDocument => {
    let d = docs.get(file);
    if (!d) {
      d = JSON.parse(readFileSync(resolve(DIR, file), 'utf8')) as OfficialDocument;
      docs.set(file, d);
    }
    return d;
  };

  describe('HubSpot official-spec conformance: our schemas against HubSpot’s', () => {
    it.each(ALL_WIRE_OPERATIONS.map((o) => [key(o), o] as const))('%s', (_, op) => {
      const { specFile, path } = COMPARED_WITH[key(op)] ?? op;
      const official = officialSchemaOf(doc(specFile), op, path);
      expect(official ?? `no ${op.status} JSON answer of ${op.method} ${path} in ${specFile}`).not.toEqual(
        expect.any(String),
      );
      const problems = conformanceProblems(op.schema, official!, doc(specFile));
      const known = KNOWN_DIFFERENCES[key(op)];
      if (known) expect(problems.map((p) => p.replace(/ \(.*$/, ''))).toEqual(known);
      else expect(problems).toEqual([]);
    });

    it.each([...new Set(ALL_WIRE_OPERATIONS.map((o) => o.specFile))])('Error of %s', (file) => {
      const d = doc(file);
      expect(conformanceProblems(ERROR_WIRE_SCHEMA, { $ref: '#/components/schemas/Error' }, d)).toEqual([]);
    });
  });

  describe('HubSpot official-spec conformance: recorded answers against HubSpot’s files', () => {
    let t: TestApp;
    const recorded = new Map<string, unknown[]>();

    /** Calls the app, expects the operation's success status, records the body under HubSpot's path. */
    async function record(
      method: WireOperation['method'],
      template: string,
      url: string,
      options: { token?: string; json?: unknown; form?: Record<string, string>; status?: number } = {},
    ) {
      const headers: Record<string, string> = {};
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      let payload: string | undefined;
      if (options.json !== undefined) {
        headers['content-type'] = 'application/json';
        payload = JSON.stringify(options.json);
      } else if (options.form) {
        headers['content-type'] = 'application/x-www-form-urlencoded';
        payload = new URLSearchParams(options.form).toString();
      }
      const r = await t.inject({ method, url, headers, ...(payload !== undefined ? { payload } : {}) });
      const status =
        options.status ?? ALL_WIRE_OPERATIONS.find((o) => o.method === method && o.path === template)?.status;
      expect({ url, status: r.statusCode, ...(r.statusCode !== status ? { body: r.body } : {}) }).toEqual({
        url,
        status,
      });
      const body: unknown = r.json();
      const k = `${method} ${template} ${r.statusCode}`;
      recorded.set(k, [...(recorded.get(k) ?? []), body]);
      return body as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    }

    beforeAll(async () => {
      t = await startTestApp();

      // OAuth: v1 tokens and metadata; the current versions' token, introspection, account info.
      const f = await oauthFixture(t);
      const tokens = await installAndExchange(t, f);
      const creds = { client_id: f.clientId, client_secret: f.clientSecret };
      await record('POST', '/oauth/v1/token', '/oauth/v1/token', {
        form: { ...creds, grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
      });
      await record('GET', '/oauth/v1/access-tokens/{token}', `/oauth/v1/access-tokens/${tokens.access_token}`);
      await record('GET', '/oauth/v1/refresh-tokens/{token}', `/oauth/v1/refresh-tokens/${tokens.refresh_token}`);
      for (const v of ['v3', '2026-03', '2026-09']) {
        const fresh = await record('POST', `/oauth/${v}/token`, `/oauth/${v}/token`, {
          form: { ...creds, grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
        });
        if (v !== '2026-09') {
          await record('POST', `/oauth/${v}/token`, `/oauth/${v}/token`, {
            form: { ...creds, grant_type: 'client_credentials' },
          });
        }
        for (const token of [fresh.access_token as string, tokens.refresh_token]) {
          await record('POST', `/oauth/${v}/token/introspect`, `/oauth/${v}/token/introspect`, {
            form: { ...creds, token },
          });
        }
        await record('GET', `/account-info/${v}/details`, `/account-info/${v}/details`, { token: fresh.access_token });
        const usage = `/account-info/${v}/api-usage/daily/private-apps`;
        await record('GET', usage, usage, { token: fresh.access_token });
      }

      // Legacy cards at every version, the migration included.
      const devHubId = (await createAccount(t)).hubId;
      const appId = (await createApp(t, { developerHubId: devHubId })).appId;
      const cardsToken = mintCardsToken(t, { hubId: devHubId, appId, userId: 77 });
      const card = {
        title: 'PetSpot',
        fetch: {
          targetUrl: 'https://www.example.com/hubspot/target',
          objectTypes: [{ name: 'contacts', propertiesToSend: ['email'] }],
          cardType: 'EXTERNAL',
        },
        display: {
          properties: [
            {
              name: 'pet_name',
              label: 'Pets Name',
              dataType: 'STATUS',
              options: [{ name: 'a', label: 'A', type: 'SUCCESS' }],
            },
          ],
        },
        actions: { baseUrls: ['https://www.example.com/hubspot'] },
      };
      const cardsAt = {
        v3: '/crm/v3/extensions/cards-dev',
        '2026-03': '/crm/extensions/cards-dev/2026-03',
        '2026-09': '/crm/extensions/cards-dev/2026-09',
      };
      for (const [v, base] of Object.entries(cardsAt)) {
        const token = cardsToken;
        await record('GET', `${base}/sample-response`, `${base}/sample-response`);
        const created = await record('POST', `${base}/{appId}`, `${base}/${appId}`, { token, json: card });
        await record('GET', `${base}/{appId}`, `${base}/${appId}`, { token });
        await record('GET', `${base}/{appId}/{cardId}`, `${base}/${appId}/${created.id}`, { token });
        await record('PATCH', `${base}/{appId}/{cardId}`, `${base}/${appId}/${created.id}`, {
          token,
          json: { title: 'PetSpot 2' },
        });
        const appCard = await t.admin('POST', `/admin/v1/apps/${appId}/app-cards`, {
          title: `App card ${v}`,
          objectTypes: ['contacts'],
        });
        expect(appCard.statusCode).toBe(201);
        const ids = { legacyCrmCardId: Number(created.id), appCardId: Number(appCard.json().id) };
        await record('POST', `${base}/{appId}/views/migrate`, `${base}/${appId}/views/migrate`, {
          token,
          json: v === '2026-09' ? ids : { ...ids, allowDuplicateAppCardIds: false },
        });
      }

      // Limits, properties, property groups and object schemas of an enterprise account.
      const hubId = (await createAccount(t, { tier: 'enterprise' })).hubId;
      const token = mintLimitsToken(t, { hubId, scopes: LIMITS_TEST_SCOPES });
      const otherUser = mintLimitsToken(t, { hubId, userId: 2, scopes: LIMITS_TEST_SCOPES });
      const property = (name: string) => ({
        name,
        label: `Label ${name}`,
        type: 'enumeration',
        fieldType: 'select',
        groupName: 'contactinformation',
        options: [{ label: 'A', value: 'a', displayOrder: 0 }],
      });
      for (const v of ['v3', '2026-03', '2026-09'] as const) {
        const limits = v === 'v3' ? '/crm/v3/limits' : `/crm/limits/${v}`;
        for (const endpoint of [
          'calculated-properties',
          'custom-object-types',
          'custom-properties',
          'associations/labels',
        ])
          await record('GET', `${limits}/${endpoint}`, `${limits}/${endpoint}`, { token });

        const props = v === 'v3' ? '/crm/v3/properties' : `/crm/properties/${v}`;
        const name = `conf_${v.replace('-', '_')}`;
        await record('POST', `${props}/{objectType}`, `${props}/contacts`, { token, json: property(name) });
        await record('GET', `${props}/{objectType}`, `${props}/contacts`, { token });
        await record('GET', `${props}/{objectType}/{propertyName}`, `${props}/contacts/${name}`, { token });
        await record('PATCH', `${props}/{objectType}/{propertyName}`, `${props}/contacts/${name}`, {
          token,
          json: { label: 'Relabelled' },
        });
        // Display hints and sensitivity, created, listed by sensitivity and patched by another user.
        const money = `${name}_money`;
        await record('POST', `${props}/{objectType}`, `${props}/deals`, {
          token,
          json: {
            name: money,
            label: 'Money',
            type: 'number',
            fieldType: 'number',
            groupName: 'dealinformation',
            numberDisplayHint: 'currency',
            showCurrencySymbol: true,
            currencyPropertyName: 'deal_currency_code',
          },
        });
        await record('POST', `${props}/{objectType}`, `${props}/deals`, {
          token,
          json: {
            name: `${name}_mail`,
            label: 'Mail',
            type: 'string',
            fieldType: 'text',
            groupName: 'dealinformation',
            textDisplayHint: 'email',
            dataSensitivity: 'sensitive',
          },
        });
        await record('GET', `${props}/{objectType}`, `${props}/deals?dataSensitivity=sensitive`, { token });
        await record('PATCH', `${props}/{objectType}/{propertyName}`, `${props}/deals/${money}`, {
          token: otherUser,
          json: { numberDisplayHint: 'percentage', showCurrencySymbol: false },
        });
        const allGood = v === '2026-09' ? 200 : 201;
        const someFailed = v === '2026-09' ? 200 : 207;
        await record('POST', `${props}/{objectType}/batch/create`, `${props}/contacts/batch/create`, {
          token,
          json: { inputs: [property(`${name}_b1`)] },
          status: allGood,
        });
        await record('POST', `${props}/{objectType}/batch/create`, `${props}/contacts/batch/create`, {
          token,
          json: { inputs: [property(`${name}_b2`), property(name)] },
          status: someFailed,
        });
        await record('POST', `${props}/{objectType}/batch/read`, `${props}/contacts/batch/read`, {
          token,
          json: { inputs: [{ name }], archived: false },
          status: 200,
        });
        await record('POST', `${props}/{objectType}/batch/read`, `${props}/contacts/batch/read`, {
          token,
          json: { inputs: [{ name }, { name: 'no_such_property' }], archived: false },
          status: someFailed,
        });
        const group = `confgroup${v.replace('-', '')}`;
        await record('POST', `${props}/{objectType}/groups`, `${props}/contacts/groups`, {
          token,
          json: { name: group, label: 'Conformance', displayOrder: 1 },
        });
        await record('GET', `${props}/{objectType}/groups`, `${props}/contacts/groups`, { token });
        await record('GET', `${props}/{objectType}/groups/{groupName}`, `${props}/contacts/groups/${group}`, { token });
        await record('PATCH', `${props}/{objectType}/groups/{groupName}`, `${props}/contacts/groups/${group}`, {
          token,
          json: { label: 'Conformance 2' },
        });

        const schemas = `/crm-object-schemas/${v}/schemas`;
        const objectName = `conf${v.replace('-', '')}`;
        const created = await record('POST', schemas, schemas, {
          token,
          json: {
            name: objectName,
            labels: { singular: `${objectName} item`, plural: `${objectName} items` },
            primaryDisplayProperty: 'title',
            secondaryDisplayProperties: [],
            searchableProperties: ['title'],
            requiredProperties: ['title'],
            properties: [{ name: 'title', label: 'Title', type: 'string', fieldType: 'text' }],
            associatedObjects: ['CONTACT'],
            allowsSensitiveProperties: false,
            ...(v === '2026-03' ? { shouldCreateSameObjectAssociation: false } : {}),
          },
        });
        await record('GET', schemas, schemas, { token });
        await record('POST', `${schemas}/batch/read`, `${schemas}/batch/read`, {
          token,
          json: {
            includeAssociationDefinitions: true,
            includeAuditMetadata: true,
            includePropertyDefinitions: true,
            inputs: [objectName],
          },
        });
        await record('GET', `${schemas}/{objectType}`, `${schemas}/${created.objectTypeId}`, { token });
        await record('PATCH', `${schemas}/{objectType}`, `${schemas}/${objectName}`, {
          token,
          json: { description: 'Patched', ...(v === 'v3' ? {} : { clearDescription: false }) },
        });
        await record('POST', `${schemas}/{objectType}/associations`, `${schemas}/${objectName}/associations`, {
          token,
          json: { fromObjectTypeId: created.objectTypeId, toObjectTypeId: '0-2', name: `${objectName}_to_company` },
        });
      }

      // CRM records at every version: contacts, with history, paging, batches that pass and that fail.
      const recordsToken = mintRecordsToken(t, hubId);
      for (const v of ['v3', '2026-03', '2026-09'] as const) {
        const objects = v === 'v3' ? '/crm/v3/objects' : `/crm/objects/${v}`;
        const token = recordsToken;
        const tag = v.replace('-', '');
        const someFailed = (ok: number) => (v === '2026-09' ? ok : 207);
        const one = await record('POST', `${objects}/{objectType}`, `${objects}/contacts`, {
          token,
          json: { properties: { email: `one-${tag}@example.com`, firstname: 'One' } },
        });
        await record('POST', `${objects}/{objectType}`, `${objects}/contacts`, {
          token,
          json: { properties: { email: `two-${tag}@example.com` } },
        });
        await record('GET', `${objects}/{objectType}`, `${objects}/contacts?limit=1&propertiesWithHistory=email`, {
          token,
        });
        await record(
          'GET',
          `${objects}/{objectType}/{objectId}`,
          `${objects}/contacts/${one.id}?propertiesWithHistory=firstname`,
          {
            token,
          },
        );
        await record('PATCH', `${objects}/{objectType}/{objectId}`, `${objects}/contacts/${one.id}`, {
          token,
          json: { properties: { firstname: 'Uno' } },
        });
        await record('POST', `${objects}/{objectType}/batch/read`, `${objects}/contacts/batch/read`, {
          token,
          json: { inputs: [{ id: one.id }], properties: ['email'] },
          status: 200,
        });
        await record('POST', `${objects}/{objectType}/batch/read`, `${objects}/contacts/batch/read`, {
          token,
          json: { inputs: [{ id: one.id }, { id: '999999999' }], properties: ['email'] },
          status: someFailed(200),
        });
        await record('POST', `${objects}/{objectType}/batch/create`, `${objects}/contacts/batch/create`, {
          token,
          json: { inputs: [{ properties: { email: `three-${tag}@example.com` } }] },
          status: 201,
        });
        await record('POST', `${objects}/{objectType}/batch/create`, `${objects}/contacts/batch/create`, {
          token,
          json: { inputs: [{ properties: { email: `four-${tag}@example.com` } }, { properties: { nosuch: 'x' } }] },
          status: someFailed(201),
        });
        await record('POST', `${objects}/{objectType}/batch/update`, `${objects}/contacts/batch/update`, {
          token,
          json: { inputs: [{ id: one.id, properties: { lastname: 'Last' } }] },
          status: 200,
        });
        await record('POST', `${objects}/{objectType}/batch/update`, `${objects}/contacts/batch/update`, {
          token,
          json: {
            inputs: [
              { id: one.id, properties: { lastname: 'L' } },
              { id: '999999999', properties: {} },
            ],
          },
          status: someFailed(200),
        });
        await record('POST', `${objects}/{objectType}/batch/upsert`, `${objects}/contacts/batch/upsert`, {
          token,
          json: {
            inputs: [
              { id: `one-${tag}@example.com`, idProperty: 'email', properties: { lastname: 'Up' } },
              { id: `five-${tag}@example.com`, idProperty: 'email', properties: {} },
            ],
          },
          status: 200,
        });
        const limitsPath = v === 'v3' ? '/crm/v3/limits/records' : `/crm/limits/${v}/records`;
        await record('GET', limitsPath, limitsPath, { token });
        const other = await record('POST', `${objects}/{objectType}`, `${objects}/companies`, {
          token,
          json: { properties: { name: `Other ${tag}`, domain: `${tag}.example.com` } },
        });
        const primary = await record('POST', `${objects}/{objectType}`, `${objects}/companies`, {
          token,
          json: { properties: { name: `Primary ${tag}` } },
        });
        await record('POST', `${objects}/{objectType}/merge`, `${objects}/companies/merge`, {
          token,
          json: { primaryObjectId: primary.id, objectIdToMerge: other.id },
        });
        await record('POST', `${objects}/{objectType}/batch/upsert`, `${objects}/contacts/batch/upsert`, {
          token,
          json: {
            inputs: [
              { id: `six-${tag}@example.com`, idProperty: 'email', properties: {} },
              { id: `seven-${tag}@example.com`, idProperty: 'email', properties: { nosuch: 'x' } },
            ],
          },
          status: someFailed(200),
        });
        // CRM search: a page with a next cursor, and one of every filter form.
        await record('POST', `${objects}/{objectType}/search`, `${objects}/contacts/search`, {
          token,
          json: { filterGroups: [], sorts: ['-createdate'], properties: ['email', 'firstname'], limit: 1 },
        });
        await record('POST', `${objects}/{objectType}/search`, `${objects}/contacts/search`, {
          token,
          json: {
            query: 'one',
            filterGroups: [
              { filters: [{ propertyName: 'email', operator: 'CONTAINS_TOKEN', value: '*@example.com' }] },
              { filters: [{ propertyName: 'hs_object_id', operator: 'IN', values: [one.id] }] },
            ],
          },
        });
      }

      // Pipelines, associations v4 and their limits (issue 37, items 5-7) at every version, on an
      // account of their own (enterprise: room for new pipelines).
      const crmHub = (await createAccount(t, { tier: 'enterprise' })).hubId;
      const crmToken = mintRecordsToken(t, crmHub);
      const newRecord = async (type: string, properties: Record<string, string>) => {
        const r = await t.inject({
          method: 'POST',
          url: `/crm/v3/objects/${type}`,
          headers: { authorization: `Bearer ${crmToken}`, 'content-type': 'application/json' },
          payload: JSON.stringify({ properties }),
        });
        return (r.json() as { id: string }).id;
      };
      const spec = (associationTypeId: number) => ({ associationCategory: 'HUBSPOT_DEFINED', associationTypeId });
      for (const v of ['v3', '2026-03', '2026-09'] as const) {
        const token = crmToken;
        const tag = v.replace('-', '');
        const pipelines = v === 'v3' ? '/crm/v3/pipelines' : `/crm/pipelines/${v}`;
        const stage = (label: string, displayOrder: number) => ({
          label,
          displayOrder,
          metadata: { probability: '0.5' },
        });
        await record('GET', `${pipelines}/{objectType}`, `${pipelines}/deals`, { token });
        const p = await record('POST', `${pipelines}/{objectType}`, `${pipelines}/deals`, {
          token,
          json: { label: `P ${tag}`, displayOrder: 1, stages: [stage('A', 0), stage('B', 1)] },
        });
        await record('GET', `${pipelines}/{objectType}/{pipelineId}`, `${pipelines}/deals/${p.id}`, { token });
        await record('PUT', `${pipelines}/{objectType}/{pipelineId}`, `${pipelines}/deals/${p.id}`, {
          token,
          json: { label: `P ${tag}`, displayOrder: 2, stages: [{ ...stage('A', 0), stageId: p.stages[0].id }] },
        });
        await record('PATCH', `${pipelines}/{objectType}/{pipelineId}`, `${pipelines}/deals/${p.id}`, {
          token,
          json: { label: `Pipeline ${tag}` },
        });
        const s = await record(
          'POST',
          `${pipelines}/{objectType}/{pipelineId}/stages`,
          `${pipelines}/deals/${p.id}/stages`,
          {
            token,
            json: stage('C', 1),
          },
        );
        await record('GET', `${pipelines}/{objectType}/{pipelineId}/stages`, `${pipelines}/deals/${p.id}/stages`, {
          token,
        });
        const one = `${pipelines}/deals/${p.id}/stages/${s.id}`;
        await record('GET', `${pipelines}/{objectType}/{pipelineId}/stages/{stageId}`, one, { token });
        await record('PUT', `${pipelines}/{objectType}/{pipelineId}/stages/{stageId}`, one, {
          token,
          json: stage('D', 2),
        });
        await record('PATCH', `${pipelines}/{objectType}/{pipelineId}/stages/{stageId}`, one, {
          token,
          json: { label: 'E', metadata: {} },
        });
        await record('GET', `${pipelines}/{objectType}/{pipelineId}/audit`, `${pipelines}/deals/${p.id}/audit`, {
          token,
        });
        await record('GET', `${pipelines}/{objectType}/{pipelineId}/stages/{stageId}/audit`, `${one}/audit`, { token });
        const limits = v === 'v3' ? '/crm/v3/limits' : `/crm/limits/${v}`;
        await record('GET', `${limits}/pipelines`, `${limits}/pipelines`, { token });

        const objects = v === 'v3' ? '/crm/v4/objects' : `/crm/objects/${v}`;
        const batch = v === 'v3' ? '/crm/v4/associations' : `/crm/associations/${v}`;
        const contact = await newRecord('contacts', { email: `assoc-${tag}@example.com` });
        const [c1, c2] = [
          await newRecord('companies', { name: `A ${tag}` }),
          await newRecord('companies', { name: `B ${tag}` }),
        ];
        await record(
          'PUT',
          `${objects}/{objectType}/{objectId}/associations/{toObjectType}/{toObjectId}`,
          `${objects}/contacts/${contact}/associations/companies/${c1}`,
          { token, json: [spec(1)] },
        );
        await record(
          'PUT',
          `${objects}/{objectType}/{objectId}/associations/default/{toObjectType}/{toObjectId}`,
          `${objects}/contacts/${contact}/associations/default/companies/${c2}`,
          { token },
        );
        if (v !== '2026-09') {
          await record(
            'GET',
            `${objects}/{objectType}/{objectId}/associations/{toObjectType}`,
            `${objects}/contacts/${contact}/associations/companies`,
            { token },
          );
        }
        const pair = { from: { id: contact }, to: { id: c1 }, types: [spec(279)] };
        const missing = { from: { id: contact }, to: { id: '999999999' }, types: [spec(279)] };
        await record(
          'POST',
          `${batch}/{fromObjectType}/{toObjectType}/batch/create`,
          `${batch}/contacts/companies/batch/create`,
          {
            token,
            json: { inputs: [pair] },
            status: v === '2026-09' ? 200 : 201,
          },
        );
        await record(
          'POST',
          `${batch}/{fromObjectType}/{toObjectType}/batch/create`,
          `${batch}/contacts/companies/batch/create`,
          {
            token,
            json: { inputs: [pair, missing] },
            status: v === '2026-09' ? 200 : 207,
          },
        );
        await record(
          'POST',
          `${batch}/{fromObjectType}/{toObjectType}/batch/associate/default`,
          `${batch}/contacts/companies/batch/associate/default`,
          { token, json: { inputs: [{ from: { id: contact }, to: { id: c1 } }] } },
        );
        await record(
          'POST',
          `${batch}/{fromObjectType}/{toObjectType}/batch/read`,
          `${batch}/contacts/companies/batch/read`,
          {
            token,
            json: { inputs: [{ id: contact }] },
            status: 200,
          },
        );
        if (v !== '2026-09') {
          await record(
            'POST',
            `${batch}/{fromObjectType}/{toObjectType}/batch/read`,
            `${batch}/contacts/companies/batch/read`,
            {
              token,
              json: { inputs: [{ id: contact }, { id: '999999999' }] },
              status: 207,
            },
          );
        }
        await record('GET', `${batch}/{fromObjectType}/{toObjectType}/labels`, `${batch}/contacts/companies/labels`, {
          token,
        });
        await record('POST', `${batch}/{fromObjectType}/{toObjectType}/labels`, `${batch}/contacts/companies/labels`, {
          token,
          json: { name: `conformance_${v}`, label: `Conformance ${v}`, inverseLabel: `Inverse ${v}` },
        });
        const configurations =
          v === 'v3'
            ? '/crm/associations/v4/definitions/configurations'
            : `/crm/associations/${v}/definitions/configurations`;
        await record(
          'POST',
          `${configurations}/{fromObjectType}/{toObjectType}/batch/create`,
          `${configurations}/contacts/companies/batch/create`,
          {
            token,
            json: { inputs: [{ category: 'HUBSPOT_DEFINED', typeId: 279, maxToObjectIds: 2 }] },
            status: v === '2026-09' ? 200 : 201,
          },
        );
        if (v !== '2026-09') {
          await record(
            'POST',
            `${configurations}/{fromObjectType}/{toObjectType}/batch/create`,
            `${configurations}/contacts/companies/batch/create`,
            {
              token,
              json: {
                inputs: [
                  { category: 'HUBSPOT_DEFINED', typeId: 1, maxToObjectIds: 1 },
                  { category: 'HUBSPOT_DEFINED', typeId: 3, maxToObjectIds: 1 },
                ],
              },
              status: 207,
            },
          );
        }
        await record(
          'POST',
          `${configurations}/{fromObjectType}/{toObjectType}/batch/update`,
          `${configurations}/contacts/companies/batch/update`,
          { token, json: { inputs: [{ category: 'HUBSPOT_DEFINED', typeId: 279, maxToObjectIds: 2 }] }, status: 200 },
        );
        if (v !== '2026-09') {
          await record(
            'POST',
            `${configurations}/{fromObjectType}/{toObjectType}/batch/update`,
            `${configurations}/contacts/companies/batch/update`,
            {
              token,
              json: {
                inputs: [
                  { category: 'HUBSPOT_DEFINED', typeId: 279, maxToObjectIds: 2 },
                  { category: 'HUBSPOT_DEFINED', typeId: 2, maxToObjectIds: 1 },
                ],
              },
              status: 207,
            },
          );
        }
        await record('GET', `${configurations}/all`, `${configurations}/all`, { token });
        await record(
          'GET',
          `${configurations}/{fromObjectType}/{toObjectType}`,
          `${configurations}/contacts/companies`,
          { token },
        );
        const records = `${limits}/associations/records`;
        await record('GET', `${records}/from`, `${records}/from`, { token });
        await record('GET', `${records}/{fromObjectTypeId}/to`, `${records}/0-1/to`, { token });
        await record('GET', `${records}/{fromObjectTypeId}/{toObjectTypeId}`, `${records}/0-1/0-2`, { token });
        if (v !== 'v3') {
          await record(
            'POST',
            `${configurations}/{fromObjectType}/{toObjectType}/batch/purge`,
            `${configurations}/contacts/companies/batch/purge`,
            { token, json: { inputs: [{ category: 'HUBSPOT_DEFINED', typeId: 279 }] }, status: 200 },
          );
          await record(
            'POST',
            `${batch}/{fromObjectType}/{toObjectType}/batch/labels/archive`,
            `${batch}/contacts/companies/batch/labels/archive`,
            { token, json: { inputs: [{ ...pair, types: [spec(1)] }] }, status: 200 },
          );
          await record(
            'POST',
            `${batch}/{fromObjectType}/{toObjectType}/batch/archive`,
            `${batch}/contacts/companies/batch/archive`,
            {
              token,
              json: { inputs: [{ from: { id: contact }, to: [{ id: c1 }, { id: c2 }] }] },
              status: 200,
            },
          );
        }
        // v4's purge answers 204 (no body, nothing to record): it only clears the limit for the next version.
        if (v === 'v3') {
          await t.inject({
            method: 'POST',
            url: `${configurations}/contacts/companies/batch/purge`,
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            payload: JSON.stringify({ inputs: [{ category: 'HUBSPOT_DEFINED', typeId: 279 }] }),
          });
        }
      }

      // App webhooks at every version, with the app's developer key (a subscription per version).
      const hooksDevHubId = (await createAccount(t, { tier: 'enterprise' })).hubId;
      const hooked = await createApp(t, { developerHubId: hooksDevHubId });
      const devKey = (await t.admin('POST', `/admin/v1/accounts/${hooksDevHubId}/developer-api-keys`)).json() as {
        developerApiKey: string;
      };
      const webhooks = [
        ['/webhooks/v3', 'email'],
        ['/webhooks/2026-03', 'firstname'],
        ['/app-webhooks/2026-09', 'lastname'],
      ] as const;
      for (const [prefix, property] of webhooks) {
        const at = (path: string) => `${prefix}/${hooked.appId}${path}?hapikey=${devKey.developerApiKey}`;
        const tpl = (path: string) => `${prefix}/{appId}${path}`;
        const settings = {
          targetUrl: 'https://example.com/hubspot/webhooks',
          throttling: { maxConcurrentRequests: 5 },
        };
        await record('PUT', tpl('/settings'), at('/settings'), { json: settings });
        await record('GET', tpl('/settings'), at('/settings'));
        const sub = await record('POST', tpl('/subscriptions'), at('/subscriptions'), {
          json: { eventType: 'contact.propertyChange', propertyName: property, active: true },
        });
        await record('GET', tpl('/subscriptions'), at('/subscriptions'));
        const one = tpl('/subscriptions/{subscriptionId}');
        await record('GET', one, at(`/subscriptions/${sub.id}`));
        await record('PATCH', one, at(`/subscriptions/${sub.id}`), { json: { active: false } });
        const batch = tpl('/subscriptions/batch/update');
        await record('POST', batch, at('/subscriptions/batch/update'), {
          json: { inputs: [{ id: Number(sub.id), active: true }] },
          status: 200,
        });
        await record('POST', batch, at('/subscriptions/batch/update'), {
          json: { inputs: [{ id: 99_999, active: true }] },
          status: prefix.includes('2026-09') ? 200 : 207,
        });
      }

      // The webhooks journal: an app token with its scopes, an install, a subscription, a contact.
      const jf = await oauthFixture(t, {
        requiredScopes: ['oauth', 'crm.objects.contacts.read', 'crm.objects.contacts.write'],
      });
      const install = await installAndExchange(t, jf);
      const appToken = (
        await record('POST', '/oauth/2026-03/token', '/oauth/2026-03/token', {
          form: {
            client_id: jf.clientId,
            client_secret: jf.clientSecret,
            grant_type: 'client_credentials',
            scope:
              'webhooks-journal-data-access webhooks-journal-subscription-management webhooks-journal-snapshot-management',
          },
        })
      ).access_token as string;
      const subs = '/webhooks-journal/subscriptions/2026-03';
      const jsub = await record('POST', subs, subs, {
        token: appToken,
        json: {
          subscriptionType: 'OBJECT',
          portalId: jf.hubId,
          objectTypeId: '0-1',
          actions: ['CREATE', 'UPDATE'],
          objectIds: [],
          properties: [],
        },
      });
      await record('GET', subs, subs, { token: appToken });
      await record('GET', `${subs}/{subscriptionId}`, `${subs}/${jsub.id}`, { token: appToken });
      const jfilter = await record('POST', `${subs}/filters`, `${subs}/filters`, {
        token: appToken,
        json: {
          subscriptionId: jsub.id,
          filter: { conditions: [{ filterType: 'CRM_OBJECT_PROPERTY', property: 'email', operator: 'IS_NOT_EMPTY' }] },
        },
      });
      await record('GET', `${subs}/filters/{filterId}`, `${subs}/filters/${jfilter.filterId}`, { token: appToken });
      await record('GET', `${subs}/filters/subscription/{subscriptionId}`, `${subs}/filters/subscription/${jsub.id}`, {
        token: appToken,
      });
      // Two contacts (their answers are the records module's, recorded above): journal entries to read.
      const jcontacts: number[] = [];
      for (const email of ['journal-a@example.com', 'journal-b@example.com']) {
        const created = await t.inject({
          method: 'POST',
          url: '/crm/v3/objects/contacts',
          headers: { authorization: `Bearer ${install.access_token}` },
          payload: { properties: { email } },
        });
        expect(created.statusCode).toBe(201);
        jcontacts.push(Number(created.json().id));
      }
      const snap = '/webhooks-journal/snapshots/2026-03/crm';
      const snapped = await record('POST', snap, snap, {
        token: appToken,
        json: {
          snapshotRequests: [
            { portalId: jf.hubId, objectTypeId: '0-1', objectId: jcontacts[0], properties: ['email'] },
          ],
        },
      });
      for (const journal of ['journal', 'journal-local']) {
        const base = `/webhooks-journal/${journal}/2026-03`;
        const q = `?installPortalId=${jf.hubId}`;
        const first = await record('GET', `${base}/earliest`, `${base}/earliest${q}`, { token: appToken });
        await record('GET', `${base}/latest`, `${base}/latest${q}`, { token: appToken });
        await record('GET', `${base}/offset/{offset}/next`, `${base}/offset/${first.currentOffset}/next${q}`, {
          token: appToken,
        });
        await record('GET', `${base}/batch/earliest/{count}`, `${base}/batch/earliest/10${q}`, { token: appToken });
        await record('GET', `${base}/batch/latest/{count}`, `${base}/batch/latest/2${q}`, { token: appToken });
        await record('GET', `${base}/batch/{offset}/next/{count}`, `${base}/batch/${first.currentOffset}/next/5${q}`, {
          token: appToken,
        });
        await record('POST', `${base}/batch/read`, `${base}/batch/read${q}`, {
          token: appToken,
          json: { inputs: [first.currentOffset] },
          status: 200,
        });
        await record('POST', `${base}/batch/read`, `${base}/batch/read${q}`, {
          token: appToken,
          json: { inputs: [first.currentOffset, '00000000-0000-8000-8000-000000000000'] },
          status: 207,
        });
        await record(
          'GET',
          `${base}/status/{statusId}`,
          `${base}/status/${snapped.snapshotResponses[0].snapshotStatusId}`,
          {
            token: appToken,
          },
        );
      }
    }, 120_000);
    afterAll(() => t?.close());

    it.each(ALL_WIRE_OPERATIONS.map((o) => [key(o), o] as const))('%s', (k, op) => {
      const answers = recorded.get(k) ?? [];
      expect(answers.length).toBeGreaterThan(0);
      const { specFile, path } = COMPARED_WITH[k] ?? op;
      const d = doc(specFile);
      const official = officialSchemaOf(d, op, path)!;
      for (const body of answers) {
        expect(wireProblems(op.schema, body)).toEqual([]);
        expect(officialProblems(d, official, body)).toEqual([]);
      }
    });

    it('the recorded properties carry every optional field checked above: display hints, sensitivity, HubSpot-defined, who changed them', () => {
      // Every Property in every recorded answer (lists, batches and object schemas included).
      const properties: Array<Record<string, unknown>> = [];
      const walk = (v: unknown): void => {
        if (Array.isArray(v)) v.forEach(walk);
        else if (v && typeof v === 'object') {
          if ('fieldType' in v && 'modificationMetadata' in v) properties.push(v as Record<string, unknown>);
          Object.values(v).forEach(walk);
        }
      };
      for (const [k, bodies] of recorded) if (/\/(properties|schemas)\b/.test(k)) bodies.forEach(walk);
      for (const field of ['numberDisplayHint', 'textDisplayHint', 'showCurrencySymbol', 'currencyPropertyName']) {
        expect({ field, sent: properties.some((p) => field in p) }).toEqual({ field, sent: true });
      }
      expect(new Set(properties.map((p) => p.dataSensitivity))).toEqual(new Set(['non_sensitive', 'sensitive']));
      expect(properties.some((p) => p.hubspotDefined === true)).toBe(true);
      expect(properties.some((p) => p.updatedUserId !== undefined && p.updatedUserId !== p.createdUserId)).toBe(true);
    });
  });

  describe('HubSpot official-spec conformance: accepted scopes of the limits module', () => {
    type Security = Array<Record<string, string[]>>;
    const securityOf = (file: string, path: string, method = 'get'): Security =>
      (doc(file).paths[path]?.[method] as { security?: Security } | undefined)?.security ?? [];
    /** The operation's oauth2 "any of" list (2026-09 also lists private_apps entries: no private apps here). */
    const oauth2AnyOf = (file: string, path: string, method = 'get') =>
      securityOf(file, path, method)
        .filter((e) => e.oauth2)
        .flatMap((e) => e.oauth2!);

    it.each([
      ['/crm/v3/limits/calculated-properties', CRM_LIMITS_READ_SCOPES],
      ['/crm/v3/limits/custom-properties', CRM_LIMITS_READ_SCOPES],
      ['/crm/v3/limits/associations/labels', CRM_LIMITS_READ_SCOPES],
      ['/crm/v3/limits/custom-object-types', CUSTOM_OBJECT_TYPE_LIMITS_SCOPES],
    ])('%s accepts exactly the official list', (path, ours) => {
      const official = oauth2AnyOf('limitsTracking.json', path);
      expect(official.length).toBeGreaterThan(0);
      expect([...ours].sort()).toEqual([...official].sort());
    });

    it('every security entry of those operations is a single oauth2 scope (so "any of" is the right reading)', () => {
      for (const path of ['/crm/v3/limits/calculated-properties', '/crm/v3/limits/custom-object-types']) {
        for (const entry of securityOf('limitsTracking.json', path)) {
          expect(Object.keys(entry)).toEqual(['oauth2']);
          expect(entry.oauth2).toHaveLength(1);
        }
      }
    });

    it.each([
      ['2026-03', 'calculated-properties'],
      ['2026-03', 'custom-properties'],
      ['2026-09', 'calculated-properties'],
      ['2026-09', 'custom-properties'],
      ['2026-03', 'associations/labels'],
      ['2026-09', 'associations/labels'],
    ] as const)('limits %s %s accepts exactly the official list', (version, endpoint) => {
      const official = oauth2AnyOf(`${version}/limitsTracking.json`, `/crm/limits/${version}/${endpoint}`);
      expect([...crmLimitsReadScopes(version)].sort()).toEqual([...official].sort());
    });

    it.each(['2026-03', '2026-09'] as const)('limits %s custom-object-types: the same list as v3', (version) => {
      const official = oauth2AnyOf(`${version}/limitsTracking.json`, `/crm/limits/${version}/custom-object-types`);
      expect([...CUSTOM_OBJECT_TYPE_LIMITS_SCOPES].sort()).toEqual([...official].sort());
    });

    it('properties 2026-09 accepts none of the scopes its spec dropped since 2026-03, and each object type keeps one', () => {
      const dropped = (method: string) => {
        const before = oauth2AnyOf('2026-03/properties.json', '/crm/properties/2026-03/{objectType}', method);
        const after = oauth2AnyOf('2026-09/properties.json', '/crm/properties/2026-09/{objectType}', method);
        return before.filter((s) => !after.includes(s));
      };
      const droppedRead = dropped('get');
      const droppedWrite = dropped('post');
      expect(droppedRead).toContain('crm.schemas.tickets.read');
      for (const family of ['contacts', 'companies', 'deals', 'tickets', 'custom'] as const) {
        expect(propertyScopes(family, 'write', '2026-09').filter((s) => droppedWrite.includes(s))).toEqual([]);
        expect(propertyScopes(family, 'read', '2026-09').filter((s) => droppedRead.includes(s))).toEqual([]);
        expect(propertyScopes(family, 'write', '2026-09').length).toBeGreaterThan(0);
        expect(propertyScopes(family, 'read', '2026-03')).toEqual(propertyScopes(family, 'read', 'v3'));
      }
    });
  });
}

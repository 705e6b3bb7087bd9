import { LimitsQueries } from '../../src/crm-schema/application/limits.queries';
import {
  ASSOCIATION_LABEL_LIMITS_SCHEMA,
  CALCULATED_PROPERTY_LIMITS_SCHEMA,
  CUSTOM_OBJECT_TYPE_LIMITS_SCHEMA,
  CUSTOM_PROPERTY_LIMITS_SCHEMA,
} from '../../src/crm-schema/http/wire-schemas';
import { TokenMetadataController } from '../../src/oauth/http/token-metadata.controller';
import { ACCESS_TOKEN_INFO_SCHEMA } from '../../src/oauth/http/wire-schemas';
import { ERROR_WIRE_SCHEMA } from '../../src/platform/errors/error-wire-schema';
import type { WireSchema } from '../../src/platform/http/wire-schema';
import { LIMITS_TEST_SCOPES, mintLimitsToken } from '../support/limits-tokens';
import { installAndExchange, oauthFixture } from '../support/oauth-fixtures';
import { createAccount, startTestApp, type TestApp } from '../support/test-app';
import { ALL_WIRE_OPERATIONS, wireProblems } from '../support/wire-schemas';

/**
 * The wire schemas' other two uses: /docs shows each operation's success schema as written, and the
 * routes that Fastify serializes by schema still send HubSpot's Error body untouched on failure.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 30_000);
afterAll(() => t.close());

interface OpenApiDocument {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
  >;
}

describe('/docs describes what the service sends', () => {
  let doc: OpenApiDocument;
  beforeAll(async () => {
    doc = (await t.inject({ method: 'GET', url: '/docs/json' })).json();
  });

  it.each(ALL_WIRE_OPERATIONS.map((o) => [`${o.method} ${o.path} ${o.status}`, o] as const))('%s', (_, op) => {
    const response = doc.paths[op.path]?.[op.method.toLowerCase()]?.responses[String(op.status)];
    const shown = response?.content?.['application/json']?.schema as WireSchema | undefined;
    expect(shown).toBeDefined();
    // A handler that serves several versions shows their distinct schemas as a oneOf.
    const alternatives = shown!.oneOf && !op.schema.oneOf ? shown!.oneOf : [shown];
    expect(alternatives).toContainEqual(op.schema);
    expect(
      doc.paths[op.path]![op.method.toLowerCase()]!.responses.default!.content!['application/json']!.schema,
    ).toEqual(ERROR_WIRE_SCHEMA);
  });
});

describe('routes serialized by their schema', () => {
  it('send the same success bodies, and error bodies untouched', async () => {
    const f = await oauthFixture(t);
    const tokens = await installAndExchange(t, f);
    const info = await t.inject({ method: 'GET', url: `/oauth/v1/access-tokens/${tokens.access_token}` });
    expect(info.statusCode).toBe(200);
    expect(info.headers['content-type']).toMatch(/^application\/json/);
    expect(info.json()).toMatchObject({ token: tokens.access_token, hub_id: f.hubId, token_type: 'access' });

    const hubId = (await createAccount(t, { tier: 'enterprise' })).hubId;
    const token = mintLimitsToken(t, { hubId, scopes: LIMITS_TEST_SCOPES });
    const limits = await t.inject({
      method: 'GET',
      url: '/crm/v3/limits/custom-object-types',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(limits.statusCode).toBe(200);
    expect(limits.json()).toEqual({ limit: expect.any(Number), usage: 0, percentage: 0 });

    for (const url of ['/oauth/v1/access-tokens/not-a-token', '/crm/v3/limits/custom-object-types']) {
      const refused = await t.inject({ method: 'GET', url });
      expect([400, 401]).toContain(refused.statusCode);
      const body = refused.json();
      expect(wireProblems(ERROR_WIRE_SCHEMA, body)).toEqual([]);
      expect(body).toMatchObject({ category: expect.any(String), message: expect.any(String) });
      expect(body).not.toHaveProperty('token');
    }
    const bad = await t.inject({
      method: 'POST',
      url: '/oauth/v1/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=refresh_token&client_id=x&client_secret=y&refresh_token=z',
    });
    expect(bad.statusCode).toBeGreaterThanOrEqual(400);
    expect(wireProblems(ERROR_WIRE_SCHEMA, bad.json())).toEqual([]);
    expect(bad.json()).toMatchObject({ error: expect.any(String), error_description: expect.any(String) });
  });
});

describe('what the serialized routes’ handlers return, before the serializer', () => {
  // fast-json-stringify drops what a schema does not declare: the handlers' own results must hold
  // nothing more (closed schemas, validated strictly), or a new field would vanish unseen. The v1
  // token answer is the same command result the 2026-03 token endpoint sends unserialized, which
  // test/e2e/oauth-2026-03.e2e.spec.ts validates strictly against the same schema.
  it('access-token metadata and the four limits bodies: exactly their schemas', async () => {
    const f = await oauthFixture(t);
    const tokens = await installAndExchange(t, f);
    expect(
      wireProblems(ACCESS_TOKEN_INFO_SCHEMA, t.app.get(TokenMetadataController).accessToken(tokens.access_token)),
    ).toEqual([]);
    const hubId = (await createAccount(t, { tier: 'enterprise' })).hubId;
    const limits = t.app.get(LimitsQueries);
    expect(wireProblems(CALCULATED_PROPERTY_LIMITS_SCHEMA, limits.calculatedPropertyLimits(hubId))).toEqual([]);
    expect(wireProblems(CUSTOM_OBJECT_TYPE_LIMITS_SCHEMA, limits.customObjectTypeLimits(hubId))).toEqual([]);
    expect(wireProblems(CUSTOM_PROPERTY_LIMITS_SCHEMA, limits.customPropertyLimits(hubId))).toEqual([]);
    expect(wireProblems(ASSOCIATION_LABEL_LIMITS_SCHEMA, { results: limits.associationLabelLimits(hubId) })).toEqual(
      [],
    );
  });

  it('a field the schema does not declare is a problem (so the check above can fail)', () => {
    expect(wireProblems(CUSTOM_OBJECT_TYPE_LIMITS_SCHEMA, { limit: 1, usage: 0, percentage: 0, extra: 1 })).toEqual([
      '$.extra: not declared by the schema',
    ]);
  });
});

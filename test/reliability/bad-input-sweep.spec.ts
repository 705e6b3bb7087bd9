import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LEAK_WINDOWS, MEMORY_SERIES, memoryVerdicts, SETTLE_SAMPLES } from '../support/sweep-memory-series';
import { HttpFixtures } from '../support/reliability-fixtures';
import {
  ensureBuilt,
  GC_HOOK_NODE_OPTIONS,
  inPool,
  memoryAfterGc,
  rawRequest,
  type MemoryAfterGc,
  startReliabilityService,
  stopService,
  type RawResponse,
  type RunningService,
} from '../support/reliability-service';
import { startTestApp, TEST_ADMIN_KEY } from '../support/test-app';
import { arrayPaths, wideBody } from '../support/wide-arrays';
import { once } from 'node:events';
import { connect } from 'node:net';

/**
 * A generated bad-input sweep over every route of the real service (the OpenAPI document's routes
 * plus the undocumented ones, checked complete against the router): broken encodings, wrong
 * types, huge and empty values, NUL bytes, duplicate parameters, tokens of other kinds. Requests
 * are written byte for byte on raw sockets, so nothing is cleaned up by an HTTP client first.
 * Every answer: no 5xx, no hang; every error a JSON HubSpot Error with the request's correlation
 * id (the HTML install page: an HTML page with the correlation id header); no stack trace and no
 * secret in any error; no bug logged; no memory that keeps growing (a leak).
 *
 * Issue 14's shapes are part of it: routes spelled with percent-encoded letters and as absolute-form
 * targets, JSON nested 500,000 deep or with 45,000 keys, control characters in paths, queries and
 * registered redirect URLs, secrets in query parameters under encoded names. The whole log of the
 * run must hold no token, code or secret, and a dedicated pass over those shapes must leave the
 * event loop responsive (the service's own event-loop delay metric, bounded generously).
 *
 * Deterministic: the requests come from a fixed fast-check seed (RELIABILITY_SEED to change it);
 * RELIABILITY_SWEEP_REQUESTS sets how many after the 2,000 of warm-up (default 6,000).
 */
const SEED = Number(process.env.RELIABILITY_SEED ?? 20_261_122);
const REQUESTS = Number(process.env.RELIABILITY_SWEEP_REQUESTS ?? 6000);
const WARM_UP = 2000;
const CONCURRENCY = 8;
/** After the warm-up, the service's memory is sampled (after a full GC) every this many requests. */
const SAMPLE_EVERY = 500;
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
/** The sweep's service gets a short REQUEST_TIMEOUT_MS, so that its trickled bodies end soon. */
const REQUEST_TIMEOUT_MS = 3000;
/** Issue 26: how wide the wide arrays are (`{"inputs":[{}]×30000}`). */
const WIDE = 30_000;

jest.setTimeout(600_000);

interface Route {
  method: string;
  path: string; // with {param} placeholders
  documented: boolean;
  bodySchema?: string;
}

/** Routes the OpenAPI document leaves out on purpose: operations, the docs themselves, the install page's form posts. */
const UNDOCUMENTED: Route[] = [
  { method: 'GET', path: '/health/live', documented: false },
  { method: 'GET', path: '/health/ready', documented: false },
  { method: 'GET', path: '/metrics', documented: false },
  { method: 'GET', path: '/docs', documented: false },
  { method: 'GET', path: '/docs/', documented: false },
  { method: 'GET', path: '/docs/json', documented: false },
  { method: 'GET', path: '/docs-yaml', documented: false },
  { method: 'GET', path: '/docs/swagger-ui-init.js', documented: false },
  { method: 'GET', path: '/docs/docs/swagger-ui-init.js', documented: false },
  { method: 'GET', path: '/docs/index.html', documented: false },
  { method: 'GET', path: '/docs/LICENSE', documented: false },
  { method: 'GET', path: '/docs/{asset}', documented: false },
  { method: 'POST', path: '/oauth/authorize/sign-in', documented: false },
  { method: 'POST', path: '/oauth/authorize/sign-out', documented: false },
  { method: 'POST', path: '/oauth/authorize/account', documented: false },
  { method: 'POST', path: '/oauth/authorize/decision', documented: false },
  // The webhooks journal's entry files: signed URLs the journal hands out, in no HubSpot spec.
  { method: 'GET', path: '/webhooks-journal/files/2026-03/{offset}', documented: false },
  // The console's pages and forms (HTML for people, not a HubSpot API): swept without a session.
  { method: 'GET', path: '/console', documented: false },
  { method: 'GET', path: '/console/sign-in', documented: false },
  { method: 'POST', path: '/console/sign-in', documented: false },
  { method: 'POST', path: '/console/sign-out', documented: false },
  { method: 'GET', path: '/console/accounts', documented: false },
  { method: 'GET', path: '/console/accounts/{hubId}', documented: false },
  { method: 'GET', path: '/console/apps', documented: false },
  { method: 'GET', path: '/console/apps/{appId}', documented: false },
  { method: 'POST', path: '/console/apps/{appId}/deliveries/{id}/redeliver', documented: false },
  { method: 'POST', path: '/console/installs/{appId}/{hubId}/{action}', documented: false },
  { method: 'GET', path: '/console/events', documented: false },
  { method: 'GET', path: '/console/events/live', documented: false },
  { method: 'GET', path: '/console/records', documented: false },
  { method: 'GET', path: '/console/records/{hubId}/{type}/{id}', documented: false },
  { method: 'GET', path: '/console/controls', documented: false },
  { method: 'POST', path: '/console/controls/faults', documented: false },
  { method: 'POST', path: '/console/controls/faults/clear-all', documented: false },
  { method: 'POST', path: '/console/controls/faults/{appId}/clear', documented: false },
  { method: 'POST', path: '/console/controls/search-lag/{hubId}', documented: false },
  // Not a route at all: the 404 path.
  { method: 'GET', path: '/{unknown}/{unknown}', documented: false },
];

/** Every (method, path) the router serves, from fastify's route tree (HEAD left out: it mirrors GET). */
function routerRoutes(tree: string): Set<string> {
  const out = new Set<string>();
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+) \(([^)]+)\)$/u.exec(line.replace(/\s+$/, ''));
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    const path = stack
      .join('')
      .replace(/:(\w+)/g, '{$1}')
      .replace(/\*$/, '{asset}');
    for (const method of m[3]!.split(', ')) if (method !== 'HEAD') out.add(`${method} ${path}`);
  }
  return out;
}

interface Context {
  port: number;
  hubId: number;
  userId: number;
  appId: number;
  clientId: string;
  clientSecret: string;
  accessToken: string;
  refreshToken: string;
  code: string;
  cardId: string;
  appCardId: string;
}

/** The smallest body limit of a route family (OAuth forms, 16 KiB; see src/platform/http/body-limits.ts). */
const SMALLEST_BODY_LIMIT = 16 * 1024;
/** Generous: a 1 MB body held up the loop about a second before issue 14; now no request should come near. */
const MAX_EVENT_LOOP_DELAY_SECONDS = 1.5;

type Spelling = 'plain' | 'encoded' | 'absolute' | 'both';

interface Generated {
  route: Route;
  method: string;
  path: string;
  query: string;
  headers: Array<[string, string]>;
  body: Buffer | null;
}

/** The request as bytes: exactly what was generated, plus Host, Connection: close and the length. */
function encode(g: Generated, port: number): Buffer {
  const head = [`${g.method} ${g.path}${g.query} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close'];
  for (const [k, v] of g.headers) head.push(`${k}: ${v}`);
  if (g.body !== null) head.push(`Content-Length: ${g.body.length}`);
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), g.body ?? Buffer.alloc(0)]);
}

function describeRequest(g: Generated): string {
  const body =
    g.body === null ? '' : ` body(${g.body.length})=${JSON.stringify(g.body.subarray(0, 160).toString('latin1'))}`;
  return `${g.method} ${(g.path + g.query).slice(0, 240)} ${JSON.stringify(g.headers).slice(0, 300)}${body}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What every answer must satisfy; returns the problems (none: fine). */
function problemsOf(g: Generated, r: RawResponse, secrets: string[]): string[] {
  const p: string[] = [];
  if (!(r.status >= 100 && r.status < 500)) p.push(`status ${r.status}`);
  // A short answer is excused only where the client was still sending a large body the route never
  // read (a HEAD answer has a length and no body: it is never short).
  if (!r.complete && g.method !== 'HEAD' && (g.body?.length ?? 0) < 64 * 1024) p.push('answer cut short');
  const correlationId = r.headers['x-hubspot-correlation-id'];
  const type = r.headers['content-type'] ?? '';
  const text = r.body.toString('utf8');
  if (g.method === 'HEAD' || (r.status >= 300 && r.status < 400) || r.status < 300) {
    if (r.status >= 300 && r.status < 400 && !r.headers.location) p.push('redirect without Location');
    if (r.status < 300 && /json/.test(type) && g.method !== 'HEAD' && text !== '' && r.complete) {
      try {
        JSON.parse(text);
      } catch {
        p.push('2xx JSON body does not parse');
      }
    }
    return p;
  }
  // An error answer.
  const forPeople =
    (g.route.path.startsWith('/oauth/') && !g.route.path.startsWith('/oauth/v1/')) ||
    g.route.path.startsWith('/console');
  if (/^text\/html/.test(type) && forPeople) {
    // The install page and the console answer people with an HTML error page (never a redirect, never JSON).
    if (!correlationId || !UUID.test(correlationId)) p.push('HTML error page without a correlation id header');
  } else if (!/^application\/json/.test(type)) {
    p.push(`error with content-type ${JSON.stringify(type)}: ${JSON.stringify(text.slice(0, 200))}`);
  } else {
    let body: Record<string, unknown> | null = null;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      p.push(`error body is not JSON: ${JSON.stringify(text.slice(0, 200))}`);
    }
    if (body) {
      if (typeof body.category !== 'string' || typeof body.message !== 'string')
        p.push(`not a HubSpot Error: ${text.slice(0, 300)}`);
      if (typeof body.correlationId !== 'string' || !UUID.test(body.correlationId)) p.push('no uuid correlationId');
      else if (correlationId === undefined)
        p.push('no X-HubSpot-Correlation-Id header'); // issue 41 item 12
      else if (correlationId !== body.correlationId) p.push('correlationId differs from its header');
    }
  }
  if (/\n\s+at \S+ \(|node_modules|\.ts:\d+/.test(text)) p.push(`stack trace in the body: ${text.slice(0, 300)}`);
  for (const s of secrets) if (text.includes(s)) p.push('a secret is echoed in an error body');
  return p;
}

describe('reliability: bad-input sweep over every route', () => {
  let dataDir: string;
  let service: RunningService | undefined;
  let ctx: Context;
  let routes: Route[];
  let docs: {
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { $ref?: string } }> } }>>;
    components: { schemas: Record<string, Schema> };
  };
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  /** Lines of the service's whole log (stdout and stderr, from the start) that hold a token or secret. */
  const logLeaks: string[] = [];

  interface Schema {
    $ref?: string;
    type?: string;
    enum?: unknown[];
    items?: Schema;
    properties?: Record<string, Schema>;
    allOf?: Schema[];
  }

  beforeAll(async () => {
    ensureBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'hs-rel-sweep-'));
    // Rate limiting on (its hooks are part of what is swept) with a public-app budget too big to
    // hide the handlers behind 429s; failed client authentication throttled at the default 10/min.
    service = await startReliabilityService({
      DATA_DIR: dataDir,
      SEED: 'none',
      ADMIN_API_KEY: TEST_ADMIN_KEY,
      RATE_LIMIT_ENABLED: 'true',
      RATE_LIMIT_MAX: '1000000',
      DEVELOPER_KEY_RATE_LIMIT_MAX: '1000000',
      // Issue 26: trickled bodies are cut at this (short, so that the sweep can wait for it).
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      NODE_OPTIONS: GC_HOOK_NODE_OPTIONS,
    });
    const fx = new HttpFixtures(service.url, TEST_ADMIN_KEY);
    const dev = await fx.account();
    const user = await fx.user([dev.hubId]);
    const app = await fx.app(
      dev.hubId,
      [
        'oauth',
        'developers-read',
        'developers-write',
        'crm.schemas.contacts.read',
        'crm.schemas.contacts.write',
        'crm.objects.deals.read',
        // So the CRM records routes run their handlers on the swept input, not only the scope check.
        'crm.objects.contacts.read',
        'crm.objects.contacts.write',
      ],
      ['crm.schemas.custom.read', 'crm.schemas.custom.write'],
    );
    const tokens = await fx.exchange(app, await fx.installCode(app.appId, dev.hubId, user.userId));
    expect(tokens.status).toBe(200);
    const card = await fx.bearer('POST', `/crm/v3/extensions/cards-dev/${app.appId}`, tokens.body.access_token, {
      title: 'Sweep card',
      fetch: { targetUrl: 'https://example.com/f', objectTypes: [{ name: 'contacts', propertiesToSend: [] }] },
      display: { properties: [] },
      actions: { baseUrls: [] },
    });
    expect(card.status).toBe(201);
    const appCard = await fx.admin('POST', `/admin/v1/apps/${app.appId}/app-cards`, {
      title: 'AC',
      objectTypes: ['contacts'],
    });
    expect(appCard.status).toBe(201);
    watchLogForSecrets(service, () => [ctx.clientSecret, TEST_ADMIN_KEY, ctx.refreshToken, ctx.accessToken, ctx.code]);
    ctx = {
      port: service.port,
      hubId: dev.hubId,
      userId: user.userId,
      appId: app.appId,
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      accessToken: tokens.body.access_token,
      refreshToken: tokens.body.refresh_token,
      code: await fx.installCode(app.appId, dev.hubId, user.userId),
      cardId: card.body.id,
      appCardId: appCard.body.id,
    };

    const d = await fx.admin('GET', '/docs/json');
    expect(d.status).toBe(200);
    docs = d.body;
    const documented: Route[] = [];
    for (const [path, ops] of Object.entries(docs.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const ref = op.requestBody?.content?.['application/json']?.schema?.$ref;
        documented.push({
          method: method.toUpperCase(),
          path,
          documented: true,
          ...(ref ? { bodySchema: ref.replace('#/components/schemas/', '') } : {}),
        });
      }
    }
    routes = [...documented, ...UNDOCUMENTED];
  }, 180_000);

  /**
   * Scans everything the service writes from now on (output() keeps only the last megabyte) for the
   * secrets, with an overlap between chunks so that a secret split across two is still seen.
   */
  function watchLogForSecrets(s: RunningService, secrets: () => string[]): void {
    for (const stream of [s.child.stdout!, s.child.stderr!]) {
      let carry = '';
      stream.on('data', (chunk: Buffer) => {
        const text = carry + chunk.toString();
        for (const secret of ctx ? secrets() : []) {
          const at = text.indexOf(secret, Math.max(0, carry.length - secret.length + 1));
          if (at >= 0 && logLeaks.length < 20) {
            const start = text.lastIndexOf('\n', at) + 1;
            logLeaks.push(text.slice(start, at + secret.length + 40).replaceAll(secret, '<SECRET>'));
          }
        }
        carry = text.slice(-1000);
      });
    }
  }

  /**
   * A fresh install's token after the generated sweep, which may have uninstalled the app, revoked its
   * tokens or rotated its client secret (`POST /admin/v1/apps/{appId}/client-secret`): the secret is
   * rotated here once more, so the one in hand is the app's (the log watch follows ctx.clientSecret).
   */
  async function freshInstallToken(fx: HttpFixtures) {
    const rotated = await fx.admin('POST', `/admin/v1/apps/${ctx.appId}/client-secret`);
    expect(rotated.status).toBe(200);
    ctx.clientSecret = (rotated.body as { clientSecret: string }).clientSecret;
    return fx.exchange(ctx, await fx.installCode(ctx.appId, ctx.hubId, ctx.userId));
  }

  /** The service's own metric: the longest event-loop delay since the previous scrape (prom-client resets it). */
  async function eventLoopMaxDelaySeconds(): Promise<number> {
    const r = await rawRequest(ctx.port, Buffer.from('GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    const m = /^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(r.body.toString('utf8'));
    if (!m) throw new Error(`no event-loop delay in /metrics (${r.status})`);
    return Number(m[1]);
  }

  afterAll(async () => {
    if (service) await stopService(service, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('sweeps every route the router serves (the list is complete)', async () => {
    const t = await startTestApp();
    try {
      const served = routerRoutes(t.fastify.printRoutes({ commonPrefix: false }));
      const swept = new Set(routes.map((r) => `${r.method} ${r.path}`));
      expect([...served].filter((r) => !swept.has(r))).toEqual([]);
      expect(served.size).toBeGreaterThanOrEqual(50);
    } finally {
      await t.close();
    }
  });

  // ---- generators ----------------------------------------------------------------------------

  const hugeString = 'x'.repeat(200_000);
  const weirdStrings = () =>
    fc.constantFrom(
      '',
      ' ',
      '\u0000',
      'a\u0000b',
      '\uFFFF',
      '\uD800',
      '😀'.repeat(20),
      'null',
      'true',
      '-1',
      '0',
      '1e309',
      '2147483648',
      '9007199254740993',
      "' OR 1=1 --",
      '<script>alert(1)</script>',
      '../../etc/passwd',
      '%00',
      '\r\nX-Injected: 1',
      '\t',
      'a\u2028b',
      '\u0085',
      'x'.repeat(5000),
      hugeString,
    );
  const anyJson = (): fc.Arbitrary<unknown> =>
    fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      weirdStrings(),
      fc.constantFrom(2 ** 53 + 1, -0, 1e308, -1, 0, 2 ** 31),
      fc.array(fc.oneof(fc.string({ maxLength: 10 }), fc.integer()), { maxLength: 5 }),
      fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
      fc.constant(Array.from({ length: 2000 }, (_, i) => i)),
    );
  const fixtureStrings = () =>
    fc.constantFrom(
      'contacts',
      'deals',
      'tickets',
      'companies',
      'project',
      'https://app.example.com/oauth/callback',
      // Control characters in redirect URLs (refused at registration, issue 14).
      'https://app.example.com/oauth/callback\t',
      'https://app.example.com/oauth/cal\r\nlback',
      'https://app.example.com/oauth/callback\u2028',
      'oauth',
      'developers-read',
      'crm.schemas.custom.write',
      'calculation_equation',
      'number',
      'string',
      'text',
      'enterprise',
      'free',
      'S256',
      'score * 2',
      'title',
      'CONTACT',
      'STRING',
      'APP_CARD',
    );

  function plausible(schema: Schema | undefined, depth: number): fc.Arbitrary<unknown> {
    if (!schema) return anyJson();
    if (schema.$ref) return depth > 3 ? anyJson() : shaped(schema.$ref.replace('#/components/schemas/', ''), depth + 1);
    if (schema.allOf?.[0]) return plausible(schema.allOf[0], depth);
    if (schema.enum) return fc.constantFrom(...schema.enum);
    switch (schema.type) {
      case 'string':
        return fc.oneof(fc.string({ maxLength: 20 }), fixtureStrings(), fc.constantFrom(ctx.cardId, ctx.appCardId));
      case 'integer':
      case 'number':
        return fc.oneof(fc.constantFrom(ctx.hubId, ctx.userId, ctx.appId, 1), fc.integer());
      case 'boolean':
        return fc.boolean();
      case 'array':
        return fc.array(valueFor(schema.items, depth + 1), { maxLength: 4 });
      default:
        return anyJson();
    }
  }
  const valueFor = (schema: Schema | undefined, depth: number) =>
    fc.oneof({ arbitrary: plausible(schema, depth), weight: 3 }, { arbitrary: anyJson(), weight: 1 });

  /** Objects with the schema's field names, any subset, values of the right type or of any other. */
  function shaped(name: string, depth = 0): fc.Arbitrary<Record<string, unknown>> {
    const s = docs.components.schemas[name];
    const props = s?.properties ?? {};
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [k, v] of Object.entries(props)) model[k] = valueFor(v, depth);
    return fc
      .tuple(
        fc.record(model, { requiredKeys: [] }),
        fc.dictionary(fc.string({ maxLength: 10 }), anyJson(), { maxKeys: 2 }),
      )
      .map(([known, extra]) => ({ ...extra, ...known }));
  }

  /** Credentials of every kind, for any route. */
  const authorization = () =>
    fc.oneof(
      { arbitrary: fc.constant(null), weight: 3 },
      { arbitrary: fc.constant(`Bearer ${ctx.accessToken}`), weight: 4 },
      { arbitrary: fc.constant(`Bearer ${TEST_ADMIN_KEY}`), weight: 3 },
      fc.constant(`Bearer ${ctx.refreshToken}`),
      fc.constant(`Bearer ${ctx.code}`),
      fc.constant(`Bearer ${ctx.clientSecret}`),
      fc.constant(`Bearer ${ctx.accessToken.slice(0, -3)}abc`),
      fc.constant(`Bearer ${ctx.accessToken.slice(0, 40)}`),
      fc.constant(`Bearer ${'A'.repeat(12_000)}`),
      fc.constant('Bearer '),
      fc.constant('Bearer a b c'),
      fc.constant(`bearer ${ctx.accessToken}`),
      fc.constant(`Basic ${Buffer.from(`${ctx.clientId}:${ctx.clientSecret}`).toString('base64')}`),
      fc.constant(`Basic ${Buffer.from(`${ctx.clientId}:${ctx.accessToken}`).toString('base64')}`),
      fc.constant('Basic %%%'),
      fc.constant('Basic ' + Buffer.from('no-colon').toString('base64')),
      fc.constant(`Token ${ctx.accessToken}`),
      fc.string({ maxLength: 40 }).map((s) => `Bearer ${s.replace(/[\r\n]/g, '')}`),
    );

  const contentType = () =>
    fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'application/json; charset=utf-16',
      'application/x-www-form-urlencoded',
      'application/x-www-form-urlencoded; charset=iso-8859-1',
      'multipart/form-data; boundary=x',
      'text/plain',
      'application/xml',
      'application/octet-stream',
      '',
      'application/json, text/plain',
      'application/vnd.api+json',
      '*/*',
      ';;;',
    );

  /** Path parameters: the right value, another fixture's, numbers out of range, bad encodings, huge. */
  function paramValue(name: string): fc.Arbitrary<string> {
    const right: Record<string, string[]> = {
      hubId: [String(ctx.hubId)],
      portalId: [String(ctx.hubId)],
      userId: [String(ctx.userId)],
      appId: [String(ctx.appId)],
      cardId: [ctx.cardId, ctx.appCardId],
      token: [ctx.accessToken, ctx.refreshToken, ctx.code],
      objectType: ['contacts', 'deals', 'companies', 'tickets', 'project', '0-1', '2-123'],
      propertyName: ['score_x2', 'email'],
      asset: ['swagger-ui.css', 'favicon-32x32.png', 'nope.js'],
      unknown: ['nope', 'crm', 'v3'],
    };
    return fc.oneof(
      { arbitrary: fc.constantFrom(...(right[name] ?? ['x'])), weight: 4 },
      {
        arbitrary: fc.constantFrom(
          '0',
          '-1',
          '2147483648',
          '99999999999999999999',
          '1.5',
          '0x10',
          '1e3',
          '+1',
          ' 1',
          'NaN',
        ),
        weight: 2,
      },
      { arbitrary: fc.string({ maxLength: 30 }).map((s) => encodeURIComponent(s)), weight: 2 },
      { arbitrary: fc.string({ unit: 'binary', maxLength: 20 }).map((s) => encodeURIComponent(s)), weight: 1 },
      {
        arbitrary: fc.constantFrom(
          '%',
          '%zz',
          '%C0%AF',
          '%ED%A0%80',
          '%FF%FE',
          '%00',
          'a%00b',
          '..',
          '%2e%2e%2f',
          '%2F',
          '%25',
          '~',
          "'",
          '%0d%0a',
          '%09',
          '%E2%80%A8',
          '%7F',
        ),
        weight: 2,
      },
      { arbitrary: fc.constantFrom('a'.repeat(2100), '9'.repeat(300)), weight: 1 },
    );
  }

  const queryNames = [
    'after',
    'limit',
    'stream',
    'type',
    'archived',
    'properties',
    'client_id',
    'redirect_uri',
    'scope',
    'scopes',
    'optional_scope',
    'state',
    'code_challenge',
    'code_challenge_method',
    'refresh_token',
    'client_secret',
    'grant_type',
  ];
  const queryValue = () =>
    fc.oneof(
      fc.string({ maxLength: 20 }).map(encodeURIComponent),
      fc.constantFrom(
        '1',
        '0',
        '-1',
        'true',
        'false',
        '',
        '100000000000',
        'contacts',
        'oauth',
        '%zz',
        '%00',
        '%C0%AF',
        'a'.repeat(3000),
      ),
      fc.constantFrom(
        ctx.clientId,
        encodeURIComponent('https://app.example.com/oauth/callback'),
        encodeURIComponent('https://app.example.com/oauth/callback\t'),
        '%E2%80%A8',
      ),
    );
  /**
   * Secrets where a client may put them (the token endpoint reads client_secret and refresh_token
   * from the query), under names spelled as the query parser decodes them: they must be redacted
   * in the log however the name is written. (A secret under a name that is not a secret's, such as
   * `?limit=<secret>`, is the client's own leak and cannot be recognised, so none is sent.)
   */
  const secretQueryPair = () =>
    fc.tuple(
      fc.constantFrom(
        'refresh_token',
        'refresh%5Ftoken',
        'refresh%5ftoken',
        '%72efresh_token',
        'client_secret',
        'client%5Fsecret',
        'Client_Secret',
        'code',
        '%63ode',
        'access_token',
        'access%5Ftoken',
        'hapikey',
        'h%61pikey',
      ),
      fc.constantFrom(ctx.refreshToken, ctx.clientSecret, ctx.code, ctx.accessToken),
    );
  const query = () =>
    fc
      .array(
        fc.oneof(
          {
            arbitrary: fc.tuple(
              fc.oneof(fc.constantFrom(...queryNames), fc.string({ maxLength: 6 }).map(encodeURIComponent)),
              queryValue(),
            ),
            weight: 5,
          },
          { arbitrary: secretQueryPair(), weight: 1 },
        ),
        {
          maxLength: 5,
        },
      )
      .chain((pairs) =>
        // Duplicate parameters on purpose, sometimes.
        fc.boolean().map((dup) => (dup && pairs.length > 0 ? [...pairs, pairs[0]!] : pairs)),
      )
      .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`));

  const formNames = [
    'grant_type',
    'code',
    'redirect_uri',
    'client_id',
    'client_secret',
    'refresh_token',
    'code_verifier',
    '_csrf',
    'request',
    'email',
    'password',
    'hub_id',
    'portal_id',
    'decision',
  ];
  const formValue = () =>
    fc.oneof(
      fc.constantFrom(
        'authorization_code',
        'refresh_token',
        'password',
        'approve',
        'deny',
        'https://app.example.com/oauth/callback',
      ),
      fc.constantFrom(
        ctx.clientId,
        ctx.clientSecret,
        ctx.refreshToken,
        ctx.code,
        ctx.accessToken,
        TEST_ADMIN_KEY,
        String(ctx.hubId),
      ),
      fc.string({ maxLength: 20 }),
      weirdStrings(),
    );
  const formBody = () =>
    fc
      .array(fc.tuple(fc.constantFrom(...formNames), formValue()), { maxLength: 7 })
      .chain((pairs) =>
        fc
          .constantFrom('urlencoded', 'raw')
          .map((how) =>
            how === 'urlencoded'
              ? new URLSearchParams(pairs).toString()
              : pairs.map(([k, v]) => `${k}=${v.slice(0, 100)}`).join('&') + '&%zz=%&=&&a=%00',
          ),
      );

  // Issue 14's bodies: about 1 MB each, to stall the parser (or the validators) if they got that far.
  const deepArrays = '['.repeat(500_000) + ']'.repeat(500_000);
  const manyKeys = `{${Array.from({ length: 45_000 }, (_, i) => `"constructor":${i}`).join(',')}}`;
  const brokenJson = () =>
    fc.constantFrom(
      '{',
      '{"a":',
      '[1,2',
      'nul',
      '{"a":1}garbage',
      '\uFEFF{}',
      '{"a":"\u0000"}',
      '{"__proto__":{"polluted":1}}',
      '{"constructor":{"prototype":{"polluted":1}}}',
      '"just a string"',
      '12',
      '[]',
      '[{}]',
      '['.repeat(20_000) + ']'.repeat(20_000),
      '{"a":'.repeat(5000) + '1' + '}'.repeat(5000),
      '{"a":1,"a":2}',
      deepArrays,
      manyKeys,
    );

  function body(route: Route): fc.Arbitrary<{ type: string | null; bytes: Buffer | null }> {
    const json = (a: fc.Arbitrary<unknown>) =>
      a.map((v) => ({ type: 'application/json', bytes: Buffer.from(JSON.stringify(v) ?? 'null') }));
    const options: Array<fc.WeightedArbitrary<{ type: string | null; bytes: Buffer | null }>> = [
      { arbitrary: fc.constant({ type: null, bytes: null }), weight: 2 },
      { arbitrary: json(anyJson()), weight: 1 },
      { arbitrary: brokenJson().map((s) => ({ type: 'application/json', bytes: Buffer.from(s) })), weight: 2 },
      {
        arbitrary: formBody().map((s) => ({ type: 'application/x-www-form-urlencoded', bytes: Buffer.from(s) })),
        weight: 2,
      },
      {
        arbitrary: fc.constantFrom(
          {
            type: 'application/json',
            bytes: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0x22, 0x7d]),
          },
          {
            type: 'application/x-www-form-urlencoded',
            bytes: Buffer.from([0x61, 0x3d, 0xff, 0xfe, 0x26, 0x62, 0x3d, 0xc0]),
          },
          { type: 'application/json', bytes: Buffer.alloc(0) },
          { type: 'application/json', bytes: Buffer.alloc(1_500_000, 0x20) },
          { type: 'application/x-www-form-urlencoded', bytes: Buffer.from(`a=${'b'.repeat(1_200_000)}`) },
          { type: 'text/plain', bytes: Buffer.from('hello') },
          { type: 'application/json', bytes: Buffer.from('\u0000\u0000\u0000') },
        ),
        weight: 1,
      },
    ];
    if (route.bodySchema) options.push({ arbitrary: json(shaped(route.bodySchema)), weight: 6 });
    return fc.oneof(...options);
  }

  function request(route: Route): fc.Arbitrary<Generated> {
    const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    return fc
      .record({
        method: fc.oneof(
          { arbitrary: fc.constant(route.method), weight: 8 },
          {
            arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND'),
            weight: 2,
          },
        ),
        params: fc.tuple(...names.map((n) => paramValue(n))),
        query: query(),
        auth: authorization(),
        body: body(route),
        otherType: fc.option(contentType(), { freq: 4 }),
        spelling: fc.constantFrom<Spelling>('plain', 'plain', 'plain', 'plain', 'plain', 'encoded', 'absolute', 'both'),
        extra: fc.subarray([
          ['Cookie', 'hs_install=garbage; other=%zz'] as [string, string],
          ['X-Forwarded-For', '1.2.3.4, <script>'] as [string, string],
          ['Accept', 'text/html'] as [string, string],
          ['Authorization', `Bearer ${TEST_ADMIN_KEY}`] as [string, string], // a second Authorization header
          ['Content-Type', 'application/json'] as [string, string], // a second Content-Type header
          ['Origin', 'https://evil.example.com'] as [string, string],
        ]),
      })
      .map(({ method, params, query: q, auth, body: b, otherType, spelling, extra }) => {
        let i = 0;
        const path = spelled(route.path, spelling).replace(/\{(\w+)\}/g, () => params[i++]!);
        const headers: Array<[string, string]> = [];
        if (auth !== null) headers.push(['Authorization', auth]);
        const type = otherType ?? b.type;
        if (type !== null && (b.bytes !== null || otherType !== null)) headers.push(['Content-Type', type]);
        headers.push(...extra);
        return { route, method, path, query: q, headers, body: b.bytes };
      });
  }

  const anyRequest = () => fc.constantFrom(...routes).chain((r) => request(r));

  /**
   * The route's path as another client may spell it, all reaching the same route: letters of its
   * fixed segments percent-encoded (`/%6Fauth/v1/refresh%2Dtokens/...`), or an absolute-form request
   * target (`GET http://host:port/oauth/...`), or both.
   */
  function spelled(template: string, how: Spelling): string {
    let path = template;
    if (how === 'encoded' || how === 'both') {
      let n = 0;
      path = template.replace(/\{\w+\}|[a-z-]/g, (part) => {
        if (part.length > 1) return part; // a {param}: filled in later, as generated
        n++;
        if (n % 3 !== 1) return part;
        const hex = part.charCodeAt(0).toString(16);
        return `%${n % 2 === 0 ? hex : hex.toUpperCase()}`;
      });
    }
    return how === 'absolute' || how === 'both' ? `http://127.0.0.1:${ctx.port}${path}` : path;
  }

  async function send(g: Generated): Promise<void> {
    let r: RawResponse;
    try {
      r = await rawRequest(ctx.port, encode(g, ctx.port), 20_000);
    } catch (error) {
      // A body over the limit may be refused by closing the connection while the client is still
      // writing it: the TCP reset can then reach the client before the 413 it was sent. That is
      // the server refusing the body, not a failure; anything else (a timeout above all) is.
      const code = (error as NodeJS.ErrnoException).code;
      if ((code === 'EPIPE' || code === 'ECONNRESET') && (g.body?.length ?? 0) > SMALLEST_BODY_LIMIT) {
        statuses.set(0, (statuses.get(0) ?? 0) + 1);
        return;
      }
      failures.push(`${(error as Error).message}: ${describeRequest(g)}`);
      return;
    }
    statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    const problems = problemsOf(g, r, [ctx.clientSecret, TEST_ADMIN_KEY]);
    if (problems.length > 0)
      failures.push(
        `${problems.join('; ')} ← ${describeRequest(g)} → ${r.status} ${r.body.toString('utf8').slice(0, 200)}`,
      );
  }

  // ---- the sweep -----------------------------------------------------------------------------

  it(`${REQUESTS} generated requests: no 5xx, no hang, every error a HubSpot Error, no memory leak`, async () => {
    const generated = fc.sample(anyRequest(), { numRuns: WARM_UP + REQUESTS, seed: SEED });
    const started = Date.now();
    // Warm-up: JIT, caches, V8's heap and the allocator reach their working size.
    await inPool(generated.slice(0, WARM_UP), CONCURRENCY, send);
    const samples: Array<{ requests: number; memory: MemoryAfterGc }> = [
      { requests: 0, memory: await memoryAfterGc(service!) },
    ];
    const rest = generated.slice(WARM_UP);
    for (let i = 0; i < rest.length; i += SAMPLE_EVERY) {
      const chunk = rest.slice(i, i + SAMPLE_EVERY);
      await inPool(chunk, CONCURRENCY, send);
      samples.push({ requests: i + chunk.length, memory: await memoryAfterGc(service!) });
    }
    const seconds = (Date.now() - started) / 1000;

    const histogram = [...statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}×${n}`)
      .join(' ');
    const width = Math.max(...MEMORY_SERIES.map((m) => m.name.length));
    const checked = memoryVerdicts(samples);
    process.stdout.write(
      `bad-input sweep (seed ${SEED}): ${generated.length} requests in ${seconds.toFixed(1)} s; statuses ${histogram}\n` +
        `memory after GC (MB), after the ${WARM_UP} warm-up requests, then every ${SAMPLE_EVERY}:\n` +
        MEMORY_SERIES.map(
          (m) => `  ${m.name.padEnd(width)}  ${samples.map((x) => mb(m.of(x.memory))).join(' ')}\n`,
        ).join('') +
        `growth in bytes per request, window by window (${LEAK_WINDOWS} windows from sample ${SETTLE_SAMPLES + 1} on; a leak grows in every one):\n` +
        checked
          .map(
            (c) =>
              `  ${c.name.padEnd(width)}  ${c.windowSlopes.map((v) => v.toFixed(0)).join(' / ')}` +
              ` → ${c.sustainedSlope.toFixed(0)} (leak above ${c.maxBytesPerRequest}` +
              `${c.confirmingSlope === undefined ? '' : `, and only with rss above it too: rss ${c.confirmingSlope.toFixed(0)}`})` +
              `${c.leaks ? '  LEAK' : ''}\n`,
          )
          .join(''),
    );
    // Server errors first: they matter most.
    const ordered = [
      ...failures.filter((f) => /status 5\d\d/.test(f)),
      ...failures.filter((f) => !/status 5\d\d/.test(f)),
    ];
    expect({ count: failures.length, first: ordered.slice(0, 20) }).toEqual({ count: 0, first: [] });
    // Reached the handlers, not only the router: successes and many kinds of refusal.
    for (const s of [200, 400, 401, 404, 413, 415]) {
      expect({ status: s, seen: (statuses.get(s) ?? 0) > 0 }).toEqual({ status: s, seen: true });
    }
    // Memory: no series grows in every window (growth that does not level off).
    expect(checked.filter((c) => c.leaks)).toEqual([]);
  });

  it("issue 14's shapes on every route: no 5xx, HubSpot errors, credentials before bodies, event loop responsive", async () => {
    const right: Record<string, string> = {
      hubId: String(ctx.hubId),
      portalId: String(ctx.hubId),
      userId: String(ctx.userId),
      appId: String(ctx.appId),
      cardId: ctx.cardId,
      token: ctx.refreshToken,
      objectType: 'contacts',
      propertyName: 'score_x2',
      asset: 'swagger-ui.css',
      unknown: 'nope',
    };
    const fill = (path: string) => path.replace(/\{(\w+)\}/g, (_, name: string) => right[name] ?? 'x');
    const json = (text: string) => Buffer.from(text);
    const shapes: Array<{ g: Generated; expect?: { status: number; message?: RegExp } }> = [];
    for (const route of routes) {
      const admin = route.path.startsWith('/admin/');
      const auth = admin ? `Bearer ${TEST_ADMIN_KEY}` : `Bearer ${ctx.accessToken}`;
      // The route as other clients spell it (only reads: a spelled DELETE would still delete).
      if (route.method === 'GET') {
        for (const how of ['encoded', 'absolute', 'both'] as const) {
          shapes.push({
            g: {
              route,
              method: 'GET',
              path: fill(spelled(route.path, how)),
              query: '',
              headers: [['Authorization', auth]],
              body: null,
            },
          });
        }
      }
      if (!['POST', 'PUT', 'PATCH'].includes(route.method)) continue;
      for (const body of [deepArrays, manyKeys]) {
        for (const credentials of [null, 'Bearer wrong-credentials', auth]) {
          const headers: Array<[string, string]> = [['Content-Type', 'application/json']];
          if (credentials !== null) headers.push(['Authorization', credentials]);
          const g: Generated = {
            route,
            method: route.method,
            path: fill(route.path),
            query: '',
            headers,
            body: json(body),
          };
          // The admin API: refused before the body without the key, the body refused unparsed with it.
          const expected = !admin
            ? undefined
            : credentials === auth
              ? { status: 400, message: /nested deeper than|more than \d+ keys/ }
              : { status: 401 };
          shapes.push({ g, ...(expected ? { expect: expected } : {}) });
        }
      }
    }
    const register = routes.find((r) => r.method === 'POST' && r.path === '/admin/v1/apps')!;
    for (const control of ['\t', '\r\n', '\n', '\u2028', '\u2029', '\u0000', '\u007f', '\u0085', '\u00a0', ' ']) {
      const body = {
        developerHubId: ctx.hubId,
        name: 'control characters',
        redirectUrls: [`https://app.example.com/oauth/call${control}back`],
        requiredScopes: ['oauth'],
      };
      shapes.push({
        g: {
          route: register,
          method: 'POST',
          path: '/admin/v1/apps',
          query: '',
          headers: [
            ['Authorization', `Bearer ${TEST_ADMIN_KEY}`],
            ['Content-Type', 'application/json'],
          ],
          body: json(JSON.stringify(body)),
        },
        expect: { status: 400, message: /redirect URL cannot contain control characters/ },
      });
    }

    const failuresBefore = failures.length;
    const wrong: string[] = [];
    await eventLoopMaxDelaySeconds(); // starts a new measuring period
    await inPool(shapes, 4, async ({ g, expect: expected }) => {
      await send(g);
      if (!expected) return;
      // A refusal of the credentials comes before the body: the head alone must get it. (With the
      // body, the server's close after its 401 can reset the connection while the client is still
      // writing, and the client may see that reset before the answer.)
      const request = encode(g, ctx.port);
      const r = await rawRequest(
        ctx.port,
        expected.status === 401 ? request.subarray(0, request.indexOf('\r\n\r\n') + 4) : request,
        20_000,
      );
      const text = r.body.toString('utf8');
      if (r.status !== expected.status || (expected.message && !expected.message.test(text)))
        wrong.push(`${describeRequest(g).slice(0, 160)} → ${r.status} ${text.slice(0, 200)}`);
    });
    const delay = await eventLoopMaxDelaySeconds();
    process.stdout.write(
      `issue 14 shapes: ${shapes.length} requests; longest event-loop delay ${(delay * 1000).toFixed(0)} ms\n`,
    );
    expect(failures.slice(failuresBefore).slice(0, 20)).toEqual([]);
    expect(wrong.slice(0, 20)).toEqual([]);
    expect(delay).toBeLessThan(MAX_EVENT_LOOP_DELAY_SECONDS);
  });

  it("issue 26's shapes: every array field 30,000 wide and trickled bodies: no 5xx, short answers, loop responsive", async () => {
    // The generated sweep may have revoked the app's token or uninstalled it: a fresh install's token.
    const fx = new HttpFixtures(service!.url, TEST_ADMIN_KEY);
    const fresh = await freshInstallToken(fx);
    expect(fresh.status).toBe(200);
    const right: Record<string, string> = {
      hubId: String(ctx.hubId),
      appId: String(ctx.appId),
      cardId: ctx.cardId,
      objectType: 'contacts',
      propertyName: 'score_x2',
    };
    const fill = (path: string) => path.replace(/\{(\w+)\}/g, (_, name: string) => right[name] ?? 'x');
    const wide: Generated[] = [];
    for (const route of routes) {
      if (!route.bodySchema) continue;
      const auth = route.path.startsWith('/admin/') ? TEST_ADMIN_KEY : fresh.body.access_token;
      for (const field of arrayPaths(docs, { $ref: `#/components/schemas/${route.bodySchema}` })) {
        wide.push({
          route,
          method: route.method,
          path: fill(route.path),
          query: '',
          headers: [
            ['Authorization', `Bearer ${auth}`],
            ['Content-Type', 'application/json'],
          ],
          body: Buffer.from(JSON.stringify(wideBody(field, WIDE))),
        });
      }
    }
    expect(wide.length).toBeGreaterThan(90);

    const failuresBefore = failures.length;
    const long: string[] = [];
    let refusedShort = 0;
    await eventLoopMaxDelaySeconds(); // starts a new measuring period
    await inPool(wide, 4, async (g) => {
      const r = await rawRequest(ctx.port, encode(g, ctx.port), 20_000);
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      const problems = problemsOf(g, r, [ctx.clientSecret, TEST_ADMIN_KEY]);
      if (problems.length > 0) failures.push(`${problems.join('; ')} ← ${describeRequest(g)} → ${r.status}`);
      // Never thousands of errors[] entries: a refusal is a few hundred bytes.
      if (r.body.length > 4096) long.push(`${describeRequest(g).slice(0, 160)} → ${r.status} ${r.body.length} bytes`);
      if (r.status === 400 && r.body.toString('utf8').includes('TOO_MANY_ITEMS')) refusedShort++;
    });
    const delay = await eventLoopMaxDelaySeconds();

    // Trickled bodies: a byte every 250 ms, never finished; each connection is cut at REQUEST_TIMEOUT_MS.
    const trickled = ['/oauth/v1/token', '/oauth/authorize/sign-in', '/crm/v3/properties/contacts', '/admin/v1/apps'];
    const cut = await Promise.all(
      [...trickled, ...trickled].map(async (path) => {
        const socket = connect({ host: '127.0.0.1', port: ctx.port });
        await once(socket, 'connect');
        const chunks: Buffer[] = [];
        socket.on('data', (c: Buffer) => chunks.push(c));
        socket.on('error', () => undefined);
        const type = path.startsWith('/oauth/') ? 'application/x-www-form-urlencoded' : 'application/json';
        // With the right credentials (without them, these routes answer 401 before reading a byte of the body).
        const key = path.startsWith('/admin/') ? TEST_ADMIN_KEY : fresh.body.access_token;
        const auth = path.startsWith('/oauth/') ? '' : `Authorization: Bearer ${key}\r\n`;
        socket.write(
          `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Type: ${type}\r\nContent-Length: 1000\r\n\r\n`,
        );
        const trickle = setInterval(() => {
          if (socket.writable && !socket.destroyed) socket.write('a', () => undefined);
        }, 250);
        const cap = setTimeout(() => socket.destroy(), 20_000);
        await once(socket, 'close');
        clearInterval(trickle);
        clearTimeout(cap);
        return { path, answer: Buffer.concat(chunks).toString('utf8') };
      }),
    );
    const notCut = cut.filter(
      ({ answer }) =>
        !/^HTTP\/1\.1 408 /.test(answer) ||
        !/"category":"TIMEOUT"/.test(answer) ||
        !/"correlationId":"[0-9a-f-]{36}"/.test(answer),
    );
    const live = await rawRequest(
      ctx.port,
      Buffer.from('GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
    );

    process.stdout.write(
      `issue 26 shapes: ${wide.length} wide-array requests (${refusedShort} refused TOO_MANY_ITEMS), longest event-loop delay ` +
        `${(delay * 1000).toFixed(0)} ms; ${cut.length} trickled bodies, ${cut.length - notCut.length} cut with 408\n`,
    );
    expect(failures.slice(failuresBefore).slice(0, 20)).toEqual([]);
    expect(long.slice(0, 20)).toEqual([]);
    expect(refusedShort).toBeGreaterThan(wide.length / 2);
    expect(delay).toBeLessThan(MAX_EVENT_LOOP_DELAY_SECONDS);
    expect(notCut.map((c) => `${c.path}: ${c.answer.slice(0, 120)}`)).toEqual([]);
    expect(live.status).toBe(200);
  });

  it('tokens of other kinds: only an access token opens the CRM API, only the admin key the admin API', async () => {
    // The sweep sent the app's own token to every route, the app's uninstall and the token revocation
    // among them, which stop it (as they should): the CRM API is opened here by a token of a new install.
    const fx = new HttpFixtures(service!.url, TEST_ADMIN_KEY);
    const fresh = await freshInstallToken(fx);
    expect(fresh.status).toBe(200);
    const kinds: Array<[string, string]> = [
      ['refresh token', `Bearer ${ctx.refreshToken}`],
      ['authorization code', `Bearer ${ctx.code}`],
      ['client secret', `Bearer ${ctx.clientSecret}`],
      ['admin key', `Bearer ${TEST_ADMIN_KEY}`],
      ['access token', `Bearer ${fresh.body.access_token}`],
      ['client credentials (Basic)', `Basic ${Buffer.from(`${ctx.clientId}:${ctx.clientSecret}`).toString('base64')}`],
    ];
    const wrong: string[] = [];
    for (const route of routes.filter((r) => r.documented)) {
      const crm = route.path.startsWith('/crm') && !route.path.endsWith('sample-response');
      const admin = route.path.startsWith('/admin/');
      if (!crm && !admin) continue;
      for (const [kind, auth] of kinds) {
        const path = route.path
          .replace('{hubId}', String(ctx.hubId))
          .replace('{userId}', String(ctx.userId))
          .replace('{appId}', String(ctx.appId))
          .replace('{cardId}', ctx.cardId)
          .replace('{objectType}', 'contacts')
          .replace('{propertyName}', 'nope');
        // GETs only when the credential is the right one: a DELETE must never run here.
        const opens = (crm && kind === 'access token') || (admin && kind === 'admin key');
        if (opens && route.method !== 'GET') continue;
        const g: Generated = {
          route,
          method: route.method,
          path,
          query: '',
          headers: [['Authorization', auth]],
          body: route.method === 'GET' || route.method === 'DELETE' ? null : Buffer.from('{}'),
        };
        if (g.body) g.headers.push(['Content-Type', 'application/json']);
        const r = await rawRequest(ctx.port, encode(g, ctx.port));
        const problems = problemsOf(g, r, [ctx.clientSecret, TEST_ADMIN_KEY]);
        if (problems.length > 0) wrong.push(`${kind} on ${route.method} ${route.path}: ${problems.join('; ')}`);
        if (!opens && r.status !== 401)
          wrong.push(`${kind} on ${route.method} ${route.path}: ${r.status}, expected 401`);
        if (opens && r.status === 401) wrong.push(`${kind} on ${route.method} ${route.path}: refused with 401`);
      }
    }
    expect(wrong).toEqual([]);

    // The token endpoint given the wrong kind of token: refused as a bad grant, never honoured.
    const asRefresh = await fx.refresh({ clientId: ctx.clientId, clientSecret: ctx.clientSecret }, ctx.accessToken);
    expect({ status: asRefresh.status, error: (asRefresh.body as unknown as { error: string }).error }).toEqual({
      status: 400,
      error: 'invalid_grant',
    });
    const asCode = await fx.token({
      grant_type: 'authorization_code',
      client_id: ctx.clientId,
      client_secret: ctx.clientSecret,
      redirect_uri: 'https://app.example.com/oauth/callback',
      code: ctx.refreshToken,
    });
    expect({ status: asCode.status, error: (asCode.body as unknown as { error: string }).error }).toEqual({
      status: 400,
      error: 'invalid_grant',
    });
    const metaOfRefresh = await fx.admin('GET', `/oauth/v1/access-tokens/${ctx.refreshToken}`);
    expect(metaOfRefresh.status).toBeGreaterThanOrEqual(400);
    expect(metaOfRefresh.status).toBeLessThan(500);
    const metaOfAccess = await fx.admin('GET', `/oauth/v1/refresh-tokens/${ctx.accessToken}`);
    expect(metaOfAccess.status).toBeGreaterThanOrEqual(400);
    expect(metaOfAccess.status).toBeLessThan(500);
  });

  it('is still healthy afterwards, and logged no bug', async () => {
    const ready = await rawRequest(
      ctx.port,
      Buffer.from(`GET /health/ready HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
    );
    expect(ready.status).toBe(200);
    expect(service!.output()).not.toContain('unhandled error');
    // However the request spelled a route or a secret's name, the log never holds a secret.
    expect(logLeaks).toEqual([]);
  });
});

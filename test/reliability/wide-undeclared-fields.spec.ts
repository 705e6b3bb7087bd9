import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpFixtures } from '../support/reliability-fixtures';
import {
  ensureBuilt,
  httpRequest,
  jsonRequest,
  startReliabilityService,
  stopService,
  type RunningService,
} from '../support/reliability-service';
import { TEST_ADMIN_KEY } from '../support/test-app';
import { arrayPaths, type OpenApiComponents, type Schema } from '../support/wide-arrays';

/** Another tenant's answers while one token sends these bodies (the review saw 445 ms p50, 1,157 ms p99). */
const MAX_P99_MS = 100;
const VICTIM_REQUESTS = 300;
/** The attacker stops at this many requests even if the victim is not done (bounded load). */
const MAX_ATTACK_REQUESTS = 3000;
/** Inside every raw bound (50,000 elements in an array, 10,000 members in an object), under 256 KiB. */
const WIDE_ARRAY = 40_000;
const WIDE_OBJECT = 9_000;

interface Operation {
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

/**
 * One app token sends bodies whose undeclared fields, top-level and nested inside declared ones,
 * hold wide arrays and wide objects, to every route that takes a JSON body, back to back (harder
 * than the review's 25 requests per 10 s), while another tenant's token reads its properties: the
 * other tenant's p99 stays under 100 ms, and no hostile body is answered 5xx.
 */
describe('reliability: undeclared wide fields do not stall other tenants', () => {
  let dataDir: string;
  let service: RunningService | undefined;

  beforeAll(() => ensureBuilt(), 180_000);
  afterAll(async () => {
    if (service) await stopService(service, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(`another tenant's p99 stays under ${MAX_P99_MS} ms`, async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'hs-rel-wide-'));
    service = await startReliabilityService({
      DATA_DIR: dataDir,
      SEED: 'none',
      ADMIN_API_KEY: TEST_ADMIN_KEY,
      RATE_LIMIT_ENABLED: 'true',
      // The attacker is not held back by its budget: what is measured is what a body costs.
      RATE_LIMIT_MAX: '1000000',
      LOG_LEVEL: 'info',
    });
    const fx = new HttpFixtures(service.url, TEST_ADMIN_KEY);
    const tenant = async () => {
      const account = await fx.account();
      const user = await fx.user([account.hubId]);
      const app = await fx.app(
        account.hubId,
        ['oauth', 'crm.schemas.contacts.read', 'crm.schemas.contacts.write'],
        ['crm.schemas.custom.read', 'crm.schemas.custom.write'],
      );
      const tokens = await fx.exchange(app, await fx.installCode(app.appId, account.hubId, user.userId));
      expect(tokens.status).toBe(200);
      return { hubId: account.hubId, appId: app.appId, token: tokens.body.access_token as string };
    };
    const attacker = await tenant();
    const victim = await tenant();

    const docs = (await fx.admin('GET', '/docs/json')).body as OpenApiComponents & {
      paths: Record<string, Record<string, Operation>>;
    };
    const wideArray = Array.from({ length: WIDE_ARRAY }, () => ({}));
    const wideObject = Object.fromEntries(Array.from({ length: WIDE_OBJECT }, (_, i) => [`k${i}`, {}]));
    const bodies: Array<{ method: string; path: string; body: string }> = [];
    for (const [template, operations] of Object.entries(docs.paths)) {
      if (template.startsWith('/admin/')) continue; // the admin key is not a tenant's
      const path = template
        .replace('{appId}', String(attacker.appId))
        .replace('{objectType}', 'contacts')
        .replace(/\{\w+\}/g, 'x1');
      for (const [method, operation] of Object.entries(operations)) {
        const schema = operation.requestBody?.content?.['application/json']?.schema;
        if (!schema) continue;
        // Top level, and inside the element of each declared array (the first nested place a DTO walks).
        const places: Array<Array<string | number>> = [[], ...arrayPaths(docs, schema).map((p) => [...p, 0])];
        for (const place of places) {
          for (const wide of [wideArray, wideObject]) {
            let value: unknown = { junk: wide };
            for (let i = place.length - 1; i >= 0; i--) {
              const key = place[i]!;
              value = typeof key === 'number' ? [value] : { [key]: value };
            }
            bodies.push({ method: method.toUpperCase(), path, body: JSON.stringify(value) });
          }
        }
      }
    }
    // The review's own body: 85,000 empty objects (255 KB) in an undeclared field of a schema create.
    bodies.push({
      method: 'POST',
      path: '/crm/v3/schemas',
      body: JSON.stringify({ junk: Array.from({ length: 85_000 }, () => ({})) }),
    });
    expect(bodies.length).toBeGreaterThan(100);

    let victimDone = false;
    let sent = 0;
    const serverErrors: string[] = [];
    const attack = (async () => {
      while (!victimDone && sent < MAX_ATTACK_REQUESTS) {
        const b = bodies[sent++ % bodies.length]!;
        // The body is sent as the string it was encoded into once: this process stays light, so the
        // times measured below are the service's.
        const r = await httpRequest(`${service!.url}${b.path}`, {
          method: b.method,
          headers: { authorization: `Bearer ${attacker.token}`, 'content-type': 'application/json' },
          body: b.body,
        });
        if (r.status >= 500) serverErrors.push(`${b.method} ${b.path} → ${r.status} ${r.body.slice(0, 200)}`);
      }
    })();
    const latencies: number[] = [];
    for (let i = 0; i < VICTIM_REQUESTS; i++) {
      const started = performance.now();
      const r = await jsonRequest(`${service.url}/crm/v3/properties/contacts`, {
        headers: { authorization: `Bearer ${victim.token}` },
      });
      latencies.push(performance.now() - started);
      expect(r.status).toBe(200);
    }
    victimDone = true;
    await attack;

    latencies.sort((a, b) => a - b);
    const p = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
    process.stdout.write(
      `undeclared wide fields: ${sent} hostile requests over ${bodies.length} bodies; other tenant p50 ${p(0.5).toFixed(1)} ms, p99 ${p(0.99).toFixed(1)} ms\n`,
    );
    expect(serverErrors.slice(0, 10)).toEqual([]);
    expect(sent).toBeGreaterThan(VICTIM_REQUESTS / 10); // the attack really ran alongside
    expect(p(0.99)).toBeLessThan(MAX_P99_MS);
  }, 240_000);
});

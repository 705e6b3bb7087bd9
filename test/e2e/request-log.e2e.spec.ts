import { installAndExchange, oauthFixture } from '../support/oauth-fixtures';
import { startTestApp, type TestApp } from '../support/test-app';

type Line = Record<string, unknown>;

/**
 * Issue 29: at the default level (`info`) each request writes one log line, once answered, with
 * what an operator needs (correlation id, method, routed path, redacted URL, status, time) and
 * never a token; at `warn` it writes none.
 */
describe('one log line per request', () => {
  describe('at info', () => {
    let t: TestApp;
    const lines: Line[] = [];
    let accessToken: string;

    beforeAll(async () => {
      t = await startTestApp({
        env: { LOG_LEVEL: 'info' },
        logDestination: { write: (line) => void lines.push(JSON.parse(line) as Line) },
      });
      accessToken = (await installAndExchange(t, await oauthFixture(t))).access_token;
    });
    afterAll(() => t.close());

    const linesOf = (correlationId: string) => lines.filter((l) => l.correlationId === correlationId);

    it('writes exactly one line for an answered request, with the fields an operator needs', async () => {
      const r = await t.inject({ method: 'GET', url: `/oauth/v1/access-tokens/${accessToken}` });
      expect(r.statusCode).toBe(200);
      const correlationId = String(r.headers['x-hubspot-correlation-id']);
      const mine = linesOf(correlationId);
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({
        level: 30,
        msg: 'request',
        method: 'GET',
        route: '/oauth/v1/access-tokens/:token',
        url: '/oauth/v1/access-tokens/[REDACTED]',
        status: 200,
        ms: expect.any(Number),
      });
      expect(JSON.stringify(lines)).not.toContain(accessToken);
      expect(JSON.stringify(lines)).not.toContain(accessToken.split('.')[2]);
    });

    it('writes one line for a refused request too, with its status, and none of its credentials', async () => {
      const r = await t.inject({
        method: 'GET',
        url: '/crm/v3/limits/custom-object-types?hapikey=0123456789abcdefABCDEF0123456789',
        headers: { authorization: `Bearer ${accessToken}x` },
      });
      expect(r.statusCode).toBe(401);
      const mine = linesOf(String(r.headers['x-hubspot-correlation-id']));
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({
        method: 'GET',
        route: '/crm/v3/limits/custom-object-types',
        url: '/crm/v3/limits/custom-object-types?hapikey=[REDACTED]',
        status: 401,
      });
      expect(JSON.stringify(mine)).not.toContain('0123456789abcdefABCDEF0123456789');
    });

    it('writes one line for an unrouted request, its route null', async () => {
      const r = await t.inject({ method: 'GET', url: '/no/such/route' });
      expect(r.statusCode).toBe(404);
      const mine = linesOf(String(r.headers['x-hubspot-correlation-id']));
      expect(mine).toEqual([expect.objectContaining({ route: null, url: '/no/such/route', status: 404 })]);
    });
  });

  describe('at warn', () => {
    let t: TestApp;
    const lines: string[] = [];
    beforeAll(async () => {
      t = await startTestApp({
        env: { LOG_LEVEL: 'warn' },
        logDestination: { write: (line) => void lines.push(line) },
      });
    });
    afterAll(() => t.close());

    it('writes no line for an answered request, and the metric is still recorded', async () => {
      const before = lines.length;
      expect((await t.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
      expect(lines.length).toBe(before);
      const metrics = await t.inject({ method: 'GET', url: '/metrics' });
      expect(metrics.body).toMatch(
        /http_request_duration_seconds_count\{method="GET",route="\/health\/live",status="200"\} 1/,
      );
    });
  });
});

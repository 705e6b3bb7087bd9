import { startTestApp, TestApp } from '../support/test-app';

const TOKEN = 'metrics-token-0123456789';

/** METRICS_TOKEN protects /metrics (issue 14, finding 11). */
describe('/metrics with METRICS_TOKEN', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ modules: [], env: { METRICS_TOKEN: TOKEN } });
  });
  afterAll(() => t.close());

  const scrape = (authorization?: string) =>
    t.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });

  it('answers 401 with a HubSpot error without the token or with a wrong one', async () => {
    for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, `Basic ${TOKEN}`]) {
      const r = await scrape(authorization);
      expect([authorization, r.statusCode]).toEqual([authorization, 401]);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      expect(r.json()).toMatchObject({ status: 'error', category: 'INVALID_AUTHENTICATION' });
      expect(r.body).not.toContain('process_cpu');
    }
  });

  it('serves the metrics with Authorization: Bearer <METRICS_TOKEN>', async () => {
    const r = await scrape(`Bearer ${TOKEN}`);
    expect(r.statusCode).toBe(200);
    expect(r.body).toContain('http_request_duration_seconds');
  });

  it('stays open when METRICS_TOKEN is not set', async () => {
    const open = await startTestApp({ modules: [] });
    try {
      expect((await open.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
    } finally {
      await open.close();
    }
  });
});

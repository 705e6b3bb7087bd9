import { SECURITY_HEADERS } from '../../src/shared/http/security-headers';
import { startTestApp, TestApp } from '../support/test-app';

describe('security headers over HTTP', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ modules: [] });
  });
  afterAll(async () => t.close());

  it('every JSON answer, success or error, carries the whole security header set', async () => {
    for (const url of ['/health/live', '/no/such/route', '/admin/v1/apps']) {
      const r = await t.inject({ method: 'GET', url });
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      for (const [name, value] of Object.entries(SECURITY_HEADERS))
        expect([url, name, r.headers[name]]).toEqual([url, name, value]);
    }
  });
});

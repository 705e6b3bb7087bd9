import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_SECURITY_HEADERS, DOCUMENT_SECURITY_HEADERS } from '../../src/platform/http/security-headers';
import { startTestApp, TestApp } from '../support/test-app';

describe('security headers over HTTP', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ modules: [] });
  });
  afterAll(async () => t.close());

  it('every JSON answer, success or error, carries the API security header set', async () => {
    for (const url of ['/health/live', '/no/such/route', '/admin/v1/apps']) {
      const r = await t.inject({ method: 'GET', url });
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      for (const [name, value] of Object.entries(API_SECURITY_HEADERS))
        expect([url, name, r.headers[name]]).toEqual([url, name, value]);
      expect([url, r.headers['x-dns-prefetch-control']]).toEqual([url, undefined]);
    }
  });

  it('the API docs page, an HTML document, carries the whole document set', async () => {
    const r = await t.inject({ method: 'GET', url: '/docs' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    for (const [name, value] of Object.entries(DOCUMENT_SECURITY_HEADERS))
      expect([name, r.headers[name]]).toEqual([name, value]);
  });

  it('HTML pages forbid framing with X-Frame-Options: DENY, as the README says', async () => {
    const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8');
    expect(readme).toContain('`X-Frame-Options: DENY`');
    const r = await t.inject({ method: 'GET', url: '/docs' });
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    expect(r.headers['x-frame-options']).toBe('DENY');
  });
});

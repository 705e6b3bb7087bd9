import { startTestApp, TestApp } from '../support/test-app';

/** The install page's session hooks (decrypt the cookie, write it back) run on its routes only. */
describe('install page session: hooks scoped to the page', () => {
  let t: TestApp;
  let routes: string;
  beforeAll(async () => {
    t = await startTestApp();
    routes = t.fastify.printRoutes({ includeHooks: true, commonPrefix: false });
  });
  afterAll(() => t.close());

  /**
   * The hooks printRoutes lists for one route: `label` is the route's line in the printed tree (a
   * nested route shows its last segments only); its hooks are the `•` lines below it.
   */
  function hooksOf(method: string, label: string): string {
    const lines = routes.split('\n');
    const start = lines.findIndex((l) => l.trimEnd().endsWith(`── ${label} (${method})`));
    expect(start).toBeGreaterThanOrEqual(0);
    const block: string[] = [];
    for (const line of lines.slice(start + 1)) {
      if (!line.includes('•')) break;
      block.push(line);
    }
    return block.join('\n');
  }

  it('attaches the session hooks to every install-page route', () => {
    for (const [method, path] of [
      ['GET', '/oauth/authorize'],
      ['GET', '/oauth/:portalId/authorize'],
      ['POST', '/sign-in'],
      ['POST', '/sign-out'],
      ['POST', '/account'],
      ['POST', '/decision'],
    ] as const) {
      const hooks = hooksOf(method, path);
      expect(hooks).toContain('installPageSessionOnRequest');
      expect(hooks).toContain('installPageSessionOnSend');
    }
  });

  it('leaves them off the token metadata GET and the token endpoint', async () => {
    expect(hooksOf('GET', '/oauth/v1/access-tokens/:token')).not.toContain('installPageSession');
    expect(hooksOf('POST', '/oauth/v1/token')).not.toContain('installPageSession');
    // and a session cookie sent to another route is not read or rewritten
    const res = await t.inject({
      method: 'GET',
      url: '/oauth/v1/access-tokens/nope',
      headers: { cookie: 'hs_install_session=x' },
    });
    expect(res.headers['set-cookie']).toBeUndefined();
  });
});

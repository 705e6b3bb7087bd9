import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildInstallUrl } from '../../src/directory/domain/install-url';

const ROOT = join(__dirname, '..', '..');

/**
 * docs/oauth.md's walk-through opens the demo app's install URL as written; it drifted from the demo
 * seed once (a required scope added to the seed, not to the page) and the page then refused it.
 */
describe("docs/oauth.md's install URL is the demo seed's", () => {
  it('equals the URL the service prints for the demo app (plus the state the page adds)', () => {
    const seed = JSON.parse(readFileSync(join(ROOT, 'seed', 'demo.json'), 'utf8')) as {
      app: { clientId: string; redirectUrls: string[]; requiredScopes: string[]; optionalScopes?: string[] };
    };
    const expected = buildInstallUrl('http://127.0.0.1:3000/oauth/authorize', {
      ...seed.app,
      optionalScopes: seed.app.optionalScopes ?? [],
    });
    const docs = readFileSync(join(ROOT, 'docs', 'oauth.md'), 'utf8');
    const written = docs.match(/^http:\/\/127\.0\.0\.1:3000\/oauth\/authorize\?\S+$/m)?.[0];
    expect(written).toBe(`${expected}&state=my%20state`);
  });
});

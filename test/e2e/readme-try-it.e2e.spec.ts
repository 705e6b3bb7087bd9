import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DemoSeeder } from '../../src/directory/index';
import { killLeftovers, personEnv, ROOT, run } from '../support/first-run';
import { formFields } from '../support/install-page-browser';
import { ensureBuilt, freePort } from '../support/service-process';

/**
 * README's "Try it in two minutes", as written: `npm start` (the demo), the install through the
 * page as a browser does it, then examples/api-client.mjs (which the README quotes verbatim) run
 * with the address the browser landed on.
 */
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const EXAMPLE = 'examples/api-client.mjs';

/** A browser over fetch: keeps cookies, follows nothing by itself, submits the forms the page rendered. */
class Browser {
  private readonly cookies = new Map<string, string>();
  constructor(private readonly base: string) {}

  async get(url: string): Promise<Response> {
    return this.keep(await fetch(new URL(url, this.base), { redirect: 'manual', headers: this.cookieHeader() }));
  }

  async submit(page: string, action: string, fields: Record<string, string>): Promise<Response> {
    const body = new URLSearchParams({ ...formFields(page, action), ...fields }).toString();
    return this.keep(
      await fetch(new URL(action, this.base), {
        method: 'POST',
        redirect: 'manual',
        headers: { ...this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
        body,
      }),
    );
  }

  private cookieHeader(): Record<string, string> {
    return this.cookies.size === 0 ? {} : { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
  }

  private keep(response: Response): Response {
    for (const c of response.headers.getSetCookie()) {
      const [pair, ...attributes] = c.split(';');
      const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
      if (value === '' || attributes.some((a) => /^\s*max-age=0$/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }
}

describe("README's Try it in two minutes", () => {
  let dataDir: string;
  beforeAll(() => {
    ensureBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'hs-readme-'));
  }, 120_000);
  afterAll(async () => {
    await killLeftovers();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(`quotes ${EXAMPLE} verbatim`, () => {
    const example = readFileSync(join(ROOT, EXAMPLE), 'utf8');
    expect(README).toContain(`\`\`\`js\n${example}\`\`\``);
  });

  it(`installs the demo app through the page, then ${EXAMPLE} exchanges the code and calls the API`, async () => {
    const seed = DemoSeeder.load();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const service = run(
      process.execPath,
      ['scripts/start.mjs'],
      personEnv({ HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir }),
    );
    await service.waitFor(/Admin API key +\S+\n/);

    // The install URL the banner prints, opened in a browser: sign in, choose an account, connect.
    const installUrl = /^ {2}Install URL +(\S+)$/m.exec(service.stdout())![1]!;
    expect(installUrl.startsWith(`${base}/oauth/authorize?client_id=${seed.app.clientId}&`)).toBe(true);
    const browser = new Browser(base);
    const signIn = await browser.get(installUrl);
    expect(signIn.status).toBe(200);
    const signedIn = await browser.submit(await signIn.text(), '/oauth/authorize/sign-in', {
      email: seed.user.email,
      password: seed.user.password,
    });
    const chooser = await (await browser.get(signedIn.headers.get('location')!)).text();
    const hubId = /name="hub_id"\s+value="(\d+)"/.exec(chooser)![1]!;
    const chosen = await browser.submit(chooser, '/oauth/authorize/account', { hub_id: hubId });
    const consent = await (await browser.get(chosen.headers.get('location')!)).text();
    const approved = await browser.submit(consent, '/oauth/authorize/decision', { decision: 'approve' });
    expect(approved.status).toBe(302);
    const landedOn = approved.headers.get('location')!;
    expect(landedOn).toMatch(/^http:\/\/localhost:3001\/oauth\/callback\?code=/);

    // The README's snippet, as written, with the address the browser landed on.
    const snippet = run(process.execPath, [EXAMPLE, landedOn], personEnv({ HUBSPOT_BASE_URL: base }));
    const end = await snippet.ended(60_000);
    expect({ end, stderr: snippet.stderr() }).toEqual({ end: { code: 0, signal: null }, stderr: '' });
    const [installed, properties, contacts] = snippet.stdout().trim().split('\n');
    expect(installed).toMatch(new RegExp(`^Installed in hub ${hubId} \\(\\S+\\) with scopes: oauth( \\S+)+$`));
    expect(properties).toMatch(/^Contact properties: (\w+, )+\w+$/);
    // The demo seed's contacts, in whichever account the browser chose.
    expect(contacts).toMatch(/^Contacts: (\S+@\S+, )+\S+@\S+$/);

    service.child.kill('SIGINT');
    await service.ended();
  }, 120_000);
});

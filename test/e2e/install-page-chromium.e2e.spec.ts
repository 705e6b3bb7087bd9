import { existsSync } from 'node:fs';
import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Browser, chromium, Page } from 'playwright-core';
import { InstallPageModule } from '../../src/oauth/install-page/install-page.module';
import { createAccount, createApp, createUser, startTestApp, TestApp } from '../support/test-app';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) {
  process.stderr.write(
    `\n[install-page-chromium] SKIPPED: ${CHROMIUM} is missing (apt-get install -y chromium); the browser flow was NOT tested.\n\n`,
  );
}
const browserTest = HAVE_CHROMIUM ? it : it.skip;
/** INSTALL_PAGE_SCREENSHOTS=dir keeps a PNG of each step, to look at the pages. */
const SCREENSHOTS = process.env.INSTALL_PAGE_SCREENSHOTS;
const snap = async (page: Page, name: string) => {
  if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
};

jest.setTimeout(60_000);

/** Stands in for the app's callback endpoint: records what the browser was redirected to. */
class RedirectCatcher {
  private server!: Server;
  private waiting: Array<(url: URL) => void> = [];
  readonly caught: URL[] = [];
  base = '';

  async start(): Promise<void> {
    this.server = createServer((req: IncomingMessage, res) => {
      const url = new URL(req.url ?? '/', this.base);
      if (url.pathname === '/oauth/callback') {
        this.caught.push(url);
        this.waiting.splice(0).forEach((resolve) => resolve(url));
      }
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end('<!doctype html><title>Installed</title><h1>Installed</h1>');
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  next(): Promise<URL> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('OAuth install page in headless Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  const catcher = new RedirectCatcher();
  let app: Awaited<ReturnType<typeof createApp>>;
  let user: { email: string; password: string };
  let free: { hubId: number };
  const state = 'st@te with spaces & = + / ü 🚀';

  beforeAll(async () => {
    if (!HAVE_CHROMIUM) return;
    await catcher.start();
    t = await startTestApp({ modules: [InstallPageModule], listen: true });
    const dev = await createAccount(t, { tier: 'enterprise' });
    await createAccount(t, { domain: 'big-browser.example.com', tier: 'enterprise' }).then(async (big) => {
      free = await createAccount(t, { domain: 'small-browser.example.com', tier: 'free' });
      user = await createUser(t, { email: 'browser@example.com', hubIds: [big.hubId, free.hubId] });
    });
    app = await createApp(t, {
      developerHubId: dev.hubId,
      name: 'Browser Test App',
      redirectUrls: [`${catcher.base}/oauth/callback`],
      requiredScopes: ['oauth', 'crm.objects.contacts.read'],
      optionalScopes: ['crm.objects.custom.read', 'crm.lists.read'],
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });

  afterAll(async () => {
    if (!HAVE_CHROMIUM) return;
    await browser?.close();
    await t?.close();
    await catcher.close();
  });

  const installUrl = () =>
    `${t.url}/oauth/authorize?client_id=${app.clientId}&redirect_uri=${encodeURIComponent(`${catcher.base}/oauth/callback`)}` +
    `&scope=${encodeURIComponent('oauth crm.objects.contacts.read')}&optional_scope=${encodeURIComponent('crm.objects.custom.read crm.lists.read')}` +
    `&state=${encodeURIComponent(state)}`;

  browserTest('signs in, chooses an account, consents and lands on the redirect URI with code and state', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const response = await page.goto(installUrl());
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
      'Sign in to connect Browser Test App',
    );

    await snap(page, '1-sign-in');
    // Sign in with the keyboard only: labels lead to the fields, Enter submits.
    await page.getByLabel('E-mail address').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByLabel('Password').press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Choose an account' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/oauth/authorize');

    await snap(page, '2-account-chooser');
    const cookies = await context.cookies(`${t.url}/oauth/authorize`);
    const session = cookies.find((c) => c.name === 'hs_install_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/oauth' });

    // Account chooser: a radio group in a fieldset; arrow keys move the choice, the button submits.
    const group = page.getByRole('group', { name: 'Your accounts' });
    await expect(group.getByRole('radio').count()).resolves.toBe(2);
    await group.getByRole('radio', { name: /big-browser\.example\.com/ }).focus();
    await page.keyboard.press('ArrowDown');
    await expect(group.getByRole('radio', { name: /small-browser\.example\.com/ }).isChecked()).resolves.toBe(true);
    await page.getByRole('button', { name: 'Choose account' }).click();

    // Consent: app name, the scopes, and the optional scope a free account cannot use named as dropped.
    await page
      .getByRole('heading', { level: 1, name: 'Connect Browser Test App to small-browser.example.com' })
      .waitFor();
    expect(new URL(page.url()).pathname).toBe(`/oauth/${free.hubId}/authorize`);
    // Each scope in people's words with its raw name beside it, under the group HubSpot puts it in.
    const requiredGroup = page.getByRole('group', { name: 'Required permissions' });
    await expect(requiredGroup.getByRole('heading', { level: 2 }).allTextContents()).resolves.toEqual(['Basic', 'CRM']);
    const required = await requiredGroup.getByRole('listitem').allTextContents();
    expect(required).toEqual([
      'Connect through OAuth and keep its access (every app asks for it) oauth',
      'See contacts and their properties crm.objects.contacts.read',
    ]);
    await expect(requiredGroup.getByRole('listitem').last().locator('code').textContent()).resolves.toBe(
      'crm.objects.contacts.read',
    );
    const optional = await page
      .getByRole('group', { name: 'Optional permissions' })
      .getByRole('listitem')
      .allTextContents();
    expect(optional).toEqual(['See lists of records crm.lists.read']);
    await expect(page.locator('#unavailable-scopes').textContent()).resolves.toMatch(
      /See custom object records and their properties \(crm\.objects\.custom\.read\)/,
    );

    await snap(page, '3-consent');
    const caught = catcher.next();
    await page.getByRole('button', { name: 'Connect app' }).focus();
    await page.keyboard.press('Enter');
    const redirect = await caught;
    await page.waitForURL((u) => u.origin === catcher.base);
    expect(redirect.searchParams.get('state')).toBe(state);
    expect(redirect.searchParams.get('code')).toMatch(/^\S{16,}$/);
    expect([...redirect.searchParams.keys()]).toEqual(['code', 'state']);
    await context.close();
  });

  browserTest(
    'Cancel on the consent page lands on the redirect URI with error=access_denied and the state',
    async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(installUrl().replace('/oauth/authorize', `/oauth/${free.hubId}/authorize`));
      await page.getByLabel('E-mail address').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      // The account came with the URL: straight to consent.
      await page.getByRole('heading', { level: 1, name: /^Connect Browser Test App to small-browser/ }).waitFor();
      const caught = catcher.next();
      await page.getByRole('button', { name: 'Cancel' }).click();
      const redirect = await caught;
      expect(Object.fromEntries(redirect.searchParams)).toEqual({ error: 'access_denied', state });
      await context.close();
    },
  );

  browserTest('shows an error page, and stays on it, for an unregistered redirect URI', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const bad = installUrl().replace(
      encodeURIComponent(`${catcher.base}/oauth/callback`),
      encodeURIComponent(`${catcher.base}/oauth/callback/`),
    );
    const response = await page.goto(bad);
    expect(response?.status()).toBe(400);
    expect(page.url()).toBe(bad);
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/redirect/i);
    await snap(page, '4-error');
    expect(catcher.caught.some((u) => u.pathname !== '/oauth/callback')).toBe(false);
    await context.close();
  });
});

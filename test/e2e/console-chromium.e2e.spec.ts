import { Client } from '@hubspot/api-client';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser, BrowserContext, chromium, Page } from 'playwright-core';
import { ManualClock } from '../support/manual-clock';
import { installAndExchange, oauthFixture, type OAuthFixture } from '../support/oauth-fixtures';
import { startTestApp, type TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) {
  process.stderr.write(
    `\n[console-chromium] SKIPPED: ${CHROMIUM} is missing (apt-get install -y chromium); the console was NOT tested in a browser.\n\n`,
  );
}
const browserTest = HAVE_CHROMIUM ? it : it.skip;
/** CONSOLE_SCREENSHOTS=dir keeps the screenshots there; otherwise in a fresh temp dir (printed). */
const SHOTS = process.env.CONSOLE_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'console-shots-'));
const WIDTHS = [1280, 390] as const;

jest.setTimeout(120_000);

const SCOPES = [
  'oauth',
  'crm.objects.contacts.read',
  'crm.objects.contacts.write',
  'crm.objects.companies.read',
  'crm.objects.companies.write',
];

/**
 * The console in headless Chromium: sign in with the admin key, walk every page at 1280 and 390 px
 * (a screenshot of each, no horizontal overflow, the content asserted), perform every action from
 * its form, follow the live tail, and grep every page rendered for every secret this test made.
 */
describe('console in headless Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let f: OAuthFixture;
  let receiver: WebhookReceiver;
  let tokens: { access_token: string; refresh_token: string };
  let developerApiKey: string;
  let crm: Client;
  let contactId: string;
  let contactCorrelationId: string;
  const rendered: Array<{ url: string; html: string }> = [];

  beforeAll(async () => {
    if (!HAVE_CHROMIUM) return;
    mkdirSync(SHOTS, { recursive: true });
    process.stderr.write(`[console-chromium] screenshots in ${SHOTS}\n`);
    // Real time: the webhook receiver's signatures and the live tail run on it.
    t = await startTestApp({
      listen: true,
      clock: new ManualClock(Date.now()),
      env: { WEBHOOK_TIMEOUT_MS: '500', WEBHOOK_POLL_MS: '20' },
    });
    receiver = await new WebhookReceiver().start();
    f = await oauthFixture(t, { requiredScopes: SCOPES, optionalScopes: [] });
    developerApiKey = (
      (await t.admin('POST', `/admin/v1/accounts/${f.hubId}/developer-api-keys`)).json() as { developerApiKey: string }
    ).developerApiKey;
    tokens = await installAndExchange(t, f);
    const dev = new Client({ developerApiKey, basePath: t.url });
    await dev.webhooks.settingsApi.configure(f.appId, {
      targetUrl: receiver.url,
      throttling: { maxConcurrentRequests: 5 },
    });
    await dev.webhooks.subscriptionsApi.create(f.appId, { eventType: 'contact.creation' as never, active: true });
    crm = new Client({ accessToken: tokens.access_token, basePath: t.url });
    const created = await fetch(`${t.url}/crm/v3/objects/contacts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ properties: { email: 'ada@example.com', firstname: '<script>alert(1)</script>Ada' } }),
    });
    expect(created.status).toBe(201);
    contactId = ((await created.json()) as { id: string }).id;
    contactCorrelationId = created.headers.get('x-hubspot-correlation-id')!;
    await crm.crm.contacts.basicApi.update(contactId, { properties: { lastname: 'Lovelace' } });
    // A company associated with the contact (the unlabeled contact-to-company type, 279).
    const company = await crm.crm.companies.basicApi.create({
      properties: { name: 'Analytical Engines Ltd' },
      associations: [],
    });
    await crm.crm.associations.v4.basicApi.createDefault('contact', contactId, 'company', company.id);
    await receiver.waitFor(() => receiver.requests.length >= 1, 'the first webhook delivery');
    await deliveredOnce();

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
  });

  afterAll(async () => {
    if (!HAVE_CHROMIUM) return;
    await browser?.close();
    await receiver?.stop();
    await t?.close();
  });

  /** The delivery log shows the first attempt (bounded wait for the read model, not a sleep of a guessed length). */
  async function deliveredOnce(): Promise<{ id: string; attempts: number }> {
    for (let i = 0; i < 250; i++) {
      const r = (await t.admin('GET', `/admin/v1/apps/${f.appId}/webhook-deliveries`)).json() as {
        results: Array<{ id: string; attempts: number }>;
      };
      if (r.results[0] && r.results[0].attempts >= 1) return r.results[0];
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('no delivery attempt recorded within 5 s');
  }

  /** Opens a page at both widths: screenshot, no horizontal overflow, its HTML kept for the secrets grep. */
  async function visit(url: string, name: string): Promise<void> {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      const response = await page.goto(`${t.url}${url}`);
      expect([url, response?.status()]).toEqual([url, 200]);
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
      expect([url, width, overflow <= 0]).toEqual([url, width, true]);
      await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
      rendered.push({ url, html: await page.content() });
    }
  }

  async function submit(form: string, button: string): Promise<void> {
    await Promise.all([
      page.waitForNavigation(),
      page.locator(form).getByRole('button', { name: button, exact: true }).first().click(),
    ]);
    expect(page.url()).not.toContain('/sign-in');
    // An action that was refused lands on the error page, whose message is an alert.
    expect([form, button, await page.locator('[role=alert]').allTextContents()]).toEqual([form, button, []]);
    rendered.push({ url: page.url(), html: await page.content() });
  }

  browserTest('signs in with the keyboard, walks every page, performs every action, and shows no secret', async () => {
    // A wrong key first: refused, still on the sign-in page.
    await visit('/console/sign-in', 'sign-in');
    await page.getByLabel('Admin key').fill('wrong-admin-key-000000');
    await page.keyboard.press('Enter');
    await page.waitForLoadState();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('not this service’s admin key');

    await page.getByLabel('Admin key').fill(t.adminKey);
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    expect(new URL(page.url()).pathname).toBe('/console/accounts');

    await visit('/console/accounts', 'accounts');
    expect(await page.locator('main').textContent()).toContain(f.domain);

    await visit(`/console/accounts/${f.hubId}`, 'account');
    const account = (await page.locator('main').textContent())!;
    expect(account).toContain(f.email);
    expect(account).toContain('crm.objects.contacts.write');

    await visit('/console/apps', 'apps');
    await visit(`/console/apps/${f.appId}`, 'app');
    const app = (await page.locator('main').textContent())!;
    expect(app).toContain('https://app.example.com/oauth/callback');
    expect(app).toContain('contact.creation');
    expect(app).toContain('delivered');

    // Redeliver: a second attempt of the same delivery.
    const before = await deliveredOnce();
    await submit('main table', 'Redeliver');
    await receiver.waitFor(() => receiver.requests.length >= 2, 'the redelivery');
    for (let i = 0; i < 250 && (await deliveredOnce()).attempts < before.attempts + 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await visit(`/console/apps/${f.appId}?status=delivered`, 'app-delivered');
    expect(await page.locator('main').textContent()).toMatch(/#0 [\s\S]*#1 /); // attempt numbers count from 0

    // The install's actions, from the account page.
    await page.goto(`${t.url}/console/accounts/${f.hubId}`);
    await submit('main table', 'Expire access tokens now');
    expect(await page.locator('main').textContent()).toContain('0 s');
    await page.getByLabel('Seconds').fill('7200');
    await submit('main table', 'Move clock');
    expect(await page.locator('main').textContent()).toContain('7200 s');
    await visit('/console/controls', 'controls-clock');
    expect(await page.locator('main').textContent()).toContain('7200 s');
    await page.goto(`${t.url}/console/accounts/${f.hubId}`);
    await submit('main table', 'Reset clock');
    expect(await page.locator('main').textContent()).toContain('0 s');

    // Faults: set one from the page, see its count move, clear it.
    await page.goto(`${t.url}/console/controls`);
    await page
      .getByLabel('Fault (JSON')
      .fill('{"match": {"path": "/crm/v3/objects/**"}, "response": {"kind": "error", "status": 503}, "times": 1}');
    await submit('form[action="/console/controls/faults"]', 'Set fault');
    const faulted = await fetch(`${t.url}/crm/v3/objects/contacts/${contactId}`, {
      headers: { authorization: `Bearer ${(await freshAccessToken()).access_token}` },
    });
    expect(faulted.status).toBe(503);
    await visit('/console/controls', 'controls-fault');
    const faultRow = (await page.locator('main table').first().textContent())!;
    expect(faultRow).toMatch(/503[\s\S]*1\s*no/);
    await submit('main table', 'Clear');
    expect(await page.locator('main').textContent()).toContain('No faults set.');

    // Search lag.
    await page.getByLabel('ms', { exact: true }).first().fill('1500');
    await submit('main', 'Set');
    expect(await page.locator('main').textContent()).toContain('1500 ms');
    await visit('/console/controls', 'controls');

    // Records: the account's contacts, a search by e-mail, the record's history.
    await visit(`/console/records?hubId=${f.hubId}&type=0-1`, 'records');
    expect(await page.locator('main').textContent()).toContain('<script>alert(1)</script>Ada');
    // Found by CRM search, which sees what the search API sees: nothing newer than the 1500 ms lag set above.
    const search = `/console/records?hubId=${f.hubId}&type=0-1&property=email&operator=EQ&value=ada%40example.com`;
    await page.goto(`${t.url}${search}`);
    expect(await page.locator('main').textContent()).toContain('0 found');
    t.clock.advance(1500);
    await visit(search, 'records-search');
    expect(await page.locator('main table tbody tr').count()).toBe(1);
    await visit(`/console/records?hubId=${f.hubId}&type=0-1&q=lovelace`, 'records-search-text');
    expect(await page.locator('main table tbody tr').count()).toBe(1);
    await visit(`/console/records/${f.hubId}/0-1/${contactId}`, 'record');
    const record = (await page.locator('main').textContent())!;
    expect(record).toContain('Lovelace');
    expect(record).toContain(`INTEGRATION ${f.appId}`);
    expect(await page.locator('main table').nth(1).textContent()).toMatch(/Companies\s*\d+\s*HUBSPOT_DEFINED 279/);

    // The audit trail: newest first, filtered by account, and a correlation id's events.
    await visit(`/console/events?hubId=${f.hubId}`, 'events-account');
    const positions = await page.locator('main table tbody tr td:first-child').allTextContents();
    expect(positions.length).toBeGreaterThan(3);
    expect(positions.map(Number)).toEqual([...positions.map(Number)].sort((a, b) => b - a));
    await visit(`/console/events?correlationId=${contactCorrelationId}`, 'events-correlation');
    const correlated = (await page.locator('main table tbody').textContent())!;
    expect(correlated).toContain('RecordCreated');
    await visit('/console/events', 'events');

    // Uninstall last: the install leaves the account page.
    await page.goto(`${t.url}/console/accounts/${f.hubId}`);
    await submit('main table', 'Uninstall');
    expect(await page.locator('main').textContent()).toContain('No installs.');

    // Sign out: the console asks for the key again.
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign out' }).click()]);
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    await page.goto(`${t.url}/console/accounts`);
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');

    // No page showed any secret this test made, nor the hash a refresh token's stream is named by.
    const signatures = receiver.requests.flatMap((r) =>
      Object.entries(r.headers)
        .filter(([k]) => /^x-hubspot-signature(-v3)?$/i.test(k))
        .map(([, v]) => String(v)),
    );
    const secrets = [
      t.adminKey,
      f.clientSecret,
      tokens.access_token,
      tokens.refresh_token,
      developerApiKey,
      'correct horse battery staple',
      createHash('sha256').update(tokens.refresh_token).digest('hex'),
      ...signatures,
    ];
    expect(signatures.length).toBeGreaterThan(0);
    for (const { url, html } of rendered) {
      secrets.forEach((secret, i) => expect([url, i, html.includes(secret)]).toEqual([url, i, false]));
    }
  });

  browserTest('the live tail shows an event within 1 s of the request that caused it', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${t.url}/console/sign-in`);
    await page.getByLabel('Admin key').fill(t.adminKey);
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    await page.goto(`${t.url}/console/events?type=crm.RecordCreated`);
    await page.getByRole('button', { name: 'Follow live' }).click();
    await page.getByText('Following: new events appear at the top.').waitFor();
    const token = (await freshAccessToken()).access_token;
    const started = Date.now();
    const r = await fetch(`${t.url}/crm/v3/objects/contacts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ properties: { email: 'live@example.com' } }),
    });
    expect(r.status).toBe(201);
    await page.locator('main table tbody tr', { hasText: 'live@example.com' }).first().waitFor({ timeout: 5000 });
    const elapsed = Date.now() - started;
    process.stderr.write(`[console-chromium] live tail: the event showed ${elapsed} ms after the request was sent\n`);
    expect(elapsed).toBeLessThan(1000);
    await page.screenshot({ path: join(SHOTS, 'events-live-1280.png'), fullPage: true });
    expect(await page.content()).not.toContain(token);
  });

  /** The uninstall ended the install: a new one, and its tokens. */
  async function freshAccessToken() {
    const r = await t.admin('GET', `/admin/v1/accounts/${f.hubId}/installs`);
    const installed = (r.json() as { results: Array<{ appId: number }> }).results.some((i) => i.appId === f.appId);
    if (installed) {
      const refreshed = await fetch(`${t.url}/oauth/v1/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          client_id: f.clientId,
          client_secret: f.clientSecret,
          refresh_token: tokens.refresh_token,
        }).toString(),
      });
      return (await refreshed.json()) as { access_token: string };
    }
    tokens = await installAndExchange(t, f);
    return tokens;
  }
});

import { Client } from '@hubspot/api-client';
import { Signature } from '@hubspot/api-client/lib/src/utils/signature';
import { Metrics } from '../../src/platform/metrics/metrics';
import { contactCreationWebhooks, installAndExchange, oauthFixture, refresh } from '../support/oauth-fixtures';
import { startTestAppOnSystemClock, type TestService } from '../support/test-app';
import { type ReceivedRequest, WebhookReceiver } from '../support/webhook-receiver';

/**
 * On the system clock (as main.ts runs), the delivery thread reads the time itself and the installs'
 * clocks from its own feed, and asks the API's thread for an app's client secret once until an event
 * changes it (issue 42: each answer from there is a turn of the API's event loop). Deliveries stay
 * signed with the current secret across a rotation, and retries still come due on the install's clock.
 */
let t: TestService;
let receiver: WebhookReceiver;

beforeAll(async () => {
  t = await startTestAppOnSystemClock({ listen: true, env: { WEBHOOK_POLL_MS: '20' } });
  receiver = await new WebhookReceiver().start();
});

afterAll(async () => {
  await receiver?.stop();
  await t?.close();
});

const SCOPES = ['oauth', 'crm.objects.contacts.read', 'crm.objects.contacts.write'];

/** How many times the thread asked the API's thread each question so far. */
async function questions(): Promise<{ now: number; secret: number }> {
  const { values } = await t.app.get(Metrics).deliveryThreadQuestions.get();
  const count = (question: string) => values.find((v) => v.labels.question === question)?.value ?? 0;
  return { now: count('now'), secret: count('secret') };
}

function signedWith(request: ReceivedRequest, clientSecret: string): boolean {
  const header = (name: string) => request.headers[name.toLowerCase()] as string;
  return Signature.isValid({
    signatureVersion: 'v3',
    signature: header('X-HubSpot-Signature-v3'),
    clientSecret,
    requestBody: request.body,
    url: receiver.url,
    method: 'POST',
    timestamp: Number(header('X-HubSpot-Request-Timestamp')),
  });
}

describe('what the delivery thread asks the API’s thread', () => {
  it('never the time, the secret once until it is rotated; retries on the install’s clock', async () => {
    const f = await oauthFixture(t, { requiredScopes: SCOPES, optionalScopes: [] });
    const tokens = await installAndExchange(t, f);
    let crm = new Client({ accessToken: tokens.access_token, basePath: t.url });
    await contactCreationWebhooks(t, f, receiver.url, 2);
    const create = async (email: string) => {
      const contact = await crm.crm.contacts.basicApi.create({ properties: { email }, associations: [] });
      return Number(contact.id);
    };

    // Three requests, one after the other: one question in all (the secret), none for the time.
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) {
      const id = await create(email);
      await receiver.waitForItems((i) => i.objectId === id, 1, email);
    }
    expect(receiver.requests).toHaveLength(3);
    expect(receiver.requests.every((r) => signedWith(r, f.clientSecret))).toBe(true);
    expect(await questions()).toEqual({ now: 0, secret: 1 });

    // A rotation: the thread sees it on its feed and asks again; the next request has the new secret.
    const rotated = await t.admin('POST', `/admin/v1/apps/${f.appId}/client-secret`);
    expect(rotated.statusCode).toBe(200);
    const withNew = { ...f, clientSecret: (rotated.json() as { clientSecret: string }).clientSecret };
    const afterRotation = await create('d@example.com');
    await receiver.waitForItems((i) => i.objectId === afterRotation, 1, 'the creation after the rotation');
    const last = receiver.requests.at(-1)!;
    expect(signedWith(last, withNew.clientSecret)).toBe(true);
    expect(signedWith(last, f.clientSecret)).toBe(false);
    expect(await questions()).toEqual({ now: 0, secret: 2 });

    // The install's clock a day ahead (read by the thread from its feed): a 500's retry is due a day
    // ahead of real time, and comes once the install's clock moves another day.
    const advance = async () => {
      const r = await t.admin('POST', `/admin/v1/accounts/${f.hubId}/installs/${f.appId}/clock`, {
        advanceSeconds: 86_400,
      });
      expect(r.statusCode).toBe(200);
    };
    await advance();
    const fresh = await refresh(t, withNew, tokens.refresh_token);
    expect(fresh.statusCode).toBe(200);
    crm = new Client({ accessToken: (fresh.json() as { access_token: string }).access_token, basePath: t.url });
    receiver.answer = () => ({ status: 500 });
    const failed = await create('e@example.com');
    await receiver.waitForItems((i) => i.objectId === failed, 1, 'the first attempt');
    const log = async () =>
      (
        (await t.admin('GET', `/admin/v1/apps/${f.appId}/webhook-deliveries?objectId=${failed}`)).json() as {
          results: { status: string; attempts: number; nextAttemptAt: number | null }[];
        }
      ).results;
    let item = (await log())[0];
    for (const deadline = Date.now() + 10_000; item?.attempts !== 1 && Date.now() < deadline;) {
      await new Promise((resolve) => setImmediate(resolve));
      item = (await log())[0];
    }
    expect(item).toMatchObject({ status: 'retrying', attempts: 1 });
    expect(item!.nextAttemptAt!).toBeGreaterThan(Date.now() + 86_000_000);
    receiver.answer = () => ({ status: 200 });
    await advance();
    await receiver.waitForItems((i) => i.objectId === failed && i.attemptNumber === 1, 1, 'the retry');
    expect((await questions()).now).toBe(0);
  });
});

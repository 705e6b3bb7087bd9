import { Signature } from '@hubspot/api-client/lib/src/utils/signature';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebhooksQueries } from '../../src/app-webhooks/application/webhooks.queries';
import { DirectoryQueries } from '../../src/directory/directory.queries';
import { ManualClock } from '../support/manual-clock';
import { installAndExchange, oauthFixture, refresh, type OAuthFixture } from '../support/oauth-fixtures';
import { within } from '../support/service-cluster';
import { startTestApp, type TestApp } from '../support/test-app';
import { WebhookReceiver, type ReceivedRequest } from '../support/webhook-receiver';

/**
 * Rotating TOKEN_SIGNING_KEYS (a new key first, the old one kept, then dropped) keeps an app's
 * deliveries signed with its client secret: the restart with both keys seals the secret again under
 * the new key (webhooks.SigningSecretResealed), so the restart without the old key still opens it.
 * Real SQLite files in a temp dir; each delivery is checked with @hubspot/api-client's Signature.
 */
describe('webhook signatures across a signing-key rotation', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'webhooks-rotation-'));
  const key = (kid: string) => `${kid}:${randomBytes(32).toString('base64')}`;
  const [k1, k2] = [key('k1'), key('k2')];
  let receiver: WebhookReceiver;
  let t: TestApp | undefined;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
  });
  afterAll(async () => {
    await t?.close({ keepData: true });
    await receiver.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = (keys: string) =>
    startTestApp({
      dataDir,
      clock: new ManualClock(Date.now()),
      env: { TOKEN_SIGNING_KEYS: keys, WEBHOOK_POLL_MS: '20', WEBHOOK_TIMEOUT_MS: '2000' },
    });

  const createContact = async (app: TestApp, token: string, email: string) => {
    const r = await app.inject({
      method: 'POST',
      url: '/crm/v3/objects/contacts',
      headers: { authorization: `Bearer ${token}` },
      payload: { properties: { email } },
    });
    expect(r.statusCode).toBe(201);
    return Number((r.json() as { id: string }).id);
  };

  const deliveryOf = async (objectId: number): Promise<ReceivedRequest> => {
    await receiver.waitForItems((i) => i.objectId === objectId, 1, `the creation of ${objectId}`);
    return receiver.requests.find((r) => r.items.some((i) => i.objectId === objectId))!;
  };

  const signedWith = (request: ReceivedRequest, clientSecret: string) => ({
    v1: Signature.isValid({
      signatureVersion: 'v1',
      signature: String(request.headers['x-hubspot-signature']),
      clientSecret,
      requestBody: request.body,
    }),
    v3: Signature.isValid({
      signatureVersion: 'v3',
      signature: String(request.headers['x-hubspot-signature-v3']),
      clientSecret,
      requestBody: request.body,
      url: receiver.url,
      method: 'POST',
      timestamp: Number(request.headers['x-hubspot-request-timestamp']),
    }),
  });

  it('signs with the client secret before, during and after the rotation', async () => {
    let f: OAuthFixture;
    let refreshToken: string;
    t = await start(k1);
    {
      f = await oauthFixture(t, {
        requiredScopes: ['oauth', 'crm.objects.contacts.read', 'crm.objects.contacts.write'],
        optionalScopes: [],
      });
      const { developerApiKey } = (
        await t.admin('POST', `/admin/v1/accounts/${f.hubId}/developer-api-keys`)
      ).json() as {
        developerApiKey: string;
      };
      const dev = (method: 'PUT' | 'POST', path: string, payload: unknown) =>
        t!.inject({
          method,
          url: `/webhooks/v3/${f.appId}${path}?hapikey=${developerApiKey}`,
          payload: payload as never,
        });
      expect((await dev('PUT', '/settings', { targetUrl: receiver.url, maxConcurrentRequests: 2 })).statusCode).toBe(
        200,
      );
      expect((await dev('POST', '/subscriptions', { eventType: 'contact.creation', active: true })).statusCode).toBe(
        201,
      );
      const tokens = await installAndExchange(t, f);
      refreshToken = tokens.refresh_token;
      const id = await createContact(t, tokens.access_token, 'before@example.com');
      expect(signedWith(await deliveryOf(id), f.clientSecret)).toEqual({ v1: true, v3: true });
      expect(t.app.get(WebhooksQueries).resealedSecret(f.appId)).toBeNull();
    }
    await t.close({ keepData: true });

    // The new key first, the old one kept: the secret is sealed again under k2 at start.
    t = await start(`${k2},${k1}`);
    {
      const queries = t.app.get(WebhooksQueries);
      await within(5000, 'the re-sealed secret', () => Promise.resolve(queries.resealedSecret(f.appId) !== null));
      expect(queries.resealedSecret(f.appId)!.sealed.split('.')[1]).toBe('k2');
      const fresh = await refresh(t, f, refreshToken);
      expect(fresh.statusCode).toBe(200);
      const tokens = fresh.json() as { access_token: string; refresh_token: string };
      refreshToken = tokens.refresh_token;
      const id = await createContact(t, tokens.access_token, 'during@example.com');
      expect(signedWith(await deliveryOf(id), f.clientSecret)).toEqual({ v1: true, v3: true });
    }
    await t.close({ keepData: true });

    // The old key dropped: the directory's seal (k1) no longer opens, webhooks' copy (k2) does.
    t = await start(k2);
    {
      expect(t.app.get(DirectoryQueries).webhookSigningSecret(f.appId)).toBeNull();
      const fresh = await refresh(t, f, refreshToken);
      expect(fresh.statusCode).toBe(200);
      const id = await createContact(t, (fresh.json() as { access_token: string }).access_token, 'after@example.com');
      const request = await deliveryOf(id);
      expect(signedWith(request, f.clientSecret)).toEqual({ v1: true, v3: true });
      expect(signedWith(request, 'another-secret')).toEqual({ v1: false, v3: false });
    }
  });
});

// Reference server: oidc-provider (v9) serving its refresh grant, every artefact kept in a Map.
// Nothing durable: what the service is compared with does strictly less work per token.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const store = new Map();
const grantIndex = new Map(); // grantId -> keys, for revokeByGrantId

/** The smallest adapter oidc-provider accepts: upsert/find/consume/destroy on a Map. */
class MapAdapter {
  constructor(model) {
    this.model = model;
  }
  key(id) {
    return `${this.model}:${id}`;
  }
  async upsert(id, payload) {
    const key = this.key(id);
    store.set(key, payload);
    if (payload.grantId) {
      const keys = grantIndex.get(payload.grantId) ?? [];
      keys.push(key);
      grantIndex.set(payload.grantId, keys);
    }
  }
  async find(id) {
    return store.get(this.key(id));
  }
  async findByUid(uid) {
    for (const v of store.values()) if (v.uid === uid) return v;
    return undefined;
  }
  async findByUserCode(userCode) {
    for (const v of store.values()) if (v.userCode === userCode) return v;
    return undefined;
  }
  async consume(id) {
    const v = store.get(this.key(id));
    if (v) v.consumed = Math.floor(Date.now() / 1000);
  }
  async destroy(id) {
    store.delete(this.key(id));
  }
  async revokeByGrantId(grantId) {
    for (const key of grantIndex.get(grantId) ?? []) store.delete(key);
    grantIndex.delete(grantId);
  }
}

const clientSecret = randomBytes(32).toString('base64url');
const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address();

const provider = new Provider(`http://127.0.0.1:${port}`, {
  adapter: MapAdapter,
  clients: [
    {
      client_id: 'bench-client',
      client_secret: clientSecret,
      grant_types: ['authorization_code', 'refresh_token'],
      redirect_uris: ['https://example.com/callback'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    },
  ],
  // HubSpot does not rotate refresh tokens; neither does the service.
  rotateRefreshToken: false,
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
  features: { devInteractions: { enabled: false } },
  ttl: { AccessToken: 1800, RefreshToken: 30 * 24 * 3600, Grant: 30 * 24 * 3600 },
});
provider.on('server_error', (_ctx, error) => process.stderr.write(`oidc-provider server_error: ${error.message}\n`));
server.on('request', provider.callback());

/** A refresh token as the authorization-code grant would have left it, created directly. */
async function refreshToken(scope) {
  const client = await provider.Client.find('bench-client');
  const grant = new provider.Grant({ accountId: 'user-1', clientId: 'bench-client' });
  grant.addOIDCScope(scope);
  const grantId = await grant.save();
  const token = new provider.RefreshToken({
    accountId: 'user-1',
    client,
    grantId,
    gty: 'authorization_code',
    scope,
    authTime: Math.floor(Date.now() / 1000),
    expiresWithSession: false,
  });
  return token.save();
}

process.stdout.write(
  `${JSON.stringify({
    port,
    clientId: 'bench-client',
    clientSecret,
    // OAuth 2.0 only (what HubSpot's refresh grant answers: no ID token).
    refreshToken: await refreshToken('offline_access'),
    // OpenID Connect: the refresh answer also carries a signed ID token.
    refreshTokenOpenId: await refreshToken('openid offline_access'),
  })}\n`,
);

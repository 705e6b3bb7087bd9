// Run by test/e2e/hubspot-hosts-front.e2e.spec.ts in a child Node 24 with only NODE_USE_ENV_PROXY,
// HTTPS_PROXY and NODE_EXTRA_CA_CERTS set: HubSpot's own client with no basePath, as an app that
// hard-codes api.hubapi.com would use it. Prints one JSON line with what it got.
import { Client } from '@hubspot/api-client';

const { CODE, CLIENT_ID, CLIENT_SECRET, REDIRECT_URI } = process.env;
const hubspot = new Client({ numberOfApiCallRetries: 0 });
const tokens = await hubspot.oauth.tokensApi.create('authorization_code', CODE, REDIRECT_URI, CLIENT_ID, CLIENT_SECRET);
const info = await hubspot.oauth.accessTokensApi.get(tokens.accessToken);
const withToken = new Client({ accessToken: tokens.accessToken, numberOfApiCallRetries: 0 });
const { results } = await withToken.crm.properties.coreApi.getAll('contacts');
// What HubSpot's OAuth quickstart calls next: a page of contacts.
const contacts = await withToken.crm.contacts.basicApi.getPage(1);
const refreshed = await hubspot.oauth.tokensApi.create(
  'refresh_token',
  undefined,
  undefined,
  CLIENT_ID,
  CLIENT_SECRET,
  tokens.refreshToken,
);
const again = new Client({ accessToken: refreshed.accessToken, numberOfApiCallRetries: 0 });
const afterRefresh = await again.crm.properties.coreApi.getAll('contacts');
process.stdout.write(
  `${JSON.stringify({
    hubId: info.hubId,
    expiresIn: tokens.expiresIn,
    properties: results.length,
    contacts: contacts.results.length,
    refreshedExpiresIn: refreshed.expiresIn,
    propertiesAfterRefresh: afterRefresh.results.length,
  })}\n`,
);

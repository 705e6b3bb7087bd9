// node examples/api-client.mjs "<the address the browser landed on after Connect app>"
import { Client } from '@hubspot/api-client';

const hubspot = new Client({ basePath: process.env.HUBSPOT_BASE_URL ?? 'http://127.0.0.1:3000' });
const code = new URL(process.argv[2]).searchParams.get('code');
const redirectUri = 'http://localhost:3001/oauth/callback';
const demoApp = ['5f0c1f3e-7a52-4c2e-9d8a-2b6a1c0d9e41', '0b8e6a4c-3d1f-4e9a-8c7b-6f5e4d3c2b1a']; // client id, secret
const tokens = await hubspot.oauth.tokensApi.create('authorization_code', code, redirectUri, ...demoApp);
const info = await hubspot.oauth.accessTokensApi.get(tokens.accessToken);
console.log(`Installed in hub ${info.hubId} (${info.hubDomain}) with scopes: ${info.scopes.join(' ')}`);
hubspot.setAccessToken(tokens.accessToken);
const { results } = await hubspot.crm.properties.coreApi.getAll('contacts');
console.log(`Contact properties: ${results.map((p) => p.name).join(', ')}`);
const contacts = await hubspot.crm.contacts.basicApi.getPage(10);
console.log(`Contacts: ${contacts.results.map((c) => c.properties.email).join(', ')}`);

# Run where HubSpot's Python SDK (hubspot-api-client) can be imported: by
# test/e2e/hubspot-hosts-transparent-front.e2e.spec.ts in a network namespace whose /etc/hosts maps
# api.hubapi.com to 127.0.0.1 (port 443 there leads to the transparent front), and by
# test/e2e/hubspot-hosts-front.e2e.spec.ts with PROXY (the CONNECT front, given as proxy=). The SDK
# calls urllib3 itself with certifi's bundle unless given ssl_ca_cert=, and ignores HTTPS_PROXY and
# REQUESTS_CA_BUNDLE: only its Configuration's proxy= and ssl_ca_cert= reach it.
import importlib.metadata
import json
import os

import hubspot

env = os.environ
ca = env["CA"]
proxy = env.get("PROXY")  # None: not set (the SDK leaves unset settings at their defaults)
client = hubspot.Client.create(ssl_ca_cert=ca, proxy=proxy)
tokens = client.oauth.tokens_api.create(
    grant_type="authorization_code",
    code=env["CODE"],
    redirect_uri=env["REDIRECT_URI"],
    client_id=env["CLIENT_ID"],
    client_secret=env["CLIENT_SECRET"],
)
info = client.oauth.access_tokens_api.get(token=tokens.access_token)
api = hubspot.Client.create(access_token=tokens.access_token, ssl_ca_cert=ca, proxy=proxy)
properties = api.crm.properties.core_api.get_all(object_type="contacts")
print(
    json.dumps(
        {
            "sdk": importlib.metadata.version("hubspot-api-client"),
            "hubId": info.hub_id,
            "expiresIn": tokens.expires_in,
            "properties": len(properties.results),
            "email": any(p.name == "email" for p in properties.results),
        }
    )
)

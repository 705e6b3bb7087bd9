# Run by test/e2e/hubspot-hosts-transparent-front.e2e.spec.ts where HubSpot's Python SDK
# (hubspot-api-client) can be imported, in a network namespace whose /etc/hosts maps api.hubapi.com
# to 127.0.0.1 (port 443 there leads to the transparent front). The SDK calls urllib3 itself with
# certifi's bundle unless given ssl_ca_cert=, and ignores HTTPS_PROXY: hence the transparent mode.
import importlib.metadata
import json
import os

import hubspot

env = os.environ
ca = env["CA"]
client = hubspot.Client.create(ssl_ca_cert=ca)
tokens = client.oauth.tokens_api.create(
    grant_type="authorization_code",
    code=env["CODE"],
    redirect_uri=env["REDIRECT_URI"],
    client_id=env["CLIENT_ID"],
    client_secret=env["CLIENT_SECRET"],
)
info = client.oauth.access_tokens_api.get(token=tokens.access_token)
api = hubspot.Client.create(access_token=tokens.access_token, ssl_ca_cert=ca)
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

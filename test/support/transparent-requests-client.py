# Run by test/e2e/hubspot-hosts-transparent-front.e2e.spec.ts in a network namespace whose /etc/hosts
# maps api.hubapi.com to 127.0.0.1 (port 443 there leads to the transparent front), with
# REQUESTS_CA_BUNDLE set and no proxy variable: an app that hard-codes https://api.hubapi.com, as
# HubSpot's Python SDK does underneath (requests/urllib3). Prints one JSON line with what it got.
import json
import os

import requests

env = os.environ
token = requests.post(
    "https://api.hubapi.com/oauth/v1/token",
    data={
        "grant_type": "authorization_code",
        "code": env["CODE"],
        "redirect_uri": env["REDIRECT_URI"],
        "client_id": env["CLIENT_ID"],
        "client_secret": env["CLIENT_SECRET"],
    },
    timeout=30,
)
token.raise_for_status()
access_token = token.json()["access_token"]
info = requests.get("https://api.hubapi.com/oauth/v1/access-tokens/" + access_token, timeout=30).json()
properties = requests.get(
    "https://api.hubapi.com/crm/v3/properties/contacts",
    headers={"Authorization": "Bearer " + access_token},
    timeout=30,
)
properties.raise_for_status()
print(
    json.dumps(
        {
            "hubId": info["hub_id"],
            "expiresIn": token.json()["expires_in"],
            "properties": len(properties.json()["results"]),
            "email": any(p["name"] == "email" for p in properties.json()["results"]),
        }
    )
)

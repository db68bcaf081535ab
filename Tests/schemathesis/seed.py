"""Seeds a fresh app through the API so that schemathesis' path parameters hit real resources.

    python3 Tests/schemathesis/seed.py URL TOKEN SLUG

Creates a family FAMILY_1 (cell styles LIST_1, GRID_1), a layout HOME_LAYOUT, the home screen
(from the layout), a connected screen under it, a screen plugin registered from the manifest beside
this file, spare resources nothing uses for the DELETEs to remove (family FAMILY_2, layout
SPARE_LAYOUT, a screen, a second plugin, a second token), publishes version 1, and makes a webhook
(with one delivery, its ping) and a spare one; the webhooks call a loopback port nothing listens on,
so the server must run with WEBHOOK_PRIVATE_NETWORKS=allow. Prints shell assignments
(`NAME=value`, one a line) of the ids the run uses; exits non-zero when any step fails.
"""
import json
import pathlib
import sys
import urllib.error
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent
MANIFEST = HERE / "manifest_zee5_home_screen_native_ios.json"


def main():
    url, token, slug = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
    api = f"{url}/api/v1/apps/{slug}"

    def call(method, path, body=None, expect=(200, 201)):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(api + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {token}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        if status not in expect:
            sys.exit(f"seed: {method} {path} answered {status}: {raw[:2000]!r}")
        return json.loads(raw) if raw else None

    call("POST", "/families", {
        "id": "FAMILY_1", "name": "Phones",
        "reference_size": {"width": 320, "height": 568},
        "insets": {"top": 10, "left": 10, "bottom": 10, "right": 10},
        "interitem_spacing": 10, "line_spacing": 10,
        "cell_styles": [
            {"id": "LIST_1", "columns": 1, "height": 80},
            {"id": "GRID_1", "columns": 2, "aspect_ratio": 1.7778},
        ],
    })
    call("POST", "/families", {
        "id": "FAMILY_2", "name": "Tablets",
        "reference_size": {"width": 768, "height": 1024},
        "cell_styles": [{"id": "LIST_1", "width": 300, "height": 100}],
    })
    call("POST", "/layouts", {
        "id": "HOME_LAYOUT", "name": "Home", "family": "FAMILY_1",
        "ui_components": [
            {"id": "hero", "component_type": "hero", "cell_styles": ["LIST_1"],
             "data": {"source": "3119", "type": "APPLICASTER_COLLECTION"}},
            {"id": "grid", "component_type": "grid", "cell_styles": ["GRID_1"], "rules": {"item_limit": 6},
             "header": {"visible": True, "style": "LIST_1"},
             "data": {"source": "3139", "type": "APPLICASTER_COLLECTION"}},
        ],
    })
    # Spare resources nothing uses, for the DELETEs (so the ones above stay for every other test).
    call("POST", "/layouts", {"id": "SPARE_LAYOUT", "name": "Spare", "family": "FAMILY_1"})
    plugin = json.loads(MANIFEST.read_text())
    call("POST", "/plugins", plugin)
    call("POST", "/plugins", {**plugin, "identifier": plugin["identifier"] + "_spare"})
    home = call("POST", "/screens", {"name": "Home", "from_layout": "HOME_LAYOUT"})
    show = call("POST", "/screens", {
        "name": "Show page", "family": "FAMILY_1", "connected": True, "parent": home["id"],
        "ui_components": [
            {"id": "episodes", "component_type": "list", "cell_styles": ["LIST_1"]},
            {"id": "more", "component_type": "grid", "cell_styles": ["GRID_1"]},
        ],
        "navigations": [{
            "id": "nav-1", "name": "Top bar", "category": "nav_bar", "navigation_type": "navigation_bar",
            "nav_items": [
                {"id": "home", "title": "Home", "type": "button", "data": {"target": home["id"]}},
                {"id": "help", "title": "Help", "type": "button",
                 "data": {"type": "WEB_URL", "source": "https://example.com/help"}},
            ],
        }],
    })
    spare = call("POST", "/screens", {"name": "Spare", "family": "FAMILY_1"})
    call("POST", "/publish", {"note": "seed"})
    # The run's own token, and a spare one for the DELETEs of tokens to revoke instead.
    request = urllib.request.Request(f"{url}/api/v1/token")
    request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=30) as response:
        own = json.loads(response.read())["token"]["id"]
    spare_token = call("POST", "/tokens", {"name": "spare", "role": "viewer"})
    # A preview link whose URL the draft's GET and HEAD use, and a spare one for DELETE to revoke.
    preview = call("POST", "/preview-links", {"name": "seed"})
    spare_preview = call("POST", "/preview-links", {"name": "spare"})
    # A webhook whose id, and its ping's delivery id, the webhook routes name (its receiver is a
    # loopback port nothing listens on: the deliveries fail and wait for their retries), and a
    # spare one for DELETE.
    hook = call("POST", "/webhooks", {"url": "http://127.0.0.1:9/rivers", "description": "seed"})
    spare_hook = call("POST", "/webhooks", {"url": "http://127.0.0.1:9/spare", "events": ["app.archived"]})
    delivery = call("POST", f"/webhooks/{hook['id']}/ping", expect=(202,))
    print(f"RIVERS_HOME_SCREEN={home['id']}")
    print(f"RIVERS_SHOW_SCREEN={show['id']}")
    print(f"RIVERS_SPARE_SCREEN={spare['id']}")
    print(f"RIVERS_PLUGIN={plugin['identifier']}")
    print(f"RIVERS_PLUGIN_VERSION={plugin['manifest_version']}")
    print(f"RIVERS_OWN_TOKEN_ID={own}")
    print(f"RIVERS_SPARE_TOKEN_ID={spare_token['id']}")
    print(f"RIVERS_PREVIEW_SECRET={preview['url'].rsplit('/', 2)[-2]}")
    print(f"RIVERS_PREVIEW_LINK={preview['id']}")
    print(f"RIVERS_SPARE_PREVIEW_LINK={spare_preview['id']}")
    print(f"RIVERS_WEBHOOK={hook['id']}")
    print(f"RIVERS_SPARE_WEBHOOK={spare_hook['id']}")
    print(f"RIVERS_WEBHOOK_DELIVERY={delivery['id']}")


if __name__ == "__main__":
    main()

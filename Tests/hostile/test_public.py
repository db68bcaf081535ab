"""Public URLs take slugs only: a slug may not look like an app id (a UUID), and a published
document is never served under its app's id, which would make app ids guessable addresses."""
import uuid

import pytest

from conftest import call, expect_problem, family_body, run_cli


@pytest.fixture(scope="module")
def published_app():
    """A second app, made with the CLI, with one published version: (slug, id)."""
    slug = f"hostile-public-{uuid.uuid4().hex[:8]}"
    made = run_cli("app", "create", slug, "--quiet")
    assert made.returncode == 0, f"rivers app create {slug} failed: {made.stderr}"
    token = made.stdout.strip().splitlines()[-1]
    apps = call("GET", "/api/v1/apps", token=token)
    assert apps.status == 200, f"GET /api/v1/apps with the new token: {apps}"
    app_id = apps.json["items"][0]["id"]
    base = f"/api/v1/apps/{slug}"
    for method, path, body in [
        ("POST", f"{base}/families", family_body("FAMILY_1")),
        ("POST", f"{base}/screens", {"name": "Home", "family": "FAMILY_1", "ui_components": []}),
        ("POST", f"{base}/publish", {"note": "first"}),
    ]:
        a = call(method, path, body, token=token)
        assert a.status in (200, 201), f"set-up step failed: {a}"
    return slug, app_id


def test_a_uuid_shaped_slug_is_refused_by_the_cli():
    """`rivers app create <a UUID>` fails: a slug that looks like an id would make /rivers/{x}
    ambiguous. (A normal slug made the same way succeeds, so the failure is about the slug.)"""
    control = run_cli("app", "create", f"hostile-slug-{uuid.uuid4().hex[:8]}", "--quiet")
    assert control.returncode == 0, f"the CLI cannot create any app: {control.stderr}"
    for text in (str(uuid.uuid4()), str(uuid.uuid4())):
        made = run_cli("app", "create", text, "--quiet")
        assert made.returncode != 0, f"rivers app create {text} succeeded (printed {made.stdout.strip()[:12]}…)"


def test_public_documents_are_served_by_slug_only(published_app):
    """GET /rivers/{slug}/rivers.json serves the document; the same URLs with the app's id (current
    and version 1, lower or upper case) are 404 problem+json."""
    slug, app_id = published_app
    current = call("GET", f"/rivers/{slug}/rivers.json", auth=False)
    assert current.status == 200, f"the document is not served by slug: {current}"
    paths = (f"/rivers/{app_id}/rivers.json", f"/rivers/{app_id}/v1/rivers.json",
             f"/rivers/{app_id.upper()}/rivers.json", f"/rivers/{app_id.upper()}/v1/rivers.json")
    answers = [call("GET", path, auth=False) for path in paths]
    served = [f"{a.path} answered {a.status}" for a in answers if a.status != 404]
    assert not served, "served by the app's id: " + "; ".join(served)
    for a in answers:
        expect_problem(a, 404)

"""Publishing: the problem list, publish with a note, the public URL, versions, diff, rollback."""
import json
import re
import urllib.request

import pytest

from conftest import all_css, browser_errors, css, set_value, shot, sign_in, unlabelled_controls, visible, wait


def publish(driver):
    """Publishes from the Publish page: the button, then the dialog that asks first (issue 29, 8)."""
    css(driver, "#publish-button").click()
    visible(driver, "dialog.publish-dialog[open] button[type=submit]").click()
    wait(driver, lambda d: not all_css(d, "dialog.publish-dialog[open]"), message="the publish dialog closes")


def require_publishing(api):
    status, payload, _ = api.call("GET", "versions")
    if status == 404:
        pytest.skip(f"the server has no publish endpoints yet (GET …/versions answered 404: {payload.get('detail') if isinstance(payload, dict) else payload})")


def fetch(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, json.loads(response.read())


def test_publish_with_a_note_and_fetch_the_public_url(browser, api):
    require_publishing(api)
    family = api.family()
    home = api.screen(family["id"], "Home", [
        {"component_type": "list", "cell_styles": ["LIST_1"], "data": {"source": "3119", "type": "APPLICASTER_COLLECTION"}},
    ])
    sign_in(browser, api, "#/publish")
    wait(browser, lambda d: "No problems" in css(d, "#problems").text, message="no problems listed")
    set_value(css(browser, "#publish-note"), "First release")
    publish(browser)
    message = visible(browser, "#publish-message")
    assert "Published version 1" in message.text
    row = visible(browser, "#versions tr[data-version='1']")
    assert "First release" in row.text
    url = css(browser, "#public-url").get_attribute("value")
    assert url.endswith("/rivers.json")
    shot(browser, "08-publish")

    status, document = fetch(url)
    assert status == 200
    assert home["id"] in json.dumps(document)

    # Publishing again without a change makes no new version.
    publish(browser)
    wait(browser, lambda d: "Nothing changed" in css(d, "#publish-message").text)

    # A change, a second version, their diff, and a rollback to the first.
    revision = api.ok("GET", f"screens/{home['id']}")["revision"]
    api.ok("PATCH", f"screens/{home['id']}", {"name": "Start"}, etag=f'"{revision}"')
    # The page follows the change saved elsewhere, without a reload: what this publish changes names it.
    wait(browser, lambda d: "“Start”" in css(d, "#publish-changes").text, timeout=3, message="the Publish page follows the change")
    set_value(css(browser, "#publish-note"), "Renamed home")
    publish(browser)
    wait(browser, lambda d: "Published version 2" in css(d, "#publish-message").text)
    visible(browser, "#versions tr[data-version='2']")
    css(browser, "#diff-button").click()
    diff = visible(browser, "#diff")
    assert "1 → 2" in diff.text and "Start" in diff.text
    css(browser, "button[aria-label='Roll back to version 1']").click()
    visible(browser, "dialog[open] .button.danger").click()
    wait(browser, lambda d: all_css(d, "#versions tr[data-version='3']"), message="rollback made version 3")
    assert "rollback to 1" in css(browser, "#versions tr[data-version='3']").text
    status, document = fetch(url)
    assert "Start" not in json.dumps(document)
    shot(browser, "09-versions")
    assert unlabelled_controls(browser) == []
    assert not browser_errors(browser)


def test_problems_link_to_their_fields(browser, api):
    require_publishing(api)
    family = api.family()
    # A connected screen with no parent (nothing can open it): something to fix before publishing.
    api.screen(family["id"], "Home")  # the app's first screen is its home
    screen = api.screen(family["id"], "Broken", connected=True)
    problems = api.ok("GET", "problems")["problems"]
    assert [p["pointer"] for p in problems] == [f"/screens/{screen['id']}/parent"], problems
    # A root screen's list without a data source: published anyway, with a warning.
    listless = api.screen(family["id"], "No source", [{"component_type": "list", "cell_styles": ["LIST_1"]}])
    sign_in(browser, api, "#/publish")
    warning = visible(browser, "#warning-list a")
    assert warning.get_attribute("data-pointer-target") == f"/screens/{listless['id']}/ui_components/0/data"
    assert "no data source" in css(browser, "#warning-list").text
    link = visible(browser, "#problem-list a")
    pointer = link.get_attribute("data-pointer-target")
    assert pointer.startswith(f"/screens/{screen['id']}")
    link.click()
    wait(browser, lambda d: f"/screens/{screen['id']}" in d.current_url)
    inner = re.sub(r"^/screens/[^/]+", "", pointer)
    wait(browser, lambda d: d.execute_script(
        "const a = document.activeElement; const p = a && (a.dataset.pointer || a.closest('[data-pointer]')?.dataset.pointer);"
        "return !!p && (arguments[0].startsWith(p) || p.startsWith(arguments[0]))", inner), message="focus on the field of the problem")
    assert all_css(browser, ".field-error")

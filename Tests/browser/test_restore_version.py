"""Issue 29, item 7: a published version restored into the draft from the Publish page (one step,
undone from the message), so that the next publish starts from it; viewers cannot."""
from conftest import Api, click, css, sign_in, visible, wait


def names(api):
    return sorted(s["name"] for s in api.ok("GET", "screens")["items"])


def test_a_version_is_restored_into_the_draft_and_the_restore_undone(browser, api):
    family = api.family()["id"]
    home = api.screen(family, "Home", home=True)
    api.ok("POST", "publish", {"note": "one"})
    api.ok("PATCH", f"screens/{home['id']}", {"name": "Start"}, etag="*")
    api.screen(family, "Added later")
    api.ok("POST", "publish", {"note": "two"})
    assert names(api) == ["Added later", "Start"]

    sign_in(browser, api, "#/publish")
    click(browser, visible(browser, "button[data-restore='1']"))
    visible(browser, "dialog[open]")
    buttons = [b for b in browser.find_elements("css selector", "dialog[open] button") if "Restore version 1" in b.text]
    assert buttons, [b.text for b in browser.find_elements("css selector", "dialog[open] button")]
    buttons[0].click()
    visible(browser, "#restore-message[data-version='1']")
    assert names(api) == ["Home"]
    # The editor's own lists follow: the screens page shows version 1's screens.
    assert api.ok("GET", "versions")["total"] == 2, "nothing was published"

    click(browser, visible(browser, "[data-action='status-action']"))
    wait(browser, lambda d: "Undone" in css(d, "#restore-message").text, message="undone")
    assert names(api) == ["Added later", "Start"]


def test_a_viewer_cannot_restore_a_version(browser, api):
    family = api.family()["id"]
    api.screen(family, "Home", home=True)
    api.ok("POST", "publish", {})
    viewer = api.ok("POST", "tokens", {"name": "viewer", "role": "viewer"})["token"]
    sign_in(browser, Api(viewer, api.app), "#/publish")
    visible(browser, "tr[data-version='1']")
    restore = browser.find_elements("css selector", "button[data-restore='1']")
    assert not restore or not restore[0].is_enabled()

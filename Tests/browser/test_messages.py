"""Messages in plain language: what the user sees names the things they see, never ids, HTTP
methods, addresses or status codes."""
import re

from conftest import all_css, click, css, go, shot, sign_in, visible, wait

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)
TECHNICAL = re.compile(r"\b(GET|POST|PUT|PATCH|DELETE)\b|/api/|\b40[0-9]\b|If-Match|ETag|used_by")


def plain(text):
    assert not UUID.search(text), f"an id in: {text!r}"
    assert not TECHNICAL.search(text), f"a method, address or status in: {text!r}"
    return text


def confirm(driver):
    visible(driver, "dialog[open] .button.danger").click()


def last_toast(driver):
    return wait(driver, lambda d: (all_css(d, ".toast-error") or [False])[-1], message="an error toast")


def test_a_refused_delete_says_who_uses_it(browser, api):
    family = api.family()
    home = api.screen(family["id"], "Home")
    api.screen(family["id"], "Show page", [{"component_type": "list", "cell_styles": ["LIST_1"]}], connected=True, parent=home["id"])
    sign_in(browser, api, "#/screens")
    for width in (1440, 1024):
        browser.set_window_size(width, 900)
        # A screen that another opens from.
        go(browser, f"#/screens/{home['id']}")
        click(browser, visible(browser, "button[aria-label='Delete screen']"))
        # Said at once, without asking first (issue 29, 8): the editor knows who uses it.
        toast = plain(last_toast(browser).text)
        assert not all_css(browser, "dialog[open]"), "no question about a delete that cannot happen"
        assert "Deleting the screen: Still in use" in toast
        assert "The screen “Show page” has it as its parent screen" in toast
        shot(browser, f"13-refused-delete-{width}")
        # A family screens use.
        go(browser, f"#/families/{family['id']}")
        click(browser, visible(browser, "form button.button.danger"))
        wait(browser, lambda d: "Deleting the family" in last_toast(d).text, message="the family's toast")
        toast = plain(last_toast(browser).text)
        assert "The screen “Home”" in toast and "The screen “Show page”" in toast
        assert not all_css(browser, "dialog[open]")
        browser.execute_script("document.getElementById('errors').replaceChildren()")
    assert api.ok("GET", f"screens/{home['id']}")["name"] == "Home"


def test_a_stale_delete_and_a_vanished_screen_in_plain_words(browser, api):
    family = api.family()
    screen = api.screen(family["id"], "Start")
    sign_in(browser, api, f"#/screens/{screen['id']}", live=False)  # a stale copy (a live tab takes the save in)
    visible(browser, "#save-screen")
    # Someone else saves first: the delete is refused, in words.
    api.ok("PATCH", f"screens/{screen['id']}", {"name": "Start (theirs)"}, etag=f"\"{screen['revision']}\"")
    click(browser, css(browser, "button[aria-label='Delete screen']"))
    confirm(browser)
    toast = plain(last_toast(browser).text)
    assert "Someone else changed it first" in toast
    # Someone deletes it: saving says so without its id.
    status, _, _ = api.call("DELETE", f"screens/{screen['id']}", etag="\"2\"")
    assert status in (200, 204)
    browser.execute_script("document.getElementById('errors').replaceChildren()")
    click(browser, css(browser, "#save-screen"))
    toast = plain(last_toast(browser).text)
    assert "not there any more" in toast

"""Releases (issue 27): a preview link serves the draft to a device, shown once with a QR code that
a scanner reads, followed by every save, and revoked from the page."""
import io
import json
import urllib.error
import urllib.request

from PIL import Image
import zxingcpp

from conftest import Api, click, css, go, set_value, shot, sign_in, unlabelled_controls, visible, wait


def fetch(url):
    try:
        with urllib.request.urlopen(url, timeout=15) as response:
            return response.status, json.loads(response.read()), response.headers
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null"), error.headers


def test_a_preview_link_is_shown_once_with_a_qr_code_follows_saves_and_is_revoked(browser, api):
    family = api.family()["id"]
    home = api.screen(family, "Home", home=True)
    sign_in(browser, api, "#/releases")
    set_value(visible(browser, "#preview-link-name"), "QA phones")
    css(browser, "#create-preview-link").click()
    url = visible(browser, "#new-preview-link").get_attribute("value")
    assert "/preview/rvp_" in url and url.endswith("/rivers.json")
    assert url in css(browser, ".rivers-url").text
    row = visible(browser, "#preview-links tr[data-name='QA phones']")
    assert "never" in row.text  # not opened yet
    assert unlabelled_controls(browser) == []

    # The QR code, as the browser draws it, reads back as the URL.
    figure = visible(browser, ".qr-figure svg")
    image = Image.open(io.BytesIO(figure.screenshot_as_png))
    decoded = zxingcpp.read_barcodes(image)
    assert [d.text for d in decoded] == [url], decoded
    shot(browser, "60-releases-preview-link")

    # The URL serves the draft, and a save is there on the next read.
    status, document, headers = fetch(url)
    assert status == 200 and headers["Cache-Control"] == "private, no-store"
    assert [s["name"] for s in document] == ["Home"]
    api.ok("PATCH", f"screens/{home['id']}", {"name": "Home, renamed"}, etag="*")
    status, document, _ = fetch(url)
    assert [s["name"] for s in document] == ["Home, renamed"]

    # Listed afterwards by name only (the URL was shown once), with its last use.
    go(browser, "#/screens")
    go(browser, "#/releases")
    row = visible(browser, "#preview-links tr[data-name='QA phones']")
    wait(browser, lambda d: "never" not in row.text, message="last opened shown")
    assert not browser.find_elements("css selector", "#new-preview-link")

    click(browser, css(browser, "#preview-links tr[data-name='QA phones'] button"))
    visible(browser, "dialog[open] .button.danger").click()
    wait(browser, lambda d: not d.find_elements("css selector", "#preview-links tr[data-name='QA phones']"), message="link revoked")
    status, problem, _ = fetch(url)
    assert status == 404 and problem["type"] == "/problems/not-found"


def test_a_viewer_sees_preview_links_but_cannot_make_one(browser, api):
    api.ok("POST", "preview-links", {"name": "Made by an editor"})
    viewer = api.ok("POST", "tokens", {"name": "viewer", "role": "viewer"})["token"]
    sign_in(browser, Api(viewer, api.app), "#/releases")
    visible(browser, "#preview-links tr[data-name='Made by an editor']")
    assert "viewer" in visible(browser, "#preview-link-role").text
    assert not browser.find_elements("css selector", "#create-preview-link")
    assert not browser.find_elements("css selector", "#preview-links button")

"""Know what is live: the screen editor's badge says whether the saved screen is what apps get and
which version is live (a rollback included); the Publish page says what a publish changes against
the live version; the version diff names components by type and position with each field's
before → after. Screenshots at 1440 and 1024 px."""
from conftest import all_css, css, go, set_value, shot, sign_in, visible, wait
from test_publish import publish, require_publishing


def badge(driver):
    return wait(driver, lambda d: (lambda b: b if b.is_displayed() and b.get_attribute("data-state") else False)(css(d, "#live-badge")),
                message="the live badge")


def test_the_badge_the_publish_preview_and_the_version_diff(browser, api):
    require_publishing(api)
    family = api.family()
    home = api.screen(family["id"], "Home", [
        {"component_type": "grid", "cell_styles": ["GRID_1"], "data": {"source": "1", "type": "APPLICASTER_COLLECTION"}},
        {"component_type": "list", "cell_styles": ["LIST_1"], "rules": {"item_limit": 3}, "data": {"source": "2", "type": "APPLICASTER_COLLECTION"}},
    ])
    other = api.screen(family["id"], "About", [])
    sign_in(browser, api, f"#/screens/{home['id']}")
    assert badge(browser).get_attribute("data-state") == "unpublished"
    assert "Not published yet" in css(browser, "#live-badge").text
    api.ok("POST", "publish", {"note": "one"})

    # Published: the saved screen is live.
    go(browser, f"#/screens/{other['id']}")
    go(browser, f"#/screens/{home['id']}")
    wait(browser, lambda d: badge(d).get_attribute("data-state") == "same", message="live and the same")
    assert "Live · version 1" in css(browser, "#live-badge").text

    # A saved change: the badge says the screen differs from live version 1.
    set_value(css(browser, "#screen-name"), "Start")
    css(browser, "#save-screen").click()
    wait(browser, lambda d: css(d, "#live-badge").get_attribute("data-state") == "changed", message="changed since live")
    assert "Changed since live version 1" in css(browser, "#live-badge").text
    current = api.ok("GET", f"screens/{home['id']}")
    components = current["ui_components"]
    components[1]["rules"] = {"item_limit": 6}
    api.ok("PATCH", f"screens/{home['id']}", {"ui_components": components}, etag=f"\"{current['revision']}\"")

    # Before publishing: what this publish changes, field by field.
    for width in (1440, 1024):
        browser.set_window_size(width, 900)
        go(browser, f"#/publish?w={width}")
        changes = wait(browser, lambda d: css(d, "#publish-diff"), message="what this publish changes")
        text = changes.text
        assert "Live version 1 → this publish" in text
        assert "name: “Home” → “Start”" in text
        assert "List 2 changed" in text and "item limit: 3 → 6" in text, text
        assert "Draft differs from live" in css(browser, "#live-summary").text
        shot(browser, f"14-publish-changes-{width}")
    publish(browser)
    wait(browser, lambda d: "Published version 2" in css(d, "#publish-message").text)
    wait(browser, lambda d: css(d, "#publish-changes").get_attribute("data-state") == "same", message="nothing left to publish")
    assert "Nothing to publish" in css(browser, "#publish-changes").text

    # The version diff names the component and shows before → after.
    wait(browser, lambda d: all_css(d, "#diff-from option[value='1']"))
    css(browser, "#diff-button").click()
    diff = visible(browser, "#diff")
    assert "Version 1 → 2" in diff.text
    assert "List 2 changed" in diff.text and "item limit: 3 → 6" in diff.text
    assert "name: “Home” → “Start”" in diff.text
    assert "components: 1 changed" not in diff.text

    # A rollback: live is version 3 (a rollback to 1); the editor says the screen differs from it,
    # and Publish warns that it would send newer content.
    css(browser, "button[aria-label='Roll back to version 1']").click()
    visible(browser, "dialog[open] .button.danger").click()
    wait(browser, lambda d: all_css(d, "#versions tr[data-version='3']"), message="rollback made version 3")
    wait(browser, lambda d: "rollback to version 1" in css(d, "#live-summary").text, message="live is the rollback")
    assert "Live is a rollback to version 1" in css(browser, "#publish-changes").text
    assert "name: “Home” → “Start”" in css(browser, "#publish-diff").text
    for width in (1440, 1024):
        browser.set_window_size(width, 900)
        go(browser, f"#/screens/{home['id']}?w={width}")
        wait(browser, lambda d: badge(d).get_attribute("data-live-version") == "3", message="the badge knows version 3")
        assert css(browser, "#live-badge").get_attribute("data-state") == "changed"
        assert "Changed since live version 3 (rollback to 1)" in css(browser, "#live-badge").text
        shot(browser, f"14-live-badge-{width}")

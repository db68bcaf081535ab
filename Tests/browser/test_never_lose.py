"""Never lose work: unsaved edits are kept in the browser per screen (and family and layout) and
offered back after a reload; undo and redo (Ctrl+Z, Ctrl+Shift+Z) for edits, moves and removals;
the leave dialog offers "Save and leave". Screenshots at 1440 and 1024 px."""
import time

from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from conftest import all_css, click, css, go, set_value, shot, sign_in, visible, wait

ORDER = "return [...document.querySelectorAll('.components > .component-list > .component-card')].map(c => c.dataset.componentType)"


def reload(driver):
    """Reloads the tab as a user would; the browser may ask about leaving first (yes)."""
    driver.execute_script("setTimeout(() => location.reload(), 0)")
    time.sleep(0.3)
    try:
        driver.switch_to.alert.accept()
    except NoAlertPresentException:
        pass


def keys(driver, *combo):
    chain = ActionChains(driver)
    for k in combo[:-1]:
        chain.key_down(k)
    chain.send_keys(combo[-1])
    for k in reversed(combo[:-1]):
        chain.key_up(k)
    chain.perform()


def components():
    return [{"component_type": "hero", "cell_styles": ["LIST_1"], "data": {"source": "1", "type": "APPLICASTER_COLLECTION"}},
            {"component_type": "grid", "cell_styles": ["GRID_1"], "data": {"source": "2", "type": "APPLICASTER_COLLECTION"}},
            {"component_type": "list", "cell_styles": ["LIST_1"], "data": {"source": "3", "type": "APPLICASTER_COLLECTION"}}]


def test_edits_survive_a_reload_and_are_offered_back(browser, api):
    family = api.family()
    screen = api.screen(family["id"], "Home", components())
    # Not live: the other save must land while the tab is away (a live tab merges it at once).
    sign_in(browser, api, f"#/screens/{screen['id']}", live=False)
    for width in (1440, 1024):
        browser.set_window_size(width, 900)
        visible(browser, "#screen-name")
        set_value(css(browser, "#screen-name"), f"Home at {width}")
        click(browser, css(browser, "button[aria-label='Remove Grid 2']"))
        wait(browser, lambda d: d.execute_script(ORDER) == ["hero", "list"])
        reload(browser)
        banner = visible(browser, ".restore-banner")
        assert "kept in this browser" in banner.text
        assert f"name: “Home” → “Home at {width}”" in banner.text and "Grid 2 removed" in banner.text, banner.text
        shot(browser, f"15-restore-offer-{width}")
        if width == 1440:
            # Discarding forgets them: the next reload offers nothing.
            css(browser, ".restore-banner button[data-action='discard-kept']").click()
            wait(browser, lambda d: not all_css(d, ".restore-banner"))
            assert css(browser, "#screen-name").get_attribute("value") == "Home"
            reload(browser)
            visible(browser, "#screen-name")
            time.sleep(0.3)
            assert not all_css(browser, ".restore-banner")
            continue
        css(browser, ".restore-banner button[data-action='restore']").click()
        wait(browser, lambda d: css(d, "#screen-name").get_attribute("value") == f"Home at {width}")
        assert browser.execute_script(ORDER) == ["hero", "list"]
        assert "Unsaved" in css(browser, "#save-status").text
        # Saved: nothing is kept any more.
        css(browser, "#save-screen").click()
        wait(browser, lambda d: css(d, "#save-status").text.startswith("Saved"))
        assert not browser.execute_script("return Object.keys(localStorage).filter(k => k.startsWith('rivers.draft.'))")
    assert api.ok("GET", f"screens/{screen['id']}")["name"] == "Home at 1024"

    # Someone saves meanwhile: the kept edits come back on the base they were made on, and saving
    # merges (their name, my removal).
    set_value(css(browser, "#screen-name"), "Home at 1024")  # unchanged
    click(browser, css(browser, "button[aria-label='Remove List 2']"))
    wait(browser, lambda d: d.execute_script(ORDER) == ["hero"])
    current = api.ok("GET", f"screens/{screen['id']}")
    api.ok("PATCH", f"screens/{screen['id']}", {"name": "Renamed by Ann"}, etag=f"\"{current['revision']}\"")
    reload(browser)
    banner = visible(browser, ".restore-banner")
    assert "saved again since" in banner.text
    css(browser, ".restore-banner button[data-action='restore']").click()
    wait(browser, lambda d: d.execute_script(ORDER) == ["hero"])
    css(browser, "#save-screen").click()
    visible(browser, ".merged-banner")
    saved = api.ok("GET", f"screens/{screen['id']}")
    assert saved["name"] == "Renamed by Ann" and [c["component_type"] for c in saved["ui_components"]] == ["hero"]


def test_undo_and_redo_edits_moves_and_removals(browser, api):
    family = api.family()
    screen = api.screen(family["id"], "Home", components())
    browser.set_window_size(1440, 900)
    sign_in(browser, api, f"#/screens/{screen['id']}")
    name = visible(browser, "#screen-name")
    set_value(name, "Typed")
    # A move (keyboard), then a removal.
    handle = css(browser, "[data-component-type='hero'] .drag-handle")
    handle.send_keys(Keys.ALT, Keys.ARROW_DOWN)
    wait(browser, lambda d: d.execute_script(ORDER) == ["grid", "hero", "list"])
    click(browser, css(browser, "button[aria-label='Remove List 3']"))
    wait(browser, lambda d: d.execute_script(ORDER) == ["grid", "hero"])
    # The removal says so, with an Undo.
    toast = visible(browser, "#status .status-message.with-action")
    assert "List 3 removed" in toast.text
    shot(browser, "16-undo-removal-1440")
    toast.find_element("css selector", "button[data-action='status-action']").click()
    wait(browser, lambda d: d.execute_script(ORDER) == ["grid", "hero", "list"], message="removal undone")
    # Ctrl+Z: the move is undone; again: the typing.
    keys(browser, Keys.CONTROL, "z")
    wait(browser, lambda d: d.execute_script(ORDER) == ["hero", "grid", "list"], message="move undone")
    keys(browser, Keys.CONTROL, "z")
    wait(browser, lambda d: css(d, "#screen-name").get_attribute("value") == "Home", message="typing undone")
    assert not css(browser, "#save-status").text.startswith("Unsaved")
    # Ctrl+Shift+Z redoes both; the Redo button knows what is next.
    keys(browser, Keys.CONTROL, Keys.SHIFT, "z")
    wait(browser, lambda d: css(d, "#screen-name").get_attribute("value") == "Typed", message="typing redone")
    assert "move Hero to position 2" in css(browser, "#redo").get_attribute("aria-label")
    css(browser, "#redo").click()
    wait(browser, lambda d: d.execute_script(ORDER) == ["grid", "hero", "list"], message="move redone")
    browser.set_window_size(1024, 900)
    shot(browser, "16-undo-redo-1024")
    css(browser, "#save-screen").click()
    wait(browser, lambda d: css(d, "#save-status").text.startswith("Saved"))
    saved = api.ok("GET", f"screens/{screen['id']}")
    assert saved["name"] == "Typed" and [c["component_type"] for c in saved["ui_components"]] == ["grid", "hero", "list"]


def test_family_and_layout_edits_are_kept_too(browser, api):
    family = api.family()
    layout = api.ok("POST", "layouts", {"name": "Starter", "family": family["id"], "ui_components": components()})
    sign_in(browser, api, f"#/families/{family['id']}")
    field = visible(browser, "input[data-pointer='/name']")
    set_value(field, "Phones, kept")
    click(browser, css(browser, "button[aria-label='Remove cell style GRID_1']"))
    go(browser, f"#/layouts/{layout['id']}")
    visible(browser, "dialog.leave-dialog[open] button[data-action='stay']").click()
    reload(browser)
    banner = visible(browser, ".restore-banner")
    assert "name: “Phones" in banner.text and "cell styles: GRID_1" in banner.text, banner.text
    css(browser, ".restore-banner button[data-action='restore']").click()
    wait(browser, lambda d: css(d, "input[data-pointer='/name']").get_attribute("value") == "Phones, kept")
    # Restoring is a step of its own: Ctrl+Z takes it back (the cell style returns), Ctrl+Shift+Z redoes it.
    keys(browser, Keys.CONTROL, "z")
    wait(browser, lambda d: all_css(d, "button[aria-label='Remove cell style GRID_1']"), message="cell style back")
    assert css(browser, "input[data-pointer='/name']").get_attribute("value") == family["name"]
    keys(browser, Keys.CONTROL, Keys.SHIFT, "z")
    wait(browser, lambda d: css(d, "input[data-pointer='/name']").get_attribute("value") == "Phones, kept")

    go(browser, f"#/layouts/{layout['id']}")
    visible(browser, "dialog.leave-dialog[open] button[data-action='drop']").click()
    click(browser, visible(browser, "button[aria-label='Remove Grid 2']"))
    reload(browser)
    banner = visible(browser, ".restore-banner")
    assert "Grid 2 removed" in banner.text
    # The family's edits were dropped on leaving: nothing is kept for it.
    assert browser.execute_script("return Object.keys(localStorage).filter(k => k.includes('.families.'))") == []


def test_leave_dialog_offers_save_and_leave(browser, api):
    family = api.family()
    screen = api.screen(family["id"], "Home", components())
    sign_in(browser, api, f"#/screens/{screen['id']}")
    for width in (1440, 1024):
        browser.set_window_size(width, 900)
        set_value(visible(browser, "#screen-name"), f"Left at {width}")
        css(browser, "#nav a[data-nav='/families']").click()
        dialog = visible(browser, "dialog.leave-dialog[open]")
        buttons = [b.text for b in dialog.find_elements("css selector", "button")]
        assert buttons == ["Stay here", "Leave and drop changes", "Save and leave"]
        # The default (focused) answer saves.
        assert browser.execute_script("return document.activeElement.dataset.action") == "save"
        shot(browser, f"17-leave-dialog-{width}")
        dialog.find_element("css selector", "button[data-action='save']").click()
        wait(browser, lambda d: "/families" in d.current_url, message="left after saving")
        assert api.ok("GET", f"screens/{screen['id']}")["name"] == f"Left at {width}"
        go(browser, f"#/screens/{screen['id']}")
    # A save that fails keeps the page: nothing is lost.
    set_value(visible(browser, "#screen-name"), "")
    css(browser, "#nav a[data-nav='/families']").click()
    visible(browser, "dialog.leave-dialog[open] button[data-action='save']").click()
    visible(browser, ".error-summary")
    assert f"/screens/{screen['id']}" in browser.current_url


def test_kept_edits_survive_a_change_of_the_apps_slug(browser, api):
    """Edits are kept under the app's id: renaming its slug (here, or by another admin) does not
    orphan them; a draft kept under the slug by an older editor moves to the id."""
    family = api.family()
    screen = api.screen(family["id"], "Home", components())
    app_id = api.ok("GET", f"/api/v1/apps/{api.app}")["id"]
    sign_in(browser, api, f"#/screens/{screen['id']}")
    visible(browser, "#screen-name")
    set_value(css(browser, "#screen-name"), "Home, renamed")
    wait(browser, lambda d: d.execute_script(
        "return Object.keys(localStorage).filter(k => k.startsWith('rivers.draft.'))") == [f"rivers.draft.{app_id}.screens.{screen['id']}"])

    new_slug = api.app + "-new"
    api.ok("PATCH", f"/api/v1/apps/{api.app}", {"slug": new_slug})
    api.app = new_slug
    reload(browser)
    banner = visible(browser, ".restore-banner")
    assert "Home, renamed" in banner.text, banner.text

    # A draft an older editor kept under the slug: offered back, and moved to the id's key.
    by_id, by_slug = f"rivers.draft.{app_id}.screens.{screen['id']}", f"rivers.draft.{new_slug}.screens.{screen['id']}"
    browser.execute_script(
        "localStorage.setItem(arguments[1], localStorage.getItem(arguments[0])); localStorage.removeItem(arguments[0])", by_id, by_slug)
    reload(browser)
    banner = visible(browser, ".restore-banner")
    assert "Home, renamed" in banner.text, banner.text
    assert browser.execute_script("return Object.keys(localStorage).filter(k => k.startsWith('rivers.draft.'))") == [by_id]

"""Screens: create, components from the catalog, reordering (keyboard, buttons, drag and drop)
with the live preview following, fields and their validation errors, connected screens, layouts."""
import re

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from conftest import all_css, browser_errors, click, css, set_value, shot, sign_in, unlabelled_controls, visible, wait

PREVIEW_ORDER = "return [...document.querySelectorAll('#preview-frame .device:first-child svg.device-content > g.section')].map(g => g.dataset.componentType)"
CARD_ORDER = "return [...document.querySelectorAll('.component-list > .component-card')].map(li => li.dataset.componentType)"

DRAG = """
const [source, target, before] = arguments;
const data = new DataTransfer();
const fire = (el, type, y) => {
  const r = el.getBoundingClientRect();
  el.dispatchEvent(new DragEvent(type, {bubbles: true, cancelable: true, dataTransfer: data,
    clientX: r.left + 20, clientY: y === undefined ? r.top + r.height / 2 : y}));
};
const r = target.getBoundingClientRect();
const y = before ? r.top + 4 : r.bottom - 4;
fire(source, 'dragstart');
fire(target, 'dragenter', y);
fire(target, 'dragover', y);
fire(target, 'drop', y);
fire(source, 'dragend');
"""


def preview_svg(driver):
    return driver.execute_script("return document.querySelector('#preview-frame svg.device-content')?.outerHTML || ''")


def wait_saved(driver):
    wait(driver, lambda d: css(d, "#save-status").text.startswith("Saved"), message="saved")


def screen_id(driver):
    return re.search(r"/screens/([0-9a-f-]{36})", driver.current_url).group(1)


def test_components_added_reordered_and_the_preview_follows(browser, api):
    family = api.family()
    sign_in(browser, api, "#/screens")
    set_value(visible(browser, "#new-screen-name"), "Home")
    Select(css(browser, "#new-screen-family")).select_by_value(family["id"])
    css(browser, ".create-form button[type='submit']").click()
    wait(browser, lambda d: re.search(r"/screens/[0-9a-f-]{36}$", d.current_url), message="opens the new screen")
    sid = screen_id(browser)
    visible(browser, ".catalog-item[data-type='list']")
    wait(browser, lambda d: preview_svg(d), message="first preview")

    for kind in ("list", "grid", "hero"):
        css(browser, f".catalog-item[data-type='{kind}']").click()
    assert browser.execute_script(CARD_ORDER) == ["list", "grid", "hero"]
    assert "Unsaved" in css(browser, "#save-status").text
    # The preview is drawn from the unsaved screen.
    wait(browser, lambda d: d.execute_script(PREVIEW_ORDER) == ["list", "grid", "hero"], message="preview of three components")
    css(browser, "#save-screen").click()
    wait_saved(browser)
    saved = api.ok("GET", f"screens/{sid}")
    assert [c["component_type"] for c in saved["ui_components"]] == ["list", "grid", "hero"]
    before = preview_svg(browser)

    # Keyboard: Alt+ArrowUp anywhere inside a component moves it; focus stays with it.
    hero_style = css(browser, ".component-card[data-component-type='hero'] input[data-pointer$='/rules/item_limit']")
    hero_style.click()
    ActionChains(browser).key_down(Keys.ALT).send_keys(Keys.ARROW_UP).key_up(Keys.ALT).perform()
    wait(browser, lambda d: d.execute_script(CARD_ORDER) == ["list", "hero", "grid"], message="hero moved up")
    assert browser.execute_script("return document.activeElement.closest('.component-card').dataset.componentType") == "hero"
    wait(browser, lambda d: d.execute_script(PREVIEW_ORDER) == ["list", "hero", "grid"], message="preview follows the keyboard move")
    after_keyboard = preview_svg(browser)
    assert after_keyboard != before

    # Buttons with labels.
    click(browser, css(browser, "button[aria-label='Move List 1 down']"))
    wait(browser, lambda d: d.execute_script(CARD_ORDER) == ["hero", "list", "grid"])
    wait(browser, lambda d: d.execute_script(PREVIEW_ORDER) == ["hero", "list", "grid"], message="preview follows the button")

    # Drag and drop: the grid goes before everything.
    cards = all_css(browser, ".component-list > .component-card")
    browser.execute_script(DRAG, cards[2], cards[0], True)
    wait(browser, lambda d: d.execute_script(CARD_ORDER) == ["grid", "hero", "list"], message="dropped first")
    wait(browser, lambda d: d.execute_script(PREVIEW_ORDER) == ["grid", "hero", "list"], message="preview follows the drop")
    assert preview_svg(browser) not in (before, after_keyboard)
    shot(browser, "04-screen-editor")
    assert unlabelled_controls(browser) == []

    css(browser, "#save-screen").click()
    wait_saved(browser)
    saved = api.ok("GET", f"screens/{sid}")
    assert [c["component_type"] for c in saved["ui_components"]] == ["grid", "hero", "list"]
    assert saved["revision"] == 3
    # Removing one.
    css(browser, "button[aria-label='Remove Hero 2']").click()
    wait(browser, lambda d: d.execute_script(CARD_ORDER) == ["grid", "list"])
    wait(browser, lambda d: d.execute_script(PREVIEW_ORDER) == ["grid", "list"])
    css(browser, "#save-screen").click()
    wait_saved(browser)
    assert [c["component_type"] for c in api.ok("GET", f"screens/{sid}")["ui_components"]] == ["grid", "list"]
    assert not browser_errors(browser)


def test_screen_fields_validation_and_connected_screens(browser, api):
    family = api.family()
    home = api.screen(family["id"], "Start", [
        {"component_type": "list", "cell_styles": ["LIST_1"], "data": {"source": "1", "type": "APPLICASTER_COLLECTION"}},
    ])
    sign_in(browser, api, f"#/screens/{home['id']}")
    name = visible(browser, "#screen-name")
    wait(browser, lambda d: preview_svg(d))

    # An empty name: said at the field, before asking the server.
    set_value(name, "")
    css(browser, "#save-screen").click()
    wait(browser, lambda d: css(d, "#screen-name").get_attribute("aria-invalid") == "true", message="name marked invalid")
    assert "give the screen a name" in css(browser, "#screen-name").find_element("xpath", "..").text
    assert css(browser, ".error-summary").is_displayed()

    set_value(css(browser, "#screen-name"), "Start page")
    Select(css(browser, "#screen-presentation")).select_by_value("present")
    limit = css(browser, "input[data-pointer='/ui_components/0/rules/item_limit']")
    set_value(limit, "4")
    css(browser, ".component-card input[data-pointer='/ui_components/0/header/visible']").click()
    wait(browser, lambda d: "header" in preview_svg(d), message="header in the preview")
    css(browser, "#save-screen").click()
    wait_saved(browser)
    saved = api.ok("GET", f"screens/{home['id']}")
    assert saved["name"] == "Start page"
    assert saved["styles"]["presentation"] == "present"
    assert saved["ui_components"][0]["rules"]["item_limit"] == 4
    assert saved["ui_components"][0]["header"]["visible"] is True

    # Layout warnings of the unsaved state are listed; each leads to its component.
    style_box = css(browser, ".component-card input[type='checkbox'][id$='-LIST_1']")
    style_box.click()
    warning = wait(browser, lambda d: next((b for b in all_css(d, "#preview-warnings button") if "no cell styles" in b.text), False), message="warning listed")
    shot(browser, "05a-preview-warning")
    warning.click()
    assert browser.execute_script("return document.activeElement.closest('.component-card')?.dataset.index") == "0"
    css(browser, ".component-card input[type='checkbox'][id$='-LIST_1']").click()
    wait(browser, lambda d: "No layout warnings" in css(d, "#preview-warnings").text)
    wait(browser, lambda d: css(d, "#save-status").text.startswith("Saved"), message="back to the saved state")

    # A connected screen under it: its components show no data-source fields.
    css(browser, "a[href*='/screens?parent=']").click()
    visible(browser, "#new-screen-parent")
    assert css(browser, "#mode-connected").is_selected()
    assert Select(css(browser, "#new-screen-parent")).first_selected_option.get_attribute("value") == home["id"]
    set_value(css(browser, "#new-screen-name"), "Show page")
    css(browser, ".create-form button[type='submit']").click()
    wait(browser, lambda d: re.search(r"/screens/[0-9a-f-]{36}$", d.current_url) and screen_id(d) != home["id"])
    visible(browser, ".catalog-item[data-type='list']").click()
    visible(browser, ".component-card")
    assert not all_css(browser, ".component-card input[data-pointer$='/data/source']")
    assert not all_css(browser, ".component-card input[data-pointer$='/data/type']")
    assert all_css(browser, ".component-card select[data-pointer$='/data/target']")
    css(browser, "#save-screen").click()
    wait_saved(browser)
    # The tree: the connected screen under its parent, home and kinds marked (found afresh on each
    # try: the list follows the app live and may be drawn again meanwhile).
    def tree_shows_it(d):
        parent_item = d.find_element("css selector", f".sidebar li[data-screen-id='{home['id']}']")
        child = parent_item.find_element("css selector", "ul.nested li")
        return "Home" in parent_item.text and "Root" in parent_item.text and "Show page" in child.text and "Connected" in child.text
    wait(browser, tree_shows_it, message="the connected screen under its parent in the tree")
    shot(browser, "05-connected-screen")
    assert unlabelled_controls(browser) == []
    assert not browser_errors(browser)


def test_layout_from_a_screen_starts_new_screens(browser, api):
    family = api.family()
    screen = api.screen(family["id"], "Catalog", [
        {"component_type": "hero", "cell_styles": ["GRID_1"], "data": {"source": "1", "type": "APPLICASTER_COLLECTION"}},
        {"component_type": "grid", "cell_styles": ["GRID_1"], "data": {"source": "2", "type": "APPLICASTER_COLLECTION"}},
    ])
    sign_in(browser, api, f"#/screens/{screen['id']}")
    visible(browser, ".component-card")
    css(browser, "button[data-focus-key='as-layout']").click()
    name = visible(browser, "dialog[open] input")
    set_value(name, "Catalog layout")
    css(browser, "dialog[open] button[type='submit']").click()
    wait(browser, lambda d: "Catalog layout" in css(d, "#status").text, message="layout saved message")

    css(browser, "#nav a[data-nav='/layouts']").click()
    wait(browser, lambda d: all(w in css(d, ".layout-card").text for w in ("Catalog layout", "Hero", "Grid")), message="the layout listed")
    wait(browser, lambda d: css(d, ".layout-thumb svg"), message="its preview")
    shot(browser, "06-layouts")
    assert unlabelled_controls(browser) == []
    css(browser, ".layout-card a[href*='/screens?layout=']").click()
    visible(browser, "#new-screen-layout")
    assert css(browser, "#mode-layout").is_selected()
    set_value(css(browser, "#new-screen-name"), "Catalog 2")
    css(browser, ".create-form button[type='submit']").click()
    wait(browser, lambda d: re.search(r"/screens/[0-9a-f-]{36}$", d.current_url) and screen_id(d) != screen["id"])
    wait(browser, lambda d: d.execute_script(CARD_ORDER) == ["hero", "grid"], message="components from the layout")
    new = api.ok("GET", f"screens/{screen_id(browser)}")
    assert new["family"] == family["id"]
    assert {c["id"] for c in new["ui_components"]}.isdisjoint({c["id"] for c in screen["ui_components"]})
    assert not browser_errors(browser)


def test_edit_a_layout_with_its_own_preview(browser, api):
    family = api.family()
    layout = api.ok("POST", "layouts", {"name": "Rails", "family": family["id"], "ui_components": [
        {"component_type": "horizontal_list", "cell_styles": ["GRID_1"], "data": {"source": "1", "type": "FEED"}},
        {"component_type": "list", "cell_styles": ["LIST_1"], "data": {"source": "2", "type": "FEED"}},
    ]})
    sign_in(browser, api, f"#/layouts/{layout['id']}")
    set_value(visible(browser, "#layout-name"), "Rails v2")
    wait(browser, lambda d: d.execute_script(PREVIEW_ORDER) == ["horizontal_list", "list"])
    css(browser, "button[aria-label='Move List 2 up']").click()
    wait(browser, lambda d: d.execute_script(PREVIEW_ORDER) == ["list", "horizontal_list"], message="layout preview follows")
    css(browser, ".resource-form button[type='submit']").click()
    wait(browser, lambda d: css(d, "#save-status").text.startswith("Saved · revision 2"))
    saved = api.ok("GET", f"layouts/{layout['id']}")
    assert saved["name"] == "Rails v2"
    assert [c["component_type"] for c in saved["ui_components"]] == ["list", "horizontal_list"]
    assert not browser_errors(browser)


def test_offline_flags_are_saved(browser, api):
    """The screen's `home_offline` and `supports_offline` checkboxes save as booleans."""
    family = api.family()
    screen = api.screen(family["id"], name="Offline")
    sign_in(browser, api, f"#/screens/{screen['id']}")
    home_offline = visible(browser, "#screen-home-offline")
    supports_offline = css(browser, "#screen-supports-offline")
    assert not home_offline.is_selected() and not supports_offline.is_selected()
    assert css(browser, "label[for='screen-home-offline']").text == "Home when offline"
    home_offline.click()
    css(browser, "#save-screen").click()
    wait_saved(browser)
    saved = api.ok("GET", f"screens/{screen['id']}")
    assert saved["home_offline"] is True and saved["supports_offline"] is False
    assert not browser_errors(browser)

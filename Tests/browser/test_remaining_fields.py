"""The remaining fields of issue 14: a navigation's styles, rules and assets (typed key/value rows
that keep JSON types exactly), a hook's screen (a picker of the app's screens, clearable), a
plugin's text style, uploader and font fields with proper controls, and "Save as layout" errors at
their fields. Screenshots at 1440 and 1024 px."""
import re

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import BASE_URL, all_css, browser_errors, click, css, go, set_value, shot, sign_in, unlabelled_controls, visible, wait
from test_layout import check_fits

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)
DESCRIBED = """
const el = arguments[0];
const ids = (el.getAttribute('aria-describedby') || '').split(/\\s+/).filter(Boolean);
return ids.map((id) => document.getElementById(id)).filter((m) => m && m.classList.contains('field-error')).map((m) => m.textContent);
"""


def wait_saved(driver):
    wait(driver, lambda d: css(d, "#save-status").text.startswith("Saved"), message="saved")


def invalid(driver, selector):
    return wait(driver, lambda d: next((e for e in all_css(d, selector) if e.get_attribute("aria-invalid") == "true"), False),
                message=f"{selector} marked invalid")


def errors_of(driver, element):
    return driver.execute_script(DESCRIBED, element)


def group(driver, category, member):
    return css(driver, f".nav-members[data-category='{category}'] fieldset[data-member='{member}']")


def rows(driver, category, member):
    return group(driver, category, member).find_elements(By.CSS_SELECTOR, "li.member-row")


def row_state(row):
    """(key, type, value as shown) of a row."""
    key = row.find_element(By.CSS_SELECTOR, ".member-key input").get_attribute("value")
    kind = row.find_element(By.CSS_SELECTOR, ".member-type select").get_attribute("value")
    value = row.find_element(By.CSS_SELECTOR, ".member-value input, .member-value select").get_attribute("value")
    return key, kind, value


def by_key(driver, category, member):
    """{key: (type, value)} of an object's rows."""
    return {k: (t, v) for k, t, v in (row_state(r) for r in rows(driver, category, member))}


def row(driver, category, member, key):
    return next(r for r in rows(driver, category, member) if row_state(r)[0] == key)


def add_row(driver, category, member):
    before = len(rows(driver, category, member))
    click(driver, group(driver, category, member).find_element(By.CSS_SELECTOR, ".members-add"))
    wait(driver, lambda d: len(rows(d, category, member)) == before + 1, message="row added")
    return rows(driver, category, member)[-1]


def test_navigation_styles_rules_and_assets_keep_their_types(browser, api):
    family = api.family()
    screen = api.screen(family["id"], "Home", navigations=[{
        "category": "nav_bar", "navigation_type": "navigation_bar", "name": "Top bar",
        "styles": {"font_size": "18", "background_color": "#FF112233", "height": 44, "translucent": True, "shadow": {"radius": 2}},
        "rules": {}, "assets": {}, "nav_items": [],
    }])
    browser.set_window_size(1440, 900)
    sign_in(browser, api, f"#/screens/{screen['id']}")
    # Members present: unfolded, each row with the type JSON gave it ("18" is text, not a number).
    visible(browser, ".nav-members[data-category='nav_bar'] li.member-row")
    assert by_key(browser, "nav_bar", "styles") == {
        "font_size": ("text", "18"), "background_color": ("text", "#FF112233"), "height": ("number", "44"),
        "translucent": ("boolean", "true"), "shadow": ("json", '{"radius":2}')}
    # A colour's key gives its text a swatch (its alpha stays in the text).
    assert row(browser, "nav_bar", "styles", "background_color").find_element(By.CSS_SELECTOR, "input[type=color]").get_attribute("value") == "#112233"
    assert not row(browser, "nav_bar", "styles", "font_size").find_elements(By.CSS_SELECTOR, "input[type=color]")

    set_value(row(browser, "nav_bar", "styles", "font_size").find_element(By.CSS_SELECTOR, ".member-value input"), "20")
    Select(row(browser, "nav_bar", "styles", "translucent").find_element(By.CSS_SELECTOR, ".member-value select")).select_by_value("false")
    Select(row(browser, "nav_bar", "styles", "height").find_element(By.CSS_SELECTOR, ".member-type select")).select_by_value("text")
    # A rule and an asset.
    rule = add_row(browser, "nav_bar", "rules")
    set_value(rule.find_element(By.CSS_SELECTOR, ".member-key input"), "max_items")
    Select(rule.find_element(By.CSS_SELECTOR, ".member-type select")).select_by_value("number")
    rule = rows(browser, "nav_bar", "rules")[-1]
    set_value(rule.find_element(By.CSS_SELECTOR, ".member-value input"), "5")
    asset = add_row(browser, "nav_bar", "assets")
    set_value(asset.find_element(By.CSS_SELECTOR, ".member-key input"), "logo")
    set_value(asset.find_element(By.CSS_SELECTOR, ".member-value input"), "https://example.com/logo.png")
    # A key used twice is refused before saving, at the row's key.
    extra = add_row(browser, "nav_bar", "styles")
    set_value(extra.find_element(By.CSS_SELECTOR, ".member-key input"), "height")
    set_value(extra.find_element(By.CSS_SELECTOR, ".member-value input"), "12")
    click(browser, css(browser, "#save-screen"))
    key = invalid(browser, ".nav-members[data-category='nav_bar'] .member-key input")
    assert "earlier entry" in " ".join(errors_of(browser, key))
    assert "Nav bar › Key of entry 6 of Nav bar styles" in css(browser, ".error-summary").text
    assert "Unsaved" in css(browser, "#save-status").text
    browser.execute_script("document.querySelector('.nav-members').scrollIntoView({block: 'center'})")
    shot(browser, "23-navigation-styles-1440")
    assert unlabelled_controls(browser) == []
    check_fits(browser, "navigation styles at 1440 px")
    # A key that names a colour gets the swatch; the swatch writes the text.
    set_value(key, "title_color")
    assert not [e for e in all_css(browser, ".member-key input") if e.get_attribute("aria-invalid") == "true"]
    swatch = visible(browser, ".nav-members[data-category='nav_bar'] fieldset[data-member='styles'] li.member-row:last-child input[type=color]")
    browser.execute_script("arguments[0].value = '#00ff00'; arguments[0].dispatchEvent(new Event('input', {bubbles: true}))", swatch)
    assert row_state(rows(browser, "nav_bar", "styles")[-1]) == ("title_color", "text", "#00FF00")
    click(browser, css(browser, "#save-screen"))
    wait_saved(browser)

    nav = api.ok("GET", f"screens/{screen['id']}")["navigations"][0]
    assert nav["styles"] == {"font_size": "20", "background_color": "#FF112233", "height": "44", "translucent": False,
                             "shadow": {"radius": 2}, "title_color": "#00FF00"}
    assert isinstance(nav["styles"]["font_size"], str) and isinstance(nav["styles"]["height"], str)
    assert nav["rules"] == {"max_items": 5}
    assert nav["assets"] == {"logo": "https://example.com/logo.png"}

    # Opened again: the same types. A removed row goes; undo brings it back.
    go(browser, "#/screens")
    go(browser, f"#/screens/{screen['id']}")
    visible(browser, ".nav-members[data-category='nav_bar'] li.member-row")
    assert by_key(browser, "nav_bar", "rules") == {"max_items": ("number", "5")}
    assert by_key(browser, "nav_bar", "styles")["height"] == ("text", "44")
    assert by_key(browser, "nav_bar", "styles")["font_size"] == ("text", "20")
    click(browser, rows(browser, "nav_bar", "assets")[0].find_element(By.CSS_SELECTOR, "button[aria-label^='Remove entry 1 (logo)']"))
    wait(browser, lambda d: not rows(d, "nav_bar", "assets"), message="asset removed")
    click(browser, css(browser, "#undo"))
    wait(browser, lambda d: [row_state(r) for r in rows(d, "nav_bar", "assets")] == [("logo", "text", "https://example.com/logo.png")], message="undone")
    browser.set_window_size(1024, 900)
    browser.execute_script("document.querySelector('.nav-members').scrollIntoView({block: 'center'})")
    shot(browser, "23-navigation-styles-1024")
    check_fits(browser, "navigation styles at 1024 px")
    assert not browser_errors(browser)


def hook_manifest(identifier, name):
    return {"author_name": "A", "author_email": "a@example.com", "manifest_version": "1.0.0", "name": name,
            "description": "A test plugin", "identifier": identifier, "type": "general", "min_zapp_sdk": "1.0.0",
            "ui_builder_support": True}


def test_a_hooks_screen_is_picked_by_name_and_cleared(browser, api):
    api.ok("POST", "plugins", hook_manifest("login_gate", "Login gate"))
    family = api.family()
    home = api.screen(family["id"], "Home", hooks={"preload_plugins": [{"identifier": "login_gate", "type": "general", "weight": 1}], "postload_plugins": []})
    login = api.screen(family["id"], "Sign in")
    api.screen(family["id"], "Settings")
    sign_in(browser, api, f"#/screens/{home['id']}")
    picker = visible(browser, "#hook-preload_plugins-0-screen")
    names = [o.text for o in Select(picker).options]
    assert names[0] == "(not a screen)" and "Sign in" in names and "Settings" in names and "Home (this screen)" in names
    assert not [n for n in names if UUID.search(n)], names  # names, never ids
    Select(picker).select_by_visible_text("Sign in")
    clear = visible(browser, "button[aria-label='Clear the screen of login_gate']")
    for width in (1440, 1024):
        browser.set_window_size(width, 900)
        browser.execute_script("document.querySelector('.hooks-editor').scrollIntoView()")
        shot(browser, f"24-hook-screen-{width}")
        check_fits(browser, f"hooks at {width} px")
    assert unlabelled_controls(browser) == []
    click(browser, css(browser, "#save-screen"))
    wait_saved(browser)
    hook = api.ok("GET", f"screens/{home['id']}")["hooks"]["preload_plugins"][0]
    assert hook["screen_id"] == login["id"] and hook["identifier"] == "login_gate"

    go(browser, "#/screens")
    go(browser, f"#/screens/{home['id']}")
    # The hooks are drawn again once the app's plugins are loaded: wait through that (stale elements retried).
    wait(browser, lambda d: Select(css(d, "#hook-preload_plugins-0-screen")).first_selected_option.text == "Sign in", message="hook screen kept")
    wait(browser, lambda d: click(d, css(d, "button[aria-label='Clear the screen of login_gate']")) or True, message="screen cleared")
    assert Select(css(browser, "#hook-preload_plugins-0-screen")).first_selected_option.get_attribute("value") == ""
    click(browser, css(browser, "#save-screen"))
    wait_saved(browser)
    hook = api.ok("GET", f"screens/{home['id']}")["hooks"]["preload_plugins"][0]
    assert "screen_id" not in hook or hook["screen_id"] is None, hook
    assert not browser_errors(browser)


def plugin_manifest():
    return {
        "author_name": "A", "author_email": "a@example.com", "manifest_version": "1.0.0", "name": "Promo",
        "description": "A screen plugin", "identifier": "promo-fields", "type": "general", "min_zapp_sdk": "1.0.0",
        "ui_builder_support": True, "screen": True,
        "general": {"fields": [
            {"key": "title_style", "type": "text_style", "label": "Title style", "form_configuration": {"sections": [
                {"key": "title", "label": "Title", "fields": [
                    {"key": "font_family", "type": "ios_font_selector", "label": "Font"},
                    {"key": "font_size", "type": "number_input", "label": "Size", "initial_value": 18},
                    {"key": "color", "type": "color_picker", "label": "Colour"},
                ]},
                {"key": "subtitle", "label": "Subtitle", "fields": [
                    {"key": "font_family", "type": "android_font_selector", "label": "Font"},
                ]},
            ]}},
            {"key": "logo", "type": "uploader", "label": "Logo"},
            {"key": "body_font", "type": "ios_font_selector", "label": "Body font", "initial_value": "SFProText-Bold"},
            {"key": "caption_font", "type": "tvos_font_selector", "label": "Caption font"},
        ]},
    }


def test_plugin_text_style_uploader_and_fonts(browser, api):
    api.ok("POST", "plugins", plugin_manifest())
    family = api.family()
    screen = api.screen(family["id"], "Promo", type="promo-fields")
    browser.set_window_size(1440, 900)
    sign_in(browser, api, f"#/screens/{screen['id']}")
    style = visible(browser, ".plugin-form fieldset.text-style[data-key='title_style']")
    assert "Title style" in style.text and "Subtitle" in style.text

    # The text style: its nested fields with their own controls.
    title_font = css(browser, "select[data-pointer='/general/title_style/title/font_family']")
    assert "SFProText-Regular" in [o.get_attribute("value") for o in Select(title_font).options]
    Select(title_font).select_by_value("Avenir-Heavy")
    size = css(browser, "input[data-pointer='/general/title_style/title/font_size']")
    assert size.get_attribute("value") == "18"  # the initial value
    set_value(size, "22")
    set_value(css(browser, "input[data-pointer='/general/title_style/title/color']"), "red")
    sub_font = css(browser, "select[data-pointer='/general/title_style/subtitle/font_family']")
    assert "Roboto-Regular" in [o.get_attribute("value") for o in Select(sub_font).options]
    Select(sub_font).select_by_value("__other__")
    custom = visible(browser, "input[data-pointer='/general/title_style/subtitle/font_family']")
    custom.send_keys("MyBrand-Bold")

    # Fonts: the initial font is picked in the list; another is chosen.
    body = css(browser, "select[data-pointer='/general/body_font']")
    assert Select(body).first_selected_option.get_attribute("value") == "SFProText-Bold"
    Select(body).select_by_value("Avenir-Heavy")

    # The uploader: an image address shows the image; plain http is refused before saving.
    logo = css(browser, "input[data-pointer='/general/logo']")
    set_value(logo, f"{BASE_URL}/favicon.svg")
    wait(browser, lambda d: d.execute_script(
        "const i = document.querySelector('.uploader-preview img'); return i && i.complete && i.naturalWidth > 0"), message="the image previewed")
    click(browser, css(browser, "#save-screen"))
    logo = invalid(browser, "input[data-pointer='/general/logo']")
    assert "https://" in " ".join(errors_of(browser, logo))
    set_value(logo, "https://example.com/logo.png")
    assert logo.get_attribute("aria-invalid") is None
    # The editor's security policy shows images of its own server only: another's is linked.
    link = visible(browser, ".uploader-preview a.uploader-open")
    assert link.get_attribute("href") == "https://example.com/logo.png"
    assert not all_css(browser, ".uploader-preview img")

    # The server refuses the colour: at the nested field.
    click(browser, css(browser, "#save-screen"))
    colour = invalid(browser, "input[data-pointer='/general/title_style/title/color']")
    assert "not a colour" in " ".join(errors_of(browser, colour))
    browser.execute_script("document.querySelector('.text-style').scrollIntoView()")
    shot(browser, "25-plugin-fields-1440")
    assert unlabelled_controls(browser) == []
    check_fits(browser, "plugin form at 1440 px")
    set_value(colour, "#FF000000")
    click(browser, css(browser, "#save-screen"))
    wait_saved(browser)

    general = api.ok("GET", f"screens/{screen['id']}")["general"]
    assert general["title_style"]["title"] == {**general["title_style"]["title"], "font_family": "Avenir-Heavy", "font_size": 22, "color": "#FF000000"}
    assert general["title_style"]["subtitle"] == {"font_family": "MyBrand-Bold"}
    assert general["logo"] == "https://example.com/logo.png"
    assert general["body_font"] == "Avenir-Heavy"

    # Opened again: a font not in the list shows as typed.
    go(browser, "#/screens")
    go(browser, f"#/screens/{screen['id']}")
    sub = visible(browser, "input[data-pointer='/general/title_style/subtitle/font_family']")
    assert sub.get_attribute("value") == "MyBrand-Bold"
    assert Select(sub.find_element(By.XPATH, "./ancestor::div[contains(@class,'font-field')]//select")).first_selected_option.get_attribute("value") == "__other__"
    assert css(browser, "input[data-pointer='/general/title_style/title/font_size']").get_attribute("value") == "22"
    browser.set_window_size(1024, 900)
    browser.execute_script("document.querySelector('.plugin-settings').scrollIntoView()")
    shot(browser, "25-plugin-fields-1024")
    check_fits(browser, "plugin form at 1024 px")
    assert not browser_errors(browser)


def open_layout_dialog(driver):
    click(driver, css(driver, "button[data-focus-key='as-layout']"))
    return visible(driver, "dialog[open] #layout-dialog-name")


def test_save_as_layout_shows_its_errors_at_their_fields(browser, api):
    family = api.family()
    lists_only = api.ok("POST", "families", {
        "id": "LISTS", "name": "Lists only", "reference_size": {"width": 320, "height": 568},
        "insets": {"top": 10, "left": 10, "bottom": 10, "right": 10}, "interitem_spacing": 10, "line_spacing": 10,
        "cell_styles": [{"id": "LIST_1", "columns": 1, "height": 80}],
    })
    doomed = api.family("DOOMED")
    screen = api.screen(family["id"], "Home", [
        {"component_type": "grid", "cell_styles": ["GRID_1"]},
        {"component_type": "list", "cell_styles": ["LIST_1"]},
    ])
    browser.set_window_size(1440, 900)
    sign_in(browser, api, f"#/screens/{screen['id']}")
    visible(browser, "#save-screen")

    # No name: said at the name, before asking the server.
    name = open_layout_dialog(browser)
    assert name.get_attribute("value") == "Home layout"
    set_value(name, "")
    css(browser, "dialog[open] button[type=submit]").click()
    name = invalid(browser, "dialog[open] #layout-dialog-name")
    assert "give the layout a name" in " ".join(errors_of(browser, name))

    # A name the server refuses (too long): at the name, in the dialog, which stays open.
    set_value(name, "L" * 201)
    assert name.get_attribute("aria-invalid") is None
    css(browser, "dialog[open] button[type=submit]").click()
    name = invalid(browser, "dialog[open] #layout-dialog-name")
    assert errors_of(browser, name), "the server's message is at the field"
    assert "name" in css(browser, "dialog[open] .error-summary").text
    assert not all_css(browser, ".toast-error"), "no toast: the field says it"
    shot(browser, "26-save-as-layout-errors-1440")
    assert unlabelled_controls(browser) == []

    # A family that is gone by the time it is sent: at the family.
    set_value(name, "Home layout")
    status, _, _ = api.call("DELETE", f"families/{doomed['id']}", etag=f"\"{doomed['revision']}\"")
    assert status in (200, 204)
    Select(css(browser, "dialog[open] #layout-dialog-family")).select_by_value("DOOMED")
    css(browser, "dialog[open] button[type=submit]").click()
    chosen = invalid(browser, "dialog[open] #layout-dialog-family")
    assert "DOOMED" in " ".join(errors_of(browser, chosen))
    browser.set_window_size(1024, 900)
    shot(browser, "26-save-as-layout-errors-1024")

    # A family without the grid's cell style: the dialog closes and the grid's cell styles say so.
    Select(css(browser, "dialog[open] #layout-dialog-family")).select_by_value(lists_only["id"])
    css(browser, "dialog[open] button[type=submit]").click()
    wait(browser, lambda d: not all_css(d, "dialog[open]"), message="the dialog closes")
    styles = wait(browser, lambda d: (lambda e: e if "has-error" in e.get_attribute("class") else False)(
        css(d, "fieldset[data-pointer='/ui_components/0/cell_styles']")), message="the grid's cell styles marked")
    assert "GRID_1" in styles.text
    summary = css(browser, ".error-summary")
    assert "The layout was not saved" in summary.text and "Component 1 (Grid) › Cell styles" in summary.text
    assert browser.execute_script("return document.activeElement.classList.contains('error-summary')")
    assert not all_css(browser, ".toast-error")

    # The screen's own family: saved.
    open_layout_dialog(browser)
    Select(css(browser, "dialog[open] #layout-dialog-family")).select_by_value(family["id"])
    css(browser, "dialog[open] button[type=submit]").click()
    wait(browser, lambda d: not all_css(d, "dialog[open]"), message="the dialog closes")
    layouts = api.ok("GET", "layouts")
    items = layouts["items"] if isinstance(layouts, dict) else layouts
    saved = [x for x in items if x["name"] == "Home layout"]
    assert len(saved) == 1 and saved[0]["family"] == family["id"] and len(saved[0]["ui_components"]) == 2
    assert not browser_errors(browser)

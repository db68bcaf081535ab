"""Issue 29, 4 ("errors all at once, in the words on screen") and canvas editing: every problem of
a family and of a screen shows on the first Save, at its field and in one summary, named by the
labels on screen; nothing known to be refused is sent (no save, no preview that answers 422 while
a value is typed); a tab item set to "A screen" with none chosen stops the save at its field; a
component dragged on the preview moves, and Undo puts it back."""
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from conftest import all_css, browser_errors, click, css, set_value, shot, sign_in, visible, wait

# Every request the editor makes from now on, with its answer's status.
COUNT_REQUESTS = """
window.__requests = [];
if (!window.__fetchWrapped) {
  window.__fetchWrapped = true;
  const original = window.fetch.bind(window);
  window.fetch = async (input, init = {}) => {
    const response = await original(input, init);
    window.__requests.push({url: String(input), method: (init.method || 'GET').toUpperCase(), status: response.status});
    return response;
  };
}
"""


def requests(driver, part="", method=None):
    return [r for r in driver.execute_script("return window.__requests || []")
            if part in r["url"] and (method is None or r["method"] == method)]


def summary_lines(driver):
    return [li.text for li in css(driver, ".form-errors .error-summary").find_elements("css selector", "li")]


API_WORDS = ("interitem", "item_limit", "ui_components", "cell_styles", "reference_size", "component 2 ›", "rules ›")


def assert_no_api_words(texts):
    for text in texts:
        for word in API_WORDS:
            assert word not in text, f"{word!r} in {text!r}"


def test_every_family_problem_on_the_first_save_in_the_words_on_screen(browser, api):
    browser.set_window_size(1440, 900)
    sign_in(browser, api, "#/families/new")
    browser.execute_script(COUNT_REQUESTS)
    set_value(visible(browser, "input[data-pointer='/id']"), "TVS")
    set_value(css(browser, "input[data-pointer='/name']"), "")
    set_value(css(browser, "input[data-pointer='/reference_size/width']"), "0")
    set_value(css(browser, "input[data-pointer='/interitem_spacing']"), "-3")
    set_value(css(browser, "input[data-pointer='/line_spacing']"), "20000")
    set_value(css(browser, "input[data-pointer='/cell_styles/0/columns']"), "0")
    click(browser, css(browser, "button[data-focus-key='save']"))
    summary = visible(browser, ".form-errors .error-summary")
    lines = summary_lines(browser)
    assert len(lines) == 5, lines
    text = "\n".join(lines)
    assert "Name: give the family a name" in text
    assert "Reference width: must be at least 1" in text
    assert "Item spacing: must not be negative" in text
    assert "Line spacing: must be at most 10,000" in text
    assert "Cell style 1 (LIST_1) › Columns: must be at least 1" in text
    assert_no_api_words(lines)
    # Each at its field, too.
    for pointer in ("/name", "/reference_size/width", "/interitem_spacing", "/line_spacing", "/cell_styles/0/columns"):
        assert css(browser, f"input[data-pointer='{pointer}']").get_attribute("aria-invalid") == "true", pointer
    assert not requests(browser, "/families", "POST"), "nothing sent"
    shot(browser, "70-family-all-errors-1440")

    # The summary follows: a field fixed goes, one still wrong stays, a new problem shows.
    set_value(css(browser, "input[data-pointer='/interitem_spacing']"), "4")
    wait(browser, lambda d: len(summary_lines(d)) == 4, message="one fixed")
    set_value(css(browser, "input[data-pointer='/reference_size/width']"), "-1")
    wait(browser, lambda d: any("Reference width" in line for line in summary_lines(d)), message="still wrong")
    assert "Everything listed is fixed" not in css(browser, ".form-errors .error-summary").text
    for pointer, value in (("/reference_size/width", "320"), ("/line_spacing", "8"), ("/cell_styles/0/columns", "1"), ("/name", "TV")):
        set_value(css(browser, f"input[data-pointer='{pointer}']"), value)
    wait(browser, lambda d: "Everything listed is fixed" in css(d, ".form-errors .error-summary").text, message="all fixed")
    assert not [e.text for e in all_css(browser, ".field-error") if e.is_displayed()]
    click(browser, css(browser, "button[data-focus-key='save']"))
    wait(browser, lambda d: api.call("GET", "families/TVS")[0] == 200, message="created")
    assert not browser_errors(browser)


def test_every_screen_problem_on_the_first_save(browser, api):
    family = api.family()
    screen = api.screen(family["id"], "Home", [
        {"component_type": "list", "cell_styles": ["LIST_1"]},
        {"component_type": "grid", "cell_styles": ["GRID_1"]},
    ])
    browser.set_window_size(1440, 900)
    sign_in(browser, api, f"#/screens/{screen['id']}")
    visible(browser, "#screen-name")
    browser.execute_script(COUNT_REQUESTS)
    set_value(css(browser, "#screen-name"), "")
    set_value(css(browser, "input[data-pointer='/ui_components/0/rules/item_limit']"), "-2")
    set_value(css(browser, "input[data-pointer='/ui_components/1/rules/item_limit']"), "20000")
    picker = css(browser, "li[data-index='1'] select[id$='-stype']")
    Select(picker).select_by_value("__custom__")
    set_value(visible(browser, "li[data-index='1'] input[id$='-stype-custom']"), "bad type!")
    click(browser, css(browser, "#save-screen"))
    visible(browser, ".form-errors .error-summary")
    lines = summary_lines(browser)
    text = "\n".join(lines)
    assert len(lines) == 4, lines
    assert "Name: give the screen a name" in text
    assert "Component 1 (List) › Item limit: must not be negative" in text
    assert "Component 2 (Grid) › Item limit: must be at most 10,000" in text
    assert "Component 2 (Grid) › Custom source type: “bad type!” cannot be" in text, "the label said once"
    # In the order of the form, top to bottom.
    assert [line.split(":")[0] for line in lines] == [
        "Name", "Component 1 (List) › Item limit", "Component 2 (Grid) › Item limit", "Component 2 (Grid) › Custom source type"]
    assert_no_api_words(lines)
    assert not requests(browser, f"/screens/{screen['id']}", "PUT"), "nothing sent"
    assert api.ok("GET", f"screens/{screen['id']}")["name"] == "Home"
    shot(browser, "71-screen-all-errors-1440")
    assert not browser_errors(browser)


def test_no_preview_known_to_be_refused_is_sent_while_typing(browser, api):
    family = api.family()
    screen = api.screen(family["id"], "Home", [{"component_type": "list", "cell_styles": ["LIST_1"]}])
    browser.set_window_size(1440, 900)
    sign_in(browser, api, f"#/screens/{screen['id']}")
    wait(browser, lambda d: css(d, ".preview-panel").get_attribute("data-state") == "ok", message="first preview")
    browser.execute_script(COUNT_REQUESTS)
    limit = css(browser, "input[data-pointer='/ui_components/0/rules/item_limit']")
    click(browser, limit)
    for key in "-25":
        limit.send_keys(key)
    source = css(browser, "li[data-index='0'] select[id$='-stype']")
    Select(source).select_by_value("__custom__")
    custom = visible(browser, "li[data-index='0'] input[id$='-stype-custom']")
    for key in "bad type!":
        custom.send_keys(key)
    # The preview says what it needs, in the form's words, and waits.
    wait(browser, lambda d: "Item limit" in css(d, "#preview-errors").text, message="the preview names the field")
    assert "Component 1 (List) › Item limit: must not be negative" in css(browser, "#preview-errors").text
    refused = [r for r in requests(browser, "/preview") if r["status"] == 422]
    assert not refused, refused
    # Fixed, it draws again.
    set_value(limit, "3")
    set_value(custom, "MY_FEED")
    wait(browser, lambda d: css(d, ".preview-panel").get_attribute("data-state") == "ok", message="drawn again")
    assert [r for r in requests(browser, "/preview") if r["status"] == 200]
    assert not [r for r in requests(browser, "/preview") if r["status"] == 422]
    assert not browser_errors(browser)


def test_a_tab_item_without_a_screen_does_not_save(browser, api):
    family = api.family()
    home = api.screen(family["id"], "Home")
    sign_in(browser, api, f"#/screens/{home['id']}")
    Select(visible(browser, "#nav-menu-new-type")).select_by_value("tab_bar_menu")
    click(browser, css(browser, "[data-focus-key='nav-menu-add']"))
    click(browser, visible(browser, ".navigation-box[data-category='menu'] .nav-add-item"))
    pointer = "/navigations/0/nav_items/0"
    title = visible(browser, f"input[data-pointer='{pointer}/title']")
    set_value(title, "Shows")
    link = css(browser, f"li.nav-item[data-pointer='{pointer}'] select[id$='-link']")
    Select(link).select_by_value("screen")
    target = visible(browser, f"select[data-pointer='{pointer}/data/target']")
    browser.execute_script(COUNT_REQUESTS)
    click(browser, css(browser, "#save-screen"))
    wait(browser, lambda d: target.get_attribute("aria-invalid") == "true", message="marked at its field")
    text = "\n".join(summary_lines(browser))
    assert "Menu › Item 1 (Shows) › Screen" in text, text
    assert not requests(browser, f"/screens/{home['id']}", "PUT")
    saved = api.ok("GET", f"screens/{home['id']}")
    assert not any(n.get("nav_items") for n in saved["navigations"]), "saved anyway"
    shot(browser, "72-tab-item-without-screen")


SECTION_ORDER = """
return [...document.querySelectorAll('#preview-frame .device:first-child .device-content > g.section')]
  .map((g) => g.dataset.componentType);
"""


def form_order(driver):
    return [li.get_attribute("data-component-type") for li in all_css(driver, ".components > .component-list > li.component-card")]


def test_drag_a_component_on_the_preview_and_undo(browser, api):
    family = api.family()
    screen = api.screen(family["id"], "Home", [
        {"component_type": "hero", "cell_styles": ["LIST_1"]},
        {"component_type": "list", "cell_styles": ["LIST_1"]},
        {"component_type": "grid", "cell_styles": ["GRID_1"]},
    ])
    browser.set_window_size(1440, 900)
    sign_in(browser, api, f"#/screens/{screen['id']}")
    wait(browser, lambda d: d.execute_script(SECTION_ORDER) == ["hero", "list", "grid"], message="drawn")
    hero = css(browser, "#preview-frame .device:first-child .device-content > g.section[data-component-index='0'] > rect.section")
    grid = css(browser, "#preview-frame .device:first-child .device-content > g.section[data-component-index='2'] > rect.section")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", hero)
    height = grid.size["height"]
    ActionChains(browser).click_and_hold(hero).move_by_offset(0, 12).move_to_element_with_offset(grid, 0, int(height / 2) - 2).release().perform()
    wait(browser, lambda d: form_order(d) == ["list", "grid", "hero"], message="moved in the form")
    wait(browser, lambda d: d.execute_script(SECTION_ORDER) == ["list", "grid", "hero"], message="drawn in the new order")
    assert "Unsaved" in css(browser, "#save-status").text
    shot(browser, "73-canvas-drag")

    # Undo puts it back, in one step, as a move in the form would.
    click(browser, css(browser, "#undo"))
    wait(browser, lambda d: form_order(d) == ["hero", "list", "grid"], message="undone")
    wait(browser, lambda d: d.execute_script(SECTION_ORDER) == ["hero", "list", "grid"], message="drawn back")

    # The keyboard: the drawing focused, Home and the arrows select, Alt+Arrow Down moves.
    frame = css(browser, "#preview-frame")
    browser.execute_script("arguments[0].focus()", frame)
    frame.send_keys(Keys.HOME)
    wait(browser, lambda d: frame.get_attribute("data-selected") == "0", message="selected")
    frame.send_keys(Keys.ARROW_DOWN)
    wait(browser, lambda d: frame.get_attribute("data-selected") == "1", message="the next one selected")
    frame.send_keys(Keys.ARROW_UP)
    wait(browser, lambda d: frame.get_attribute("data-selected") == "0", message="back to the first")
    ActionChains(browser).key_down(Keys.ALT).send_keys(Keys.ARROW_DOWN).key_up(Keys.ALT).perform()
    wait(browser, lambda d: form_order(d) == ["list", "hero", "grid"], message="moved by keys")
    click(browser, css(browser, "#save-screen"))
    wait(browser, lambda d: css(d, "#save-status").text.startswith("Saved"), message="saved")
    assert [c["component_type"] for c in api.ok("GET", f"screens/{screen['id']}")["ui_components"]] == ["list", "hero", "grid"]
    assert not browser_errors(browser)


def test_no_cell_drawing_known_to_be_refused_is_sent_while_typing(browser, api):
    family = api.family()
    browser.set_window_size(1440, 1000)
    sign_in(browser, api, f"#/families/{family['id']}")
    click(browser, visible(browser, "[data-testid='content-1'] > summary"))
    wait(browser, lambda d: css(d, "[data-testid='content-1'] .cd-drawing").get_attribute("data-state") == "ok", message="drawn")
    browser.execute_script(COUNT_REQUESTS)
    spacing = css(browser, "input[data-pointer='/interitem_spacing']")
    click(browser, spacing)
    spacing.send_keys(Keys.CONTROL, "a")
    for key in "-30":
        spacing.send_keys(key)
    errors = "[data-testid='cell-errors-1']"
    wait(browser, lambda d: "Item spacing: must not be negative" in css(d, errors).text, message="the drawing says what it needs")
    refused = [r for r in requests(browser, "/cell-preview") if r["status"] == 422]
    assert not refused, refused
    set_value(spacing, "10")
    wait(browser, lambda d: css(d, "[data-testid='content-1'] .cd-drawing").get_attribute("data-state") == "ok", message="drawn again")
    assert not [r for r in requests(browser, "/cell-preview") if r["status"] == 422]
    assert not browser_errors(browser)


def test_one_web_address_one_rule_in_the_preview_and_in_save(browser, api):
    family = api.family()
    screen = api.screen(family["id"], "Home", [
        {"component_type": "list", "cell_styles": ["LIST_1"], "data": {"source": "https://example.com/feed", "type": "WEB_URL"}},
    ])
    browser.set_window_size(1440, 900)
    sign_in(browser, api, f"#/screens/{screen['id']}")
    wait(browser, lambda d: css(d, ".preview-panel").get_attribute("data-state") == "ok", message="first preview")
    browser.execute_script(COUNT_REQUESTS)
    source = css(browser, "input[data-pointer='/ui_components/0/data/source']")
    set_value(source, "http://example.com/feed")
    said = "Component 1 (List) › Data source: use https://"
    wait(browser, lambda d: said in css(d, "#preview-errors").text, message="the preview's rule")
    click(browser, css(browser, "#save-screen"))
    wait(browser, lambda d: any(line.startswith(said) for line in summary_lines(d)), message="the same rule at Save")
    assert not [r for r in requests(browser, "/preview") if r["status"] == 422]
    assert not requests(browser, f"/screens/{screen['id']}", "PUT")

"""Plain language and good defaults: every field error at its field (outlined, described by a
message that exists) and a summary that follows the fixes; new components start with a cell style
that suits them; the source type and the header style are pickers; 16:9 stays 16:9; web addresses
are checked; with no family yet, New screen says what to do first; catalog cards fit.
Screenshots at 1440 and 1024 px."""
from selenium.webdriver.support.ui import Select

from conftest import all_css, click, css, go, set_value, shot, sign_in, unlabelled_controls, visible, wait

DESCRIBED = """
const el = arguments[0];
const ids = (el.getAttribute('aria-describedby') || '').split(/\\s+/).filter(Boolean);
return {ids, missing: ids.filter((id) => !document.getElementById(id))};
"""


def test_errors_at_their_fields_and_a_summary_that_follows(browser, api):
    family = api.family()
    screen = api.screen(family["id"], "Home")
    sign_in(browser, api, f"#/screens/{screen['id']}")
    for width in (1440, 1024):
        browser.set_window_size(width, 900)
        go(browser, f"#/screens/{screen['id']}?w={width}")
        name = visible(browser, "#screen-name")
        set_value(name, "")
        css(browser, "#save-screen").click()
        wait(browser, lambda d: css(d, "#screen-name").get_attribute("aria-invalid") == "true", message="outlined")
        name = css(browser, "#screen-name")
        described = browser.execute_script(DESCRIBED, name)
        assert described["ids"] and not described["missing"], described
        assert "give the screen a name" in browser.execute_script("return document.getElementById(arguments[0]).textContent", described["ids"][-1])
        assert browser.execute_script("return getComputedStyle(arguments[0]).borderColor", name) != browser.execute_script(
            "return getComputedStyle(document.getElementById('screen-presentation')).borderColor")
        shot(browser, f"20-field-error-{width}")
        set_value(name, "Home")
        assert name.get_attribute("aria-invalid") is None
        assert not browser.execute_script(DESCRIBED, name)["missing"], "no description points at nothing"
        assert "Everything listed is fixed" in css(browser, ".error-summary").text
        go(browser, "#/screens")
        if all_css(browser, "dialog[open]"):
            css(browser, "dialog[open] button[data-action='drop']").click()

    # A new family: the summary lists both problems, then what is left as they are fixed.
    go(browser, "#/families/new")
    ident = visible(browser, "input[data-pointer='/id']")
    set_value(css(browser, "input[data-pointer='/name']"), "")
    css(browser, "button[data-focus-key='save']").click()
    summary = visible(browser, ".error-summary")
    assert len(summary.find_elements("css selector", "li")) == 2
    set_value(ident, "TABLETS")
    wait(browser, lambda d: css(d, ".error-summary h3").text == "1 thing left to fix", message="one left")
    assert [li.text for li in css(browser, ".error-summary").find_elements("css selector", "li")] == ["Name: give the family a name"]
    shot(browser, "20-family-summary-1440")
    set_value(css(browser, "input[data-pointer='/name']"), "Tablets")
    wait(browser, lambda d: "Everything listed is fixed" in css(d, ".error-summary h3").text)


def test_good_defaults_and_pickers(browser, api):
    # The family's first style is the grid one: a new list still starts with the one-column style.
    family = api.ok("POST", "families", {
        "id": "MIXED", "name": "Mixed", "reference_size": {"width": 320, "height": 568},
        "insets": {"top": 10, "left": 10, "bottom": 10, "right": 10}, "interitem_spacing": 10, "line_spacing": 10,
        "cell_styles": [{"id": "GRID_1", "columns": 2, "aspect_ratio": 1.7778}, {"id": "LIST_1", "columns": 1, "height": 80},
                        {"id": "RAIL_1", "width": 120, "aspect_ratio": 0.6667}],
    })
    screen = api.screen(family["id"], "Home")
    browser.set_window_size(1440, 900)
    sign_in(browser, api, f"#/screens/{screen['id']}")
    # The catalog's cards fit, in words (no keys).
    visible(browser, ".catalog-item[data-type='tab_bar']")
    cards = browser.execute_script("""
return [...document.querySelectorAll('.catalog-item')].map((b) => ({
  text: b.textContent, fits: b.scrollWidth <= b.clientWidth + 1 && b.scrollHeight <= b.clientHeight + 1}));""")
    assert all(c["fits"] for c in cards), cards
    assert not [c for c in cards if "_" in c["text"]], cards
    for kind in ("list", "grid", "horizontal_list"):
        click(browser, css(browser, f".catalog-item[data-type='{kind}']"))
    checked = browser.execute_script("""
return [...document.querySelectorAll('.components > .component-list > .component-card')].map((card) =>
  [...card.querySelectorAll('.cell-style-choice input:checked')].map((i) => i.id.split('-').pop()));""")
    assert checked == [["LIST_1"], ["GRID_1"], ["GRID_1"]]

    # The source type: a picker of the known types, or a custom one.
    picker = Select(css(browser, "select[data-focus-key$='-stype']"))
    values = [o.get_attribute("value") for o in picker.options]
    for known in ("APPLICASTER_CATEGORY", "APPLICASTER_COLLECTION", "APPLICASTER_ATOM_FEED", "APPLICASTER_FAVORITES",
                  "WEB_URL", "BANNER", "DOWNLOADS", "USER_ACCOUNT_COMPONENT"):
        assert known in values
    set_value(css(browser, "input[data-pointer='/ui_components/0/data/source']"), "42")
    picker.select_by_value("__custom__")
    custom = visible(browser, "input[data-pointer='/ui_components/0/data/type']")
    custom.send_keys("MY_PLUGIN_FEED")
    # The header style: a picker of the family's cell styles.
    click(browser, css(browser, "input[data-pointer='/ui_components/1/header/visible']"))
    Select(css(browser, "select[data-pointer='/ui_components/1/header/style']")).select_by_value("LIST_1")
    # A web address is checked: https only.
    set_value(css(browser, "input[data-pointer='/ui_components/2/data/source']"), "http://example.com/page")
    Select(css(browser, "select[data-pointer='/ui_components/2/data/type']")).select_by_value("WEB_URL")
    css(browser, "#save-screen").click()
    source = wait(browser, lambda d: (lambda e: e if e.get_attribute("aria-invalid") == "true" else False)(
        css(d, "input[data-pointer='/ui_components/2/data/source']")), message="the address refused at its field")
    assert "https://" in source.find_element("xpath", "./ancestor::div[contains(@class,'field')][1]").text
    shot(browser, "21-pickers-and-web-address-1440")
    assert unlabelled_controls(browser) == []
    set_value(source, "https://example.com/page")
    css(browser, "#save-screen").click()
    wait(browser, lambda d: css(d, "#save-status").text.startswith("Saved"), message="saved")
    saved = api.ok("GET", f"screens/{screen['id']}")["ui_components"]
    assert saved[0]["data"] == {**saved[0]["data"], "source": "42", "type": "MY_PLUGIN_FEED"}
    assert saved[1]["header"] == {"visible": True, "style": "LIST_1"}
    assert saved[2]["data"]["source"] == "https://example.com/page" and saved[2]["data"]["type"] == "WEB_URL"
    # A custom type shows as custom when opened again.
    go(browser, "#/screens")
    go(browser, f"#/screens/{screen['id']}")
    assert Select(visible(browser, "select[data-focus-key$='-stype']")).first_selected_option.get_attribute("value") == "__custom__"
    assert css(browser, "input[data-pointer='/ui_components/0/data/type']").get_attribute("value") == "MY_PLUGIN_FEED"
    browser.set_window_size(1024, 900)
    click(browser, css(browser, "select[data-pointer='/ui_components/1/header/style']"))
    shot(browser, "21-pickers-1024")

    # 16:9 stays 16:9: shown as a ratio, saved, and shown again as typed.
    go(browser, f"#/families/{family['id']}")
    ratio = visible(browser, "input[data-pointer='/cell_styles/0/aspect_ratio']")
    assert ratio.get_attribute("value") == "16:9"
    set_value(ratio, "4:3")
    css(browser, "button[data-focus-key='save']").click()
    wait(browser, lambda d: d.find_element("css selector", ".save-status").text.startswith("Saved"))
    assert css(browser, "input[data-pointer='/cell_styles/0/aspect_ratio']").get_attribute("value") == "4:3"
    assert abs(api.ok("GET", f"families/{family['id']}")["cell_styles"][0]["aspect_ratio"] - 4 / 3) < 1e-4
    set_value(css(browser, "input[data-pointer='/cell_styles/0/aspect_ratio']"), "16:9")
    css(browser, "button[data-focus-key='save']").click()
    wait(browser, lambda d: d.find_element("css selector", ".save-status").text.startswith("Saved · revision 3"))
    go(browser, "#/families")
    go(browser, f"#/families/{family['id']}")
    assert visible(browser, "input[data-pointer='/cell_styles/0/aspect_ratio']").get_attribute("value") == "16:9"


def test_with_no_family_new_screen_says_what_to_do_first(browser, api):
    sign_in(browser, api, "#/screens")
    for width in (1440, 1024):
        browser.set_window_size(width, 900)
        notice = visible(browser, "#no-family")
        assert "First, create a family" in notice.text
        css(browser, "#new-screen-button").click()
        assert browser.execute_script("return document.activeElement.id") == "first-family-link"
        shot(browser, f"22-no-family-{width}")
    css(browser, "#first-family-link").click()
    visible(browser, "input[data-pointer='/id']")

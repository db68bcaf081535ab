"""Issue 29, round 3: a custom data source type refused at its field (5); a new hero's cell style (8)."""
import os
import subprocess
import uuid

from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from conftest import Api, all_css, browser_errors, click, css, go, set_value, shot, sign_in, unlabelled_controls, visible, wait

DESCRIBED = """
const el = arguments[0];
const ids = (el.getAttribute('aria-describedby') || '').split(/\\s+/).filter(Boolean);
return ids.map((id) => document.getElementById(id)).filter((m) => m && m.classList.contains('field-error')).map((m) => m.textContent);
"""


def errors_of(driver, element):
    return driver.execute_script(DESCRIBED, element)


def wait_saved(driver):
    wait(driver, lambda d: css(d, "#save-status").text.startswith("Saved"), message="saved")


def token_for(api, role):
    """Another token of the same app, with a role (made with the CLI)."""
    out = subprocess.run([os.environ["RIVERS_BIN"], "token", "create", api.app, "--role", role, "--name", f"{role}-{uuid.uuid4().hex[:6]}"],
                         check=True, capture_output=True, text=True).stdout
    token = next(word for word in out.split() if word.startswith("rvs_"))
    return Api(token, api.app)


# Item 5: a custom data source type -------------------------------------------------------------

def test_a_custom_source_type_no_plugin_can_have_is_refused_at_its_field(browser, api):
    """Issue 29, 5: "Other…" took `bad type!` and only the Publish page warned. Now the field says
    so when it is left, and the save stops at it, in words with the field's label."""
    family = api.family()
    screen = api.screen(family["id"], "Home", [
        {"component_type": "list", "cell_styles": ["LIST_1"], "data": {"source": "3119", "type": "APPLICASTER_COLLECTION"}},
    ])
    sign_in(browser, api, f"#/screens/{screen['id']}")
    picker = visible(browser, "select[id$='-stype']")
    Select(picker).select_by_value("__custom__")
    other = visible(browser, "input[id$='-stype-custom']")
    other.send_keys("bad type!")
    other.send_keys(Keys.TAB)  # leaving the field checks it
    wait(browser, lambda d: other.get_attribute("aria-invalid") == "true", message="the custom type marked at once")
    said = " ".join(errors_of(browser, other))
    assert "Custom source type: “bad type!” cannot be a data-source plugin’s type" in said, said
    assert "no spaces" in said

    # Saving stops at the field (nothing is sent), with the summary linking to it.
    click(browser, css(browser, "#save-screen"))
    summary = visible(browser, ".error-summary")
    assert "Not saved yet" in summary.text and "Custom source type" in summary.text
    assert other.get_attribute("aria-invalid") == "true"
    assert "Saved" not in css(browser, "#save-status").text
    assert not all_css(browser, ".toast-error")
    assert api.ok("GET", f"screens/{screen['id']}")["ui_components"][0]["data"]["type"] == "APPLICASTER_COLLECTION"
    shot(browser, "60-custom-source-type-refused")

    # A plugin's identifier is taken.
    set_value(other, "MY_PLUGIN.FEED-2")
    assert other.get_attribute("aria-invalid") is None, "typing clears the message"
    click(browser, css(browser, "#save-screen"))
    wait_saved(browser)
    assert api.ok("GET", f"screens/{screen['id']}")["ui_components"][0]["data"]["type"] == "MY_PLUGIN.FEED-2"
    assert not browser_errors(browser)


# Item 8 (d): a new hero ---------------------------------------------------------------------------

def test_a_new_hero_takes_a_full_width_picture_style(browser, api):
    """Issue 29, 8 (d): a new hero started with the family's first style (an 80-point row)."""
    family = api.ok("POST", "families", {
        "id": "HEROES", "name": "With a hero style", "reference_size": {"width": 320, "height": 568},
        "insets": {"top": 10, "left": 10, "bottom": 10, "right": 10}, "interitem_spacing": 10, "line_spacing": 10,
        "cell_styles": [{"id": "LIST_1", "columns": 1, "height": 80}, {"id": "GRID_1", "columns": 2, "aspect_ratio": 1.7778},
                        {"id": "SQUARE_1", "columns": 1, "aspect_ratio": 1}, {"id": "HERO_1", "columns": 1, "aspect_ratio": 1.7778}],
    })
    screen = api.screen(family["id"], "Home")
    sign_in(browser, api, f"#/screens/{screen['id']}")
    click(browser, visible(browser, ".catalog-item[data-type='hero']"))
    card = visible(browser, ".component-card[data-component-type='hero']")
    checked = [e.get_attribute("id").rsplit("-", 1)[-1] for e in card.find_elements("css selector", ".cell-style-choice input") if e.is_selected()]
    assert checked == ["HERO_1"], checked
    click(browser, css(browser, "#save-screen"))
    wait_saved(browser)
    assert api.ok("GET", f"screens/{screen['id']}")["ui_components"][0]["cell_styles"] == ["HERO_1"]

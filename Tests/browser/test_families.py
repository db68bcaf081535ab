"""Signing in, and creating a family with live cell sizes."""
import os

from conftest import BASE_URL, Api, all_css, browser_errors, css, set_value, shot, sign_in, token_form, unlabelled_controls, visible, wait


def test_sign_in_rejects_a_bad_token_then_accepts_the_real_one(browser):
    api = Api(os.environ["RIVERS_TOKEN"], os.environ.get("RIVERS_APP", ""))
    browser.get(f"{BASE_URL}/")
    token_form(browser).send_keys("rvs_not_a_real_token")
    css(browser, "#sign-in-button").click()
    error = visible(browser, "#sign-in-error")
    assert "401" in error.text
    assert css(browser, "#token").get_attribute("aria-invalid") == "true"
    shot(browser, "01-sign-in")
    assert unlabelled_controls(browser) == []
    set_value(css(browser, "#token"), api.token)
    css(browser, "#sign-in-button").click()
    visible(browser, "#nav a[data-nav='/screens']")
    assert api.app in css(browser, "#app-slug").text
    # The token is kept for the tab: a reload stays signed in.
    browser.refresh()
    visible(browser, "#nav a[data-nav='/families']")
    assert browser.execute_script("return sessionStorage.getItem('rivers.token')") == api.token
    css(browser, "#sign-out").click()
    visible(browser, "#token")
    assert browser.execute_script("return sessionStorage.getItem('rivers.token')") is None


def test_create_family_with_sizes_computed_as_you_type(browser, api):
    sign_in(browser, api, "#/families/new")
    visible(browser, "input[data-pointer='/id']")

    def value(pointer):
        return css(browser, f"input[data-pointer='{pointer}']")

    set_value(value("/id"), "phones_ui")
    set_value(value("/name"), "Phones")
    set_value(value("/reference_size/width"), "320")
    set_value(value("/reference_size/height"), "568")
    for side in ("top", "left", "bottom", "right"):
        set_value(value(f"/insets/{side}"), "10")
    set_value(value("/interitem_spacing"), "10")
    set_value(value("/line_spacing"), "10")
    # The first cell style (one column, 80 high) is 300 wide: 320 − 10 − 10.
    wait(browser, lambda d: css(d, "[data-testid='size-0']").text == "300 × 80", message="size of LIST_1")

    css(browser, "button[data-focus-key='add-style']").click()
    wait(browser, lambda d: len(all_css(d, ".cs-row")) == 2)
    set_value(css(browser, "input[data-pointer='/cell_styles/1/id']"), "GRID_1")
    set_value(css(browser, "input[data-pointer='/cell_styles/1/columns']"), "2")
    # Two columns share 300 − 10 of spacing.
    wait(browser, lambda d: css(d, "[data-testid='size-1']").text.startswith("145 × "), message="width of two columns")
    from selenium.webdriver.support.ui import Select
    Select(css(browser, "select[aria-label='Height of cell style 2 by']")).select_by_value("aspect_ratio")
    set_value(css(browser, "input[data-pointer='/cell_styles/1/aspect_ratio']"), "16:9")
    wait(browser, lambda d: css(d, "[data-testid='size-1']").text == "145 × 81.56", message="16:9 height")
    # Changing the spacing recomputes every size at once.
    set_value(value("/interitem_spacing"), "20")
    wait(browser, lambda d: css(d, "[data-testid='size-1']").text == "140 × 78.75")
    set_value(value("/interitem_spacing"), "10")
    wait(browser, lambda d: css(d, "[data-testid='size-1']").text == "145 × 81.56")

    css(browser, "button[data-focus-key='save']").click()
    wait(browser, lambda d: d.current_url.endswith("/families/PHONES_UI"), message="navigates to the new family")
    # The server's computed size is shown after the save.
    wait(browser, lambda d: all_css(d, "[data-testid='saved-size-1']") and css(d, "[data-testid='saved-size-1']").text == "saved: 145 × 81.56")
    assert "PHONES_UI" in css(browser, ".sidebar").text
    family = api.ok("GET", "families/PHONES_UI")
    assert [s["id"] for s in family["cell_styles"]] == ["LIST_1", "GRID_1"]
    assert family["cell_styles"][1]["computed"]["width"] == 145
    shot(browser, "02-family")
    assert unlabelled_controls(browser) == []

    # A rule the server keeps (a cell style wider than the insets allow) shows at its field.
    from selenium.webdriver.support.ui import Select as S
    S(css(browser, "select[aria-label='Width of cell style 1 by']")).select_by_value("width")
    set_value(css(browser, "input[data-pointer='/cell_styles/0/width']"), "400")
    css(browser, "button[data-focus-key='save']").click()
    field = wait(browser, lambda d: next((e for e in all_css(d, "input[data-pointer='/cell_styles/0/width']") if e.get_attribute("aria-invalid") == "true"), False),
                 message="error at the width field")
    message = field.find_element("xpath", "./ancestor::div[contains(@class,'field')][1]").text
    assert "wider" in message
    # Told before asking the server (the family's own rule, checked in the editor), by its label.
    assert "1 thing to fix" in css(browser, ".error-summary").text
    assert "Cell style 1 (LIST_1) › Width" in css(browser, ".error-summary").text
    shot(browser, "03-family-validation")
    assert not browser_errors(browser)

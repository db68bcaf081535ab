"""Issue 29, round 3: a custom data source type refused at its field (5), a read-only editor for
viewers (6), deletes that say "still in use" before asking, error toasts that stay on their page,
publishing that asks first, a new hero's cell style, the Activity page in names and labels (8),
and a hint when there is no layout to start a screen from (9)."""
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


# Item 6: a viewer's editor is read only ----------------------------------------------------------

def press_ctrl_s(driver):
    from selenium.webdriver.common.action_chains import ActionChains
    ActionChains(driver).key_down(Keys.CONTROL).send_keys("s").key_up(Keys.CONTROL).perform()


def test_a_viewer_gets_a_read_only_editor(browser, api):
    """Issue 29, 6: a viewer could change every field, reorder and remove, then nothing saved
    (Ctrl+S did nothing), and landed on a disabled New-screen form."""
    family = api.family()
    screen = api.screen(family["id"], "Home", [
        {"component_type": "list", "cell_styles": ["LIST_1"], "data": {"source": "3119", "type": "APPLICASTER_COLLECTION"}},
        {"component_type": "grid", "cell_styles": ["GRID_1"], "data": {"source": "3139", "type": "APPLICASTER_COLLECTION"}},
    ])
    viewer = token_for(api, "viewer")
    sign_in(browser, viewer, "#/screens")

    # Lands on the screens it can open, told why it cannot change them; no form it cannot use.
    banner = visible(browser, "#read-only-banner")
    assert "You can view this app; only editors, publishers and admins can change it." in banner.text
    assert "viewer" in banner.text
    assert not [f for f in all_css(browser, ".create-form") if f.is_displayed()], "no New-screen form"
    link = visible(browser, "#screens-table a")
    assert link.text == "Home"
    shot(browser, "61-viewer-screens")

    click(browser, link)
    name = visible(browser, "#screen-name")
    banner = visible(browser, "#read-only-banner")
    assert "only editors, publishers and admins can change it" in banner.text
    # Every field is shown, none can be changed.
    assert name.get_attribute("value") == "Home" and not name.is_enabled()
    fields = [e for e in all_css(browser, ".editor-main input, .editor-main select, .editor-main textarea") if e.is_displayed()]
    assert len(fields) >= 8, len(fields)
    assert [e.get_attribute("outerHTML")[:80] for e in fields if e.is_enabled()] == []
    # No way to add, move or remove a component, nor to undo.
    assert len(all_css(browser, ".component-card")) == 2
    for selector in (".drag-handle", "button[aria-label^='Remove ']", "button[aria-label^='Move ']", ".catalog", "#undo"):
        assert not [e for e in all_css(browser, selector) if e.is_displayed()], selector
    # What is left (the navigation's add and remove buttons among them) cannot be used.
    buttons = [b for b in all_css(browser, ".editor-main button") if b.is_displayed()]
    assert buttons and [b.text for b in buttons if b.is_enabled()] == []
    assert not css(browser, "#save-screen").is_enabled()
    # The preview still draws the screen, on any device.
    visible(browser, "#preview-frame svg.device-content")
    assert css(browser, "#preview-device").is_enabled()
    assert unlabelled_controls(browser) == []

    # Ctrl+S says why nothing is saved.
    press_ctrl_s(browser)
    status = wait(browser, lambda d: css(d, "#status").text or False, message="a message for Ctrl+S")
    assert "Not saved: Your role in this app is viewer: viewers cannot change it." in status
    assert all_css(browser, "#status .status-message.refused"), "shown as a refusal, not with a ✓"
    shot(browser, "61-viewer-screen")
    assert api.ok("GET", f"screens/{screen['id']}")["revision"] == screen["revision"]

    # A family and a layout likewise.
    go(browser, f"#/families/{family['id']}")
    visible(browser, "#read-only-banner")
    inputs = [e for e in all_css(browser, "form.resource-form input, form.resource-form select") if e.is_displayed()]
    assert inputs and not [e for e in inputs if e.is_enabled()]
    assert not [b for b in all_css(browser, "button") if b.is_displayed() and b.text == "Add cell style" and b.is_enabled()]
    layout = api.ok("POST", "layouts", {"name": "Start", "family": family["id"], "ui_components": [{"component_type": "list", "cell_styles": ["LIST_1"]}]})
    go(browser, f"#/layouts/{layout['id']}")
    visible(browser, "#read-only-banner")
    assert not css(browser, "#layout-name").is_enabled()
    assert not [e for e in all_css(browser, ".catalog, .drag-handle") if e.is_displayed()]
    assert not browser_errors(browser)


def test_an_editor_gets_no_read_only_banner(browser, api):
    """The read-only editor is the viewer's only: an editor's fields and controls work."""
    family = api.family()
    screen = api.screen(family["id"], "Home", [{"component_type": "list", "cell_styles": ["LIST_1"]}])
    editor = token_for(api, "editor")
    sign_in(browser, editor, f"#/screens/{screen['id']}")
    name = visible(browser, "#screen-name")
    assert name.is_enabled()
    assert not all_css(browser, "#read-only-banner")
    assert visible(browser, ".drag-handle") and visible(browser, ".catalog")
    go(browser, "#/screens")
    visible(browser, "#new-screen-name")


# Item 8: deletes, toasts, publishing, a new hero, the activity -----------------------------------

def test_a_delete_of_a_screen_in_use_says_so_without_asking(browser, api):
    """Issue 29, 8 (a, b): Delete asked first and only then said "Still in use"; the error toast
    then followed the user to other pages."""
    family = api.family()
    target = api.screen(family["id"], "Show")
    opener = api.screen(family["id"], "Opener", [{"component_type": "list", "cell_styles": ["LIST_1"], "data": {"target": target["id"]}}])
    sign_in(browser, api, f"#/screens/{target['id']}")
    visible(browser, "#save-screen")
    click(browser, css(browser, "button[aria-label='Delete screen']"))
    toast = wait(browser, lambda d: (all_css(d, ".toast-error") or [False])[-1], message="the in-use toast")
    assert "Deleting the screen: Still in use" in toast.text
    assert "The screen “Opener” links to it." in toast.text
    assert not all_css(browser, "dialog[open]"), "nothing asked"
    shot(browser, "62-delete-in-use")

    # The toast stays on its page: opening another page takes it away.
    click(browser, css(browser, "#nav a[data-nav='/families']"))
    wait(browser, lambda d: "/families" in d.current_url, message="the families page")
    visible(browser, "#families-heading")
    assert not all_css(browser, ".toast-error"), "the error toast followed to another page"

    # Once nothing points at it (changed elsewhere meanwhile), Delete asks, then deletes.
    api.ok("PATCH", f"screens/{opener['id']}", {"ui_components": [{"component_type": "list", "cell_styles": ["LIST_1"]}]},
           etag=f"\"{opener['revision']}\"")
    go(browser, f"#/screens/{target['id']}")
    click(browser, visible(browser, "button[aria-label='Delete screen']"))
    visible(browser, "dialog[open] .button.danger").click()
    wait(browser, lambda d: d.current_url.endswith("/screens"), message="back to the screens")
    status, _, _ = api.call("GET", f"screens/{target['id']}")
    assert status == 404


def test_publishing_asks_first_with_a_note(browser, api):
    """Issue 29, 8 (c): publishing was one click, with no question."""
    family = api.family()
    api.screen(family["id"], "Home", [{"component_type": "list", "cell_styles": ["LIST_1"], "data": {"source": "1", "type": "APPLICASTER_COLLECTION"}}])
    sign_in(browser, api, "#/publish")
    wait(browser, lambda d: "No problems" in css(d, "#problems").text, message="no problems")
    wait(browser, lambda d: css(d, "#publish-changes").get_attribute("data-state") == "first", message="the first publish known")
    css(browser, "#publish-button").click()
    dialog = visible(browser, "dialog.publish-dialog[open]")
    assert "Publish a new version?" in dialog.text
    assert "first publish: 1 screen goes live, and apps get it" in css(browser, "#publish-dialog-text").text
    note = css(browser, "#publish-dialog-note")
    assert browser.execute_script("return document.activeElement.id") == "publish-dialog-note"
    shot(browser, "63-publish-asks")
    # Cancel: nothing is published.
    next(b for b in dialog.find_elements("css selector", "button") if b.text == "Cancel").click()
    wait(browser, lambda d: not all_css(d, "dialog[open]"), message="the dialog closes")
    assert api.ok("GET", "versions")["total"] == 0
    assert "Published" not in css(browser, "#publish-result").text

    # Publish, with a note given in the dialog.
    css(browser, "#publish-button").click()
    note = visible(browser, "dialog.publish-dialog[open] #publish-dialog-note")
    set_value(note, "Spring release")
    css(browser, "dialog.publish-dialog[open] button[type=submit]").click()
    wait(browser, lambda d: "Published version 1" in css(d, "#publish-result").text, message="published")
    versions = api.ok("GET", "versions")
    assert versions["total"] == 1 and versions["items"][0]["note"] == "Spring release"


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


def test_activity_names_people_and_fields(browser):
    """Issue 29, 8 (e): the Activity page showed emails and internal field names (ui_components)."""
    from test_team import PASSWORD, create_admin, password_sign_in, use_link_by_api
    email = f"ada-{uuid.uuid4().hex[:8]}@example.com"
    use_link_by_api(create_admin(email), PASSWORD, "Ada Lovelace")
    from conftest import make_app
    api = make_app()
    family = api.family()
    screen = api.screen(family["id"], "Home")
    password_sign_in(browser, email, PASSWORD, app=api.app)
    go(browser, f"#/screens/{screen['id']}")
    set_value(visible(browser, "#screen-name"), "Start")
    click(browser, css(browser, ".catalog-item[data-type='list']"))
    click(browser, css(browser, "#save-screen"))
    wait_saved(browser)

    go(browser, "#/activity")
    row = wait(browser, lambda d: next((r for r in all_css(d, "#audit tr[data-kind='screen'][data-action='update']")), False),
               message="the screen's update in the activity")
    who = row.find_element("css selector", ".actor")
    assert who.text == "Ada Lovelace" and who.get_attribute("title") == email
    assert email not in row.text
    said = row.find_element("css selector", ".audit-text").text
    assert "components" in said and "name" in said and "ui_components" not in said, said
    shot(browser, "64-activity-names")


# Item 9: no layout to start from ----------------------------------------------------------------

def test_from_a_layout_without_layouts_says_how_to_make_one(browser, api):
    """Issue 29, 9: "From a layout" with no layouts gave no hint how to make one."""
    api.family()
    sign_in(browser, api, "#/screens")
    click(browser, visible(browser, "label[for='mode-layout']"))
    hint = visible(browser, "#no-layouts-hint")
    assert "There are no layouts yet" in hint.text and "Save as layout" in hint.text
    assert "no-layouts-hint" in css(browser, "#new-screen-layout").get_attribute("aria-describedby")
    shot(browser, "65-no-layouts-hint")
    click(browser, css(browser, "#no-layouts-link"))
    wait(browser, lambda d: d.current_url.endswith("/layouts"), message="the Layouts page")
    wait(browser, lambda d: "No layouts yet" in css(d, "#outlet").text, message="the Layouts page drawn")
    # With a layout, the hint is gone.
    family = api.family()
    api.ok("POST", "layouts", {"name": "Start", "family": family["id"], "ui_components": []})
    browser.refresh()
    go(browser, "#/screens?layout=")
    click(browser, visible(browser, "label[for='mode-layout']"))
    visible(browser, "#new-screen-layout")
    assert not all_css(browser, "#no-layouts-hint")


# The top bar at 1024 px ---------------------------------------------------------------------------

TOP_BAR = """
const box = (el) => { const r = el.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width}; };
const shown = (el) => el && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
const app = [document.getElementById('app-single'), document.getElementById('app-choice')].find(shown);
const text = document.querySelector('#status .status-text');
return {
  app: box(app), role: box(document.getElementById('app-role')), signOut: box(document.getElementById('sign-out')),
  nav: box(document.querySelector('#nav a:last-of-type')), width: window.innerWidth,
  status: text ? box(text.closest('.status-message')) : null,
  statusCut: text ? text.scrollWidth > text.clientWidth + 1 : null,
  statusText: text ? text.textContent : '',
};
"""


def test_the_top_bar_fits_at_1024_and_1440(browser):
    """Issue 29, "ugly" list: at 1024 px the app's name ran into the Admin badge and a
    confirmation shrank to a bare ✓."""
    slug = f"bt-{uuid.uuid4().hex[:10]}"
    token = subprocess.run([os.environ["RIVERS_BIN"], "app", "create", slug, "--name", "Demo streaming app for the living room", "--quiet"],
                           check=True, capture_output=True, text=True).stdout.strip()
    api = Api(token, slug)
    family = api.family()
    screen = api.screen(family["id"], "Home")
    sign_in(browser, api, f"#/screens/{screen['id']}")
    for width, height in ((1024, 768), (1440, 900)):
        browser.set_window_size(width, height)
        go(browser, f"#/screens/{screen['id']}?w={width}")
        name = visible(browser, "#screen-name")
        set_value(name, f"Home at {width}")
        click(browser, css(browser, "#save-screen"))
        wait_saved(browser)
        bar = wait(browser, lambda d: (lambda b: b if b["status"] else False)(d.execute_script(TOP_BAR)), message="the confirmation")
        assert "saved" in bar["statusText"]
        # Every admin page is in the bar, then the app, its role and Sign out, none over another.
        assert bar["nav"]["right"] <= bar["app"]["left"], bar
        assert bar["app"]["right"] <= bar["role"]["left"], bar
        assert bar["role"]["right"] <= bar["signOut"]["left"] and bar["signOut"]["right"] <= bar["width"], bar
        # The confirmation is read whole, and covers none of the bar.
        assert not bar["statusCut"], bar
        assert bar["status"]["width"] > 150, bar
        assert bar["status"]["top"] >= 48, bar
        shot(browser, f"66-top-bar-{width}")

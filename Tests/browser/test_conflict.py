"""Two people edit the same screen: the second save meets a 412, sees it, and chooses."""
from selenium.webdriver.support.ui import Select

from conftest import css, set_value, shot, sign_in, unlabelled_controls, visible, wait


def open_screen(driver, api, sid):
    sign_in(driver, api, f"#/screens/{sid}")
    visible(driver, "#screen-name")
    wait(driver, lambda d: d.execute_script("return !!document.querySelector('#preview-frame svg')"))


def test_second_save_sees_the_conflict_and_reload_shows_the_other_change(browsers, api):
    family = api.family()
    screen = api.screen(family["id"], "Shared", [{"component_type": "list", "cell_styles": ["LIST_1"], "data": {"source": "7", "type": "FEED"}}])
    alice, bob = browsers(), browsers()
    open_screen(alice, api, screen["id"])
    open_screen(bob, api, screen["id"])

    set_value(css(alice, "#screen-name"), "Shared — Alice")
    css(alice, "#save-screen").click()
    wait(alice, lambda d: css(d, "#save-status").text.startswith("Saved · revision 2"))

    # Bob edits his stale copy and saves: nothing is overwritten, he is asked.
    set_value(css(bob, "#screen-name"), "Shared — Bob")
    Select(css(bob, "#screen-presentation")).select_by_value("push")
    css(bob, "#save-screen").click()
    dialog = visible(bob, "dialog.conflict-dialog[open]")
    assert "changed this screen first" in dialog.text
    assert "name" in dialog.text  # what they changed
    shot(bob, "07-conflict")
    assert unlabelled_controls(bob) == []
    assert api.ok("GET", f"screens/{screen['id']}")["name"] == "Shared — Alice"

    # Keep editing: his changes stay, unsaved, with a banner offering the choices again.
    dialog.find_element("css selector", "button[data-action='keep']").click()
    banner = visible(bob, ".conflict-banner")
    assert "revision 2" in banner.text
    assert css(bob, "#screen-name").get_attribute("value") == "Shared — Bob"
    assert "Unsaved" in css(bob, "#save-status").text

    # Saving again still does not overwrite silently: the question comes back; he reloads.
    css(bob, "#save-screen").click()
    visible(bob, "dialog.conflict-dialog[open] button[data-action='reload']").click()
    wait(bob, lambda d: css(d, "#screen-name").get_attribute("value") == "Shared — Alice", message="Alice's change shown")
    wait(bob, lambda d: css(d, "#save-status").text.startswith("Saved · revision 2"))
    assert not bob.find_elements("css selector", ".conflict-banner")
    assert Select(css(bob, "#screen-presentation")).first_selected_option.get_attribute("value") == ""
    # Now his next change saves on top of hers.
    Select(css(bob, "#screen-presentation")).select_by_value("push")
    css(bob, "#save-screen").click()
    wait(bob, lambda d: css(d, "#save-status").text.startswith("Saved · revision 3"))
    saved = api.ok("GET", f"screens/{screen['id']}")
    assert saved["name"] == "Shared — Alice" and saved["styles"]["presentation"] == "push"


def test_keep_editing_then_save_mine_over_theirs_on_purpose(browsers, api):
    family = api.family()
    screen = api.screen(family["id"], "Shared", [])
    alice, bob = browsers(), browsers()
    open_screen(alice, api, screen["id"])
    open_screen(bob, api, screen["id"])
    set_value(css(alice, "#screen-name"), "By Alice")
    css(alice, "#save-screen").click()
    wait(alice, lambda d: css(d, "#save-status").text.startswith("Saved"))

    set_value(css(bob, "#screen-name"), "By Bob")
    css(bob, "#save-screen").click()
    visible(bob, "dialog.conflict-dialog[open] button[data-action='keep']").click()
    visible(bob, ".conflict-banner button[data-action='overwrite']").click()
    wait(bob, lambda d: css(d, "#save-status").text.startswith("Saved · revision 3"))
    assert api.ok("GET", f"screens/{screen['id']}")["name"] == "By Bob"

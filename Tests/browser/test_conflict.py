"""Two people edit the same screen: the second save meets a 412, sees it, and chooses."""
from selenium.webdriver.support.ui import Select

from conftest import css, set_value, shot, sign_in, unlabelled_controls, visible, wait


def open_screen(driver, api, sid, live=True):
    sign_in(driver, api, f"#/screens/{sid}", live=live)
    visible(driver, "#screen-name")
    wait(driver, lambda d: d.execute_script("return !!document.querySelector('#preview-frame svg')"))


def test_second_save_sees_the_conflict_and_reload_shows_the_other_change(browsers, api):
    family = api.family()
    screen = api.screen(family["id"], "Shared", [{"component_type": "list", "cell_styles": ["LIST_1"], "data": {"source": "7", "type": "FEED"}}])
    alice, bob = browsers(), browsers()
    open_screen(alice, api, screen["id"])
    open_screen(bob, api, screen["id"], live=False)  # a stale copy: his stream is late (test_together follows live)

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
    open_screen(bob, api, screen["id"], live=False)  # a stale copy: his stream is late (test_together follows live)
    set_value(css(alice, "#screen-name"), "By Alice")
    css(alice, "#save-screen").click()
    wait(alice, lambda d: css(d, "#save-status").text.startswith("Saved"))

    set_value(css(bob, "#screen-name"), "By Bob")
    css(bob, "#save-screen").click()
    visible(bob, "dialog.conflict-dialog[open] button[data-action='keep']").click()
    visible(bob, ".conflict-banner button[data-action='overwrite']").click()
    wait(bob, lambda d: css(d, "#save-status").text.startswith("Saved · revision 3"))
    assert api.ok("GET", f"screens/{screen['id']}")["name"] == "By Bob"


def shared_screen(api):
    family = api.family()
    return api.screen(family["id"], "Shared", [
        {"component_type": "list", "cell_styles": ["LIST_1"], "data": {"source": "7", "type": "APPLICASTER_COLLECTION"}},
        {"component_type": "grid", "cell_styles": ["GRID_1"], "rules": {"item_limit": 4}, "data": {"source": "8", "type": "APPLICASTER_COLLECTION"}},
        {"component_type": "hero", "cell_styles": ["LIST_1"], "data": {"source": "9", "type": "APPLICASTER_COLLECTION"}},
    ])


def edit_theirs(api, screen, change):
    """Someone else saves the screen (through the API), changing what `change` changes."""
    current = api.ok("GET", f"screens/{screen['id']}")
    change(current)
    body = {k: v for k, v in current.items() if k not in ("revision", "created_at", "updated_at")}
    return api.ok("PUT", f"screens/{screen['id']}", body, etag=f"\"{current['revision']}\"")


def test_edits_that_do_not_overlap_are_merged_and_said(browser, api):
    screen = shared_screen(api)
    # A stale copy: the other save meets this one at the server (test_together merges it live).
    open_screen(browser, api, screen["id"], live=False)
    # Mine: the grid's item limit, and the hero removed.
    set_value(css(browser, "input[data-pointer='/ui_components/1/rules/item_limit']"), "6")
    css(browser, "button[aria-label='Remove Hero 3']").click()
    # Theirs, meanwhile: the list's data source, and the name.
    def theirs(s):
        s["name"] = "Shared (renamed)"
        s["ui_components"][0]["data"]["source"] = "70"
    edit_theirs(api, screen, theirs)
    css(browser, "#save-screen").click()
    merged = visible(browser, ".merged-banner")
    assert not browser.find_elements("css selector", "dialog.conflict-dialog[open]"), "no question without an overlap"
    assert "merged in (revision 3)" in merged.text
    assert "List 1: data source: 7 → 70" in merged.text and "name: “Shared” → “Shared (renamed)”" in merged.text, merged.text
    assert "Grid 2: item limit: 4 → 6" in merged.text and "Hero 3 removed" in merged.text, merged.text
    shot(browser, "18-merged-1440")
    saved = api.ok("GET", f"screens/{screen['id']}")
    assert saved["name"] == "Shared (renamed)"
    assert [c["component_type"] for c in saved["ui_components"]] == ["list", "grid"]
    assert saved["ui_components"][0]["data"]["source"] == "70" and saved["ui_components"][1]["rules"]["item_limit"] == 6
    # The form shows the merged screen, saved.
    assert css(browser, "#screen-name").get_attribute("value") == "Shared (renamed)"
    assert css(browser, "#save-status").text.startswith("Saved · revision 3")


def test_only_real_overlaps_are_asked_and_the_default_keeps_everything(browser, api):
    screen = shared_screen(api)
    open_screen(browser, api, screen["id"])
    set_value(css(browser, "input[data-pointer='/ui_components/0/data/source']"), "71")  # overlaps
    set_value(css(browser, "input[data-pointer='/ui_components/1/rules/item_limit']"), "6")  # mine only
    def theirs(s):
        s["ui_components"][0]["data"]["source"] = "70"
        s["ui_components"][2]["data"]["source"] = "90"  # theirs only
    edit_theirs(api, screen, theirs)
    for width in (1440, 1024):
        browser.set_window_size(width, 900)
        css(browser, "#save-screen").click()
        dialog = visible(browser, "dialog.conflict-dialog[open]")
        # Each side names the component and the field, before → after.
        assert "List 1: data source: 7 → 70" in dialog.text and "Hero 3: data source: 9 → 90" in dialog.text, dialog.text
        assert "List 1: data source: 7 → 71" in dialog.text and "Grid 2: item limit: 4 → 6" in dialog.text
        choices = dialog.find_elements("css selector", "fieldset.conflict-choice")
        assert [c.find_element("css selector", "legend").text for c in choices] == ["List 1 › data source"]
        assert "Theirs: 70" in choices[0].text and "Mine: 71" in choices[0].text
        # The default answer loses nothing; merging waits for a choice.
        assert browser.execute_script("return document.activeElement.dataset.action") == "keep"
        assert not css(browser, "dialog[open] button[data-action='merge']").is_enabled()
        shot(browser, f"18-conflict-overlap-{width}")
        if width == 1440:
            css(browser, "dialog[open] button[data-action='keep']").click()
            banner = visible(browser, ".conflict-banner")
            assert "one thing" in banner.text
            assert css(browser, "input[data-pointer='/ui_components/0/data/source']").get_attribute("value") == "71"
    css(browser, "dialog[open] input[data-choice='theirs']").click()
    css(browser, "dialog[open] button[data-action='merge']").click()
    visible(browser, ".merged-banner")
    saved = api.ok("GET", f"screens/{screen['id']}")
    assert [c["data"]["source"] for c in saved["ui_components"]] == ["70", "8", "90"]
    assert saved["ui_components"][1]["rules"]["item_limit"] == 6


MERGE_CASES = """
const done = arguments[arguments.length - 1];
import('/js/merge.js').then(({ merge3 }) => {
  const c = (id, extra = {}) => ({ id, component_type: 'list', cell_styles: ['LIST_1'], ...extra });
  const ids = (r) => r.merged.ui_components.map((x) => x.id).join(',');
  const out = {};
  // They reorder, I edit one: their order, my edit.
  let base = { name: 'S', ui_components: [c('a'), c('b'), c('c')] };
  let r = merge3(base, { ...base, ui_components: [c('c'), c('a'), c('b')] }, { ...base, ui_components: [c('a'), c('b', { rules: { item_limit: 2 } }), c('c')] });
  out.reorder = [ids(r), r.merged.ui_components[2].rules?.item_limit, r.conflicts.length];
  // Both add a component: both kept, each after its neighbour.
  r = merge3(base, { ...base, ui_components: [c('a'), c('t'), c('b'), c('c')] }, { ...base, ui_components: [c('a'), c('b'), c('c'), c('m')] });
  out.adds = [ids(r), r.conflicts.length];
  // I remove one they changed: asked; they remove one I left alone: removed.
  r = merge3(base, { ...base, ui_components: [c('a', { rules: { item_limit: 5 } }), c('b')] }, { ...base, ui_components: [c('b'), c('c')] });
  out.removeChanged = [r.conflicts.map((x) => x.kind).join(','), ids(merge3(base, { ...base, ui_components: [c('a', { rules: { item_limit: 5 } }), c('b')] }, { ...base, ui_components: [c('b'), c('c')] }, { [r.conflicts[0].key]: 'theirs' }))];
  // Both reorder differently: asked once, about the order.
  r = merge3(base, { ...base, ui_components: [c('b'), c('a'), c('c')] }, { ...base, ui_components: [c('a'), c('c'), c('b')] });
  out.order = r.conflicts.map((x) => x.kind);
  // Unknown members (extra) are merged like any other, and kept.
  r = merge3({ name: 'S', extra: { x: 1 } }, { name: 'T', extra: { x: 1 } }, { name: 'S', extra: { x: 1, y: 2 } });
  out.extra = [r.merged.name, JSON.stringify(r.merged.extra), r.conflicts.length];
  done(out);
}).catch((e) => done({ error: String(e) }));
"""


def test_merge_rules(browser, api):
    browser.get(api_url := __import__("conftest").BASE_URL + "/")
    result = browser.execute_async_script(MERGE_CASES)
    assert result == {
        "reorder": ["c,a,b", 2, 0],
        "adds": ["a,t,b,c,m", 0],
        "removeChanged": ["removed-by-me", "a,b"],
        "order": ["order"],
        "extra": ["T", '{"x":1,"y":2}', 0],
    }, result

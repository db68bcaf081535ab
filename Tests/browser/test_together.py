"""Together (issue 28): two people in one app, each in a browser of their own. Each sees the other
in the top bar and on the field they are editing; a save in one shows in the other within a second
without a reload; edits to different components of one screen merge without a question; a revoked
token loses the stream at once and the editor says so. Screenshots at 1440 and 1024 px."""
import time
import uuid

from conftest import Api, all_css, click, css, go, set_value, shot, sign_in, unlabelled_controls, visible, wait

SOON = 1.5  # "within a second", with room for a loaded test machine


def person(api, name, role="editor"):
    """A token of the app with a name of its own: presence shows it as “token <name>”."""
    made = api.ok("POST", "tokens", {"name": name, "role": role})
    return Api(made["token"], api.app), made


def shared_screen(api):
    family = api.family()
    return api.screen(family["id"], "Home", [
        {"component_type": "list", "cell_styles": ["LIST_1"], "data": {"source": "7", "type": "APPLICASTER_COLLECTION"}},
        {"component_type": "grid", "cell_styles": ["GRID_1"], "rules": {"item_limit": 4}, "data": {"source": "8", "type": "APPLICASTER_COLLECTION"}},
        {"component_type": "hero", "cell_styles": ["LIST_1"], "data": {"source": "9", "type": "APPLICASTER_COLLECTION"}},
    ])


def open_screen(driver, who, sid):
    sign_in(driver, who, f"#/screens/{sid}")
    visible(driver, "#screen-name")
    wait(driver, lambda d: d.execute_script("return !!document.querySelector('#preview-frame svg')"), message="the preview")


def within(driver, condition, message, timeout=SOON):
    started = time.monotonic()
    result = wait(driver, condition, timeout=timeout, message=message)
    return result, time.monotonic() - started


def avatar_of(driver, name):
    return next((a for a in all_css(driver, "#presence .avatar") if name in (a.get_attribute("aria-label") or "")), False)


def field(driver, pointer):
    return css(driver, f"input[data-pointer='{pointer}']")


def test_each_sees_the_other_in_the_top_bar_and_on_the_field_they_edit(browsers, api):
    screen = shared_screen(api)
    ann, _ = person(api, "Ann Editor")
    bob, _ = person(api, "Bob Writer")
    a, b = browsers(), browsers()
    open_screen(a, ann, screen["id"])
    open_screen(b, bob, screen["id"])

    # Each sees the other in the top bar: initials in a coloured circle, named with where they are.
    bobs = wait(a, lambda d: avatar_of(d, "Bob Writer"), message="Bob in Ann's top bar")
    assert bobs.text == "BW"
    assert "screen “Home”" in bobs.get_attribute("aria-label"), bobs.get_attribute("aria-label")
    assert bobs.get_attribute("role") == "img" and bobs.get_attribute("title") == bobs.get_attribute("aria-label")
    anns = wait(b, lambda d: avatar_of(d, "Ann Editor"), message="Ann in Bob's top bar")
    assert anns.text == "AE"
    assert anns.value_of_css_property("background-color") != bobs.value_of_css_property("background-color")
    # Nobody is shown to themselves.
    assert not avatar_of(a, "Ann Editor") and not avatar_of(b, "Bob Writer")

    # Bob clicks into the grid's data source: Ann sees the field and its component outlined, with his name.
    click(b, field(b, "/ui_components/1/data/source"))
    outlined, took = within(a, lambda d: (lambda e: e if "presence-outline" in e.get_attribute("class") else False)(
        field(d, "/ui_components/1/data/source")), "Bob's field outlined for Ann")
    card = css(a, ".component-card[data-pointer='/ui_components/1']")
    assert "presence-outline" in card.get_attribute("class")
    # His name shows once, at the field (his component is outlined without repeating it).
    tags = [t.text for t in all_css(a, ".presence-tag") if t.is_displayed()]
    assert tags == ["token Bob Writer"], tags
    assert a.execute_script("return document.querySelector('.presence-tag').closest('.field').contains(arguments[0])", outlined)
    assert "editing component 2, data, source" in avatar_of(a, "Bob Writer").get_attribute("aria-label")
    # Nothing else is outlined, and Bob sees no outline of his own.
    assert len(all_css(a, ".presence-outline")) == 2
    assert not all_css(b, ".presence-outline")

    print(f"outline shown after {took:.2f} s")
    for width, height in ((1440, 900), (1024, 768)):
        a.set_window_size(width, height)
        time.sleep(0.3)
        a.execute_script("arguments[0].scrollIntoView({block: 'center'})", card)
        shot(a, f"80-together-component-{width}")
    a.set_window_size(1280, 800)
    assert unlabelled_controls(a) == []

    # He moves to the name: the outline follows.
    click(b, css(b, "#screen-name"))
    within(a, lambda d: "presence-outline" in css(d, "#screen-name").get_attribute("class")
           and "presence-outline" not in field(d, "/ui_components/1/data/source").get_attribute("class"), "the outline follows Bob")

    # The list of screens shows who has which screen open.
    row = wait(a, lambda d: (all_css(d, f".sidebar li[data-screen-id='{screen['id']}'] .presence-dots .avatar") or [False])[0], message="Bob on the row")
    assert row.text == "BW"

    # A third person, on the Publish page: a 1024 px window shows one avatar and a count.
    carl, _ = person(api, "Carl Third")
    carl.ok("PUT", "presence", {"where": "publish"})
    carls = wait(a, lambda d: avatar_of(d, "Carl Third"), message="Carl in Ann's top bar")
    assert "on Publish" in carls.get_attribute("aria-label")
    assert "2 people" in css(a, "#presence").get_attribute("aria-label")
    for width, height in ((1440, 900), (1024, 768)):
        a.set_window_size(width, height)
        time.sleep(0.3)
        a.execute_script("document.querySelector('#screen-name').scrollIntoView({block: 'center'})")
        shot(a, f"80-together-{width}")
        shown = [e.text for e in all_css(a, "#presence .avatar, #presence .presence-count") if e.is_displayed()]
        assert shown == (["BW", "CT"] if width == 1440 else ["BW", "+1"]), shown
        # The top bar keeps its order with someone in it: the pages, the people, the app, Sign out.
        bar = a.execute_script("""
            const box = (el) => el && el.getBoundingClientRect().toJSON();
            return {nav: box(document.querySelector('#nav a:last-of-type')), people: box(document.getElementById('presence')),
                    app: box(document.querySelector('.app-badge')), out: box(document.getElementById('sign-out')), width: innerWidth};""")
        assert bar["nav"]["right"] <= bar["people"]["left"] and bar["people"]["right"] <= bar["app"]["left"], bar
        assert bar["out"]["right"] <= bar["width"], bar

    # Bob leaves (signs out): he is gone from Ann's top bar at once.
    click(b, css(b, "#sign-out"))
    within(a, lambda d: not avatar_of(d, "Bob Writer"), "Bob gone from Ann's top bar", timeout=3)
    assert not all_css(a, ".presence-outline")
    carl.ok("DELETE", "presence")
    within(a, lambda d: not css(d, "#presence").is_displayed(), "nobody else left")


def test_a_save_in_one_shows_in_the_other_without_a_reload(browsers, api):
    screen = shared_screen(api)
    ann, _ = person(api, "Ann Editor")
    bob, _ = person(api, "Bob Writer")
    a, b = browsers(), browsers()
    open_screen(a, ann, screen["id"])
    open_screen(b, bob, screen["id"])
    a.execute_script("window.notReloaded = true")

    set_value(css(b, "#screen-name"), "Home by Bob")
    set_value(field(b, "/ui_components/2/data/source"), "90")
    click(b, css(b, "#save-screen"))
    wait(b, lambda d: css(d, "#save-status").text.startswith("Saved · revision 2"), message="Bob saved")

    _, took = within(a, lambda d: css(d, "#screen-name").get_attribute("value") == "Home by Bob", "Bob's name in Ann's editor")
    print(f"save shown after {took:.2f} s")
    assert field(a, "/ui_components/2/data/source").get_attribute("value") == "90"
    assert css(a, "#save-status").text.startswith("Saved · revision 2")
    assert a.execute_script("return window.notReloaded === true"), "shown without reloading the page"
    # The sidebar's list follows the new name, and Ann is told who saved.
    wait(a, lambda d: "Home by Bob" in css(d, f".sidebar li[data-screen-id='{screen['id']}']").text, timeout=SOON, message="the list follows")
    assert "Bob Writer saved this screen" in a.execute_script("return document.getElementById('status').textContent")
    # Bob's own save did not come back to him as someone else's.
    assert "saved this screen:" not in b.execute_script("return document.getElementById('status').textContent")

    # A new screen made by Bob appears in Ann's list too.
    api.screen(screen["family"], "Made by Bob")
    wait(a, lambda d: "Made by Bob" in css(d, ".sidebar").text, timeout=SOON, message="the new screen listed")


def test_edits_to_different_components_merge_without_a_question(browsers, api):
    screen = shared_screen(api)
    ann, _ = person(api, "Ann Editor")
    bob, _ = person(api, "Bob Writer")
    a, b = browsers(), browsers()
    open_screen(a, ann, screen["id"])
    open_screen(b, bob, screen["id"])

    # Ann changes the grid and is typing a name (not saved yet); Bob changes the hero and saves.
    set_value(field(a, "/ui_components/1/rules/item_limit"), "6")
    set_value(css(a, "#screen-name"), "Home A")
    css(a, "#screen-name").send_keys("\ue012\ue012")  # the caret back after “Home”
    wait(a, lambda d: "Unsaved" in css(d, "#save-status").text, message="Ann's edit unsaved")
    set_value(field(b, "/ui_components/2/data/source"), "90")
    click(b, css(b, "#save-screen"))
    wait(b, lambda d: css(d, "#save-status").text.startswith("Saved · revision 2"), message="Bob saved")

    # Ann sees Bob's change merged into her unsaved edits, hers kept, nothing asked.
    within(a, lambda d: field(d, "/ui_components/2/data/source").get_attribute("value") == "90", "Bob's change merged for Ann")
    assert field(a, "/ui_components/1/rules/item_limit").get_attribute("value") == "6"
    assert "Unsaved" in css(a, "#save-status").text
    assert not all_css(a, "dialog[open]"), "no question without an overlap"
    # She types on where she was: the name keeps her focus and her caret.
    a.switch_to.active_element.send_keys(" by")
    assert css(a, "#screen-name").get_attribute("value") == "Home by A"

    click(a, css(a, "#save-screen"))
    merged = visible(a, ".merged-banner")
    assert not all_css(a, "dialog[open]")
    assert "Hero 3: data source: 9 → 90" in merged.text and "Grid 2: item limit: 4 → 6" in merged.text, merged.text
    wait(a, lambda d: css(d, "#save-status").text.startswith("Saved · revision 3"), message="Ann saved")
    saved = api.ok("GET", f"screens/{screen['id']}")
    assert saved["ui_components"][1]["rules"]["item_limit"] == 6 and saved["ui_components"][2]["data"]["source"] == "90"
    assert saved["name"] == "Home by A"
    # And Bob sees Ann's save in turn.
    within(b, lambda d: field(d, "/ui_components/1/rules/item_limit").get_attribute("value") == "6", "Ann's save in Bob's editor")


def test_an_overlap_is_asked_only_when_saving(browsers, api):
    screen = shared_screen(api)
    ann, _ = person(api, "Ann Editor")
    bob, _ = person(api, "Bob Writer")
    a, b = browsers(), browsers()
    open_screen(a, ann, screen["id"])
    open_screen(b, bob, screen["id"])
    set_value(field(a, "/ui_components/0/data/source"), "71")
    set_value(field(b, "/ui_components/0/data/source"), "70")
    click(b, css(b, "#save-screen"))
    wait(b, lambda d: css(d, "#save-status").text.startswith("Saved · revision 2"), message="Bob saved")
    # Ann is told at once, without a dialog in her way; her value stays.
    toast = wait(a, lambda d: next((t for t in all_css(d, ".toast") if "saved this screen too" in t.text), False), timeout=SOON, message="the overlap said")
    assert "List 1 › data source" in toast.text, toast.text
    assert not all_css(a, "dialog[open]")
    assert field(a, "/ui_components/0/data/source").get_attribute("value") == "71"
    # Saving asks about the one overlap.
    click(a, css(a, "#save-screen"))
    dialog = visible(a, "dialog.conflict-dialog[open]")
    choices = dialog.find_elements("css selector", "fieldset.conflict-choice")
    assert [c.find_element("css selector", "legend").text for c in choices] == ["List 1 › data source"]


def test_a_revoked_token_loses_the_stream_at_once_and_is_told(browsers, api):
    screen = shared_screen(api)
    bob, made = person(api, "Bob Writer")
    b = browsers()
    open_screen(b, bob, screen["id"])
    wait(b, lambda d: css(d, "#presence").get_attribute("data-live") == "open", message="Bob's stream open")
    api.ok("DELETE", f"tokens/{made['id']}")
    message, took = within(b, lambda d: (lambda m: m if m.is_displayed() and m.text else False)(css(d, "#sign-in-error")),
                           "Bob told his token no longer works", timeout=3)
    assert "This token no longer works" in message.text and "revoked" in message.text, message.text
    shot(b, "81-token-revoked")


def test_a_removed_member_loses_the_app_at_once_and_is_told(browsers, api):
    from test_team import PASSWORD, password_sign_in, use_link_by_api
    screen = shared_screen(api)
    email = f"carol-{uuid.uuid4().hex[:8]}@example.com"
    invitation = api.ok("POST", "invitations", {"email": email, "role": "editor"})
    use_link_by_api(invitation["url"], PASSWORD, "Carol Member")
    carol = browsers()
    password_sign_in(carol, email, PASSWORD)
    go(carol, f"#/screens/{screen['id']}")
    visible(carol, "#screen-name")
    wait(carol, lambda d: css(d, "#presence").get_attribute("data-live") == "open", message="Carol's stream open")
    member = next(m for m in api.ok("GET", "members")["items"] if m["email"] == email)

    # Her role changes: the editor says so and becomes read only, without a reload.
    api.ok("PUT", f"members/{member['id']}", {"role": "viewer"})
    within(carol, lambda d: all_css(d, "#read-only-banner"), "Carol's editor read only", timeout=3)
    assert css(carol, "#app-role").text.lower() == "viewer"
    assert any("is now viewer" in t.text for t in all_css(carol, ".toast"))
    wait(carol, lambda d: css(d, "#presence").get_attribute("data-live") == "open", message="her stream open again")

    # Removed from the app: she is told at once and the app is gone from her editor.
    api.ok("DELETE", f"members/{member['id']}")
    text, took = within(carol, lambda d: (lambda e: e if e.is_displayed() else False)(css(d, "#no-app-text")), "Carol told", timeout=3)
    assert "You no longer have access to" in text.text, text.text
    assert css(carol, "#no-app-title").text == "No access to this app any more"
    assert not any("is now viewer" in t.text for t in all_css(carol, ".toast")), "the older notice is gone"
    assert not css(carol, "#nav").is_displayed()
    shot(carol, "82-member-removed")


def test_the_lists_publish_releases_and_activity_follow_what_others_do(browser, api):
    family = api.family()
    api.screen(family["id"], "Home")
    sign_in(browser, api, "#/screens")
    table = visible(browser, "#screens-table")
    assert "Elsewhere" not in table.text
    browser.execute_script("window.notReloaded = true")

    # Someone makes a screen, then renames it, then deletes it: the table and the sidebar follow.
    made = api.screen(family["id"], "Elsewhere")
    within(browser, lambda d: "Elsewhere" in css(d, "#screens-table").text and "Elsewhere" in css(d, ".sidebar").text, "the new screen listed")
    api.ok("PATCH", f"screens/{made['id']}", {"name": "Renamed elsewhere"}, etag=f"\"{made['revision']}\"")
    within(browser, lambda d: "Renamed elsewhere" in css(d, "#screens-table").text, "the rename listed")
    api.ok("DELETE", f"screens/{made['id']}")
    within(browser, lambda d: "Renamed elsewhere" not in css(d, "#screens-table").text, "the deletion listed")

    # Families.
    go(browser, "#/families")
    visible(browser, "#families-heading")
    other = api.family()
    within(browser, lambda d: other["name"] in css(d, ".pane").text, "the new family in the table")

    # Publish: someone publishes; the versions list it.
    go(browser, "#/publish")
    visible(browser, "#publish-button")
    wait(browser, lambda d: "Nothing published yet" in css(d, "#current-version").text, message="nothing published")
    api.ok("POST", "publish", {"note": "by the pipeline"})
    within(browser, lambda d: all_css(d, "#versions tr[data-version='1']"), "the new version listed", timeout=3)
    assert "by the pipeline" in css(browser, "#versions tr[data-version='1']").text

    # Releases: a preview link made elsewhere.
    go(browser, "#/releases")
    wait(browser, lambda d: "No preview links yet" in css(d, "#outlet").text, message="no links")
    api.ok("POST", "preview-links", {"name": "Made by CI"})
    within(browser, lambda d: "Made by CI" in css(d, "#outlet").text, "the new link listed")

    # Activity: a new entry.
    go(browser, "#/activity")
    visible(browser, "#audit")
    api.screen(family["id"], "Logged")
    within(browser, lambda d: "Logged" in css(d, "#audit").text, "the new entry in the activity", timeout=3)
    assert browser.execute_script("return window.notReloaded === true")


def test_a_family_follows_too_and_shows_who_is_on_it(browser, api):
    family = api.family()
    bob, _ = person(api, "Bob Writer")
    sign_in(browser, api, f"#/families/{family['id']}")
    name = visible(browser, "input[data-pointer='/name']")
    wait(browser, lambda d: css(d, "#presence").get_attribute("data-live") == "open", message="the stream open")

    # Bob (through the API, as any client would) says he is on this family's name.
    bob.ok("PUT", "presence", {"where": f"families/{family['id']}", "field": "/name"})
    within(browser, lambda d: "presence-outline" in css(d, "input[data-pointer='/name']").get_attribute("class"), "Bob on the name")
    row = wait(browser, lambda d: (all_css(d, ".sidebar .presence-dots .avatar") or [False])[0], message="Bob on the family's row")
    assert row.text == "BW" and f"family “{family['name']}”" in row.get_attribute("aria-label"), row.get_attribute("aria-label")

    # He saves a new name: it shows here at once.
    body = {k: v for k, v in family.items() if k not in ("revision", "created_at", "updated_at")}
    body["cell_styles"] = [{k: v for k, v in s.items() if k != "computed"} for s in body["cell_styles"]]
    body["name"] = "Phones, renamed by Bob"
    bob.ok("PUT", f"families/{family['id']}", body, etag=f"\"{family['revision']}\"")
    within(browser, lambda d: css(d, "input[data-pointer='/name']").get_attribute("value") == "Phones, renamed by Bob", "Bob's name shown")
    wait(browser, lambda d: "Phones, renamed by Bob" in css(d, ".sidebar").text, timeout=SOON, message="the list follows")

    # He leaves: the outline and the avatar go.
    bob.ok("DELETE", "presence")
    within(browser, lambda d: not all_css(d, ".presence-outline") and not css(d, "#presence").is_displayed(), "Bob gone")


def test_the_preview_follows_a_change_to_the_screens_family(browser, api):
    screen = shared_screen(api)
    family = api.ok("GET", f"families/{screen['family']}")
    open_screen(browser, api, screen["id"])
    wait(browser, lambda d: css(d, "#presence").get_attribute("data-live") == "open", message="the stream open")
    drawn = "return document.querySelector('#preview-frame svg')?.outerHTML || ''"
    before = browser.execute_script(drawn)
    body = {k: v for k, v in family.items() if k not in ("revision", "created_at", "updated_at")}
    body["cell_styles"] = [{k: v for k, v in s.items() if k != "computed"} for s in body["cell_styles"]]
    body["cell_styles"][0]["height"] = 200  # LIST_1: taller rows
    api.ok("PUT", f"families/{family['id']}", body, etag=f"\"{family['revision']}\"")
    within(browser, lambda d: d.execute_script(drawn) not in ("", before), "the preview drawn again", timeout=3)

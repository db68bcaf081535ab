"""Issue 29, "the app as a whole": the Map of the app's screens (which screen opens which, home
marked, screens nothing reaches flagged, each a link into its editor) and the Plugins page
(register a manifest by paste or by file, its fields, a new version, removal, in-use refusal)."""
import json
import os
import subprocess
import tempfile
import uuid

from selenium.webdriver.common.keys import Keys

from conftest import Api, all_css, browser_errors, click, css, go, set_value, shot, sign_in, unlabelled_controls, visible, wait


def token_for(api, role):
    """Another token of the same app, with a role (made with the CLI)."""
    out = subprocess.run([os.environ["RIVERS_BIN"], "token", "create", api.app, "--role", role, "--name", f"{role}-{uuid.uuid4().hex[:6]}"],
                         check=True, capture_output=True, text=True).stdout
    token = next(word for word in out.split() if word.startswith("rvs_"))
    return Api(token, api.app)


def line(driver, source, target, kind):
    found = all_css(driver, f".map-line[data-from='{source}'][data-to='{target}'][data-kind='{kind}']")
    return found[0] if found else None


def line_title(driver, element):
    return driver.execute_script("return arguments[0].querySelector('title').textContent", element)


def node(driver, screen_id):
    return css(driver, f".map-node[data-screen-id='{screen_id}']")


def app_with_links(api):
    """Home (a list tapping into Shows, a tab bar item to Movies), Shows with a connected Show
    page, Movies with a hook that is the Settings screen, and Old promo that nothing opens."""
    family = api.family()
    home = api.screen(family["id"], "Home")
    shows = api.screen(family["id"], "Shows", [{"component_type": "grid", "cell_styles": ["GRID_1"]}])
    movies = api.screen(family["id"], "Movies")
    settings = api.screen(family["id"], "Settings")
    show = api.screen(family["id"], "Show page", connected=True, parent=shows["id"])
    orphan = api.screen(family["id"], "Old promo", [{"component_type": "list", "cell_styles": ["LIST_1"], "data": {"target": movies["id"]}}])
    api.ok("POST", "plugins", {"author_name": "A", "author_email": "a@example.com", "manifest_version": "1.0.0", "name": "Login gate",
                               "description": "A hook", "identifier": "login_gate", "type": "general", "min_zapp_sdk": "1.0.0"})
    api.ok("PATCH", f"screens/{movies['id']}", {"hooks": {"preload_plugins": [{"identifier": "login_gate", "type": "general", "screen_id": settings["id"]}], "postload_plugins": []}},
           etag=f"\"{movies['revision']}\"")
    home = api.ok("PATCH", f"screens/{home['id']}", {
        "ui_components": [{"component_type": "list", "cell_styles": ["LIST_1"], "data": {"target": shows["id"]}}],
        "navigations": [{"category": "menu", "navigation_type": "tab_bar_menu", "nav_items": [
            {"title": "Home", "type": "button", "data": {"target": home["id"]}},
            {"title": "Movies", "type": "button", "data": {"target": movies["id"]}},
        ]}],
    }, etag=f"\"{home['revision']}\"")
    return {"home": home, "shows": shows, "movies": movies, "settings": settings, "show": show, "orphan": orphan}


def test_the_map_shows_which_screen_opens_which(browser, api):
    s = app_with_links(api)
    ids = {k: v["id"] for k, v in s.items()}
    browser.set_window_size(1440, 900)
    sign_in(browser, api, "#/map")
    visible(browser, "#map-canvas")
    assert css(browser, "#nav a[data-nav='/map']").get_attribute("aria-current") == "page"
    assert "/map" in browser.current_url and f"/apps/{api.app}/" in browser.current_url

    # Home is marked; every screen is a node.
    home = node(browser, ids["home"])
    assert "home" in home.get_attribute("class").split()
    assert "★ Home" in home.text
    assert len(all_css(browser, ".map-node")) == 6
    assert all_css(browser, ".map-node")[0] == home, "Tab starts at home, as drawn"
    assert "Home" in css(browser, "#map-summary").text

    # A component's tap target, a tab bar item, a connected screen and a hook are each a line.
    tap = line(browser, ids["home"], ids["shows"], "component")
    assert tap is not None and "List 1" in line_title(browser, tap)
    tab = line(browser, ids["home"], ids["movies"], "navigation")
    assert tab is not None and "Tab bar item “Movies”" in line_title(browser, tab)
    assert line(browser, ids["shows"], ids["show"], "connected") is not None
    hook = line(browser, ids["movies"], ids["settings"], "hook")
    assert hook is not None and "Preload hook “login_gate”" in line_title(browser, hook)
    # Home's own tab (to itself) is not a line; nothing the map does not know is drawn.
    assert line(browser, ids["home"], ids["home"], "navigation") is None
    assert len(all_css(browser, ".map-line")) == 5  # + Old promo → Movies

    # Columns by taps from home: home first, the connected screen two taps away.
    x = lambda key: node(browser, ids[key]).location["x"]  # noqa: E731
    assert x("home") < x("shows") == x("movies") < x("show")

    # The screen nothing opens is flagged, in the drawing, the summary and the list.
    orphan = node(browser, ids["orphan"])
    assert "flagged" in orphan.get_attribute("class").split()
    assert "Nothing opens this screen" in orphan.text
    assert "Nothing opens this screen" in orphan.get_attribute("aria-label")
    summary = css(browser, "#map-summary .map-unreached")
    assert "1 screen is not reached from home" in summary.text and "Old promo" in summary.text
    assert orphan.location["y"] > max(node(browser, ids[k]).location["y"] for k in ("home", "shows", "movies", "settings", "show"))
    # Every screen reached is not flagged.
    assert not [k for k in ("home", "shows", "movies", "settings", "show") if "flagged" in node(browser, ids[k]).get_attribute("class")]

    # The same links, screen by screen, in words.
    row = css(browser, f"#map-links tr[data-screen-id='{ids['home']}']")
    assert "Shows — List 1" in row.text and "Movies — Tab bar item “Movies”" in row.text
    row = css(browser, f"#map-links tr[data-screen-id='{ids['settings']}']")
    assert "Movies — Preload hook “login_gate”" in row.text
    assert "Nothing opens this screen" in css(browser, f"#map-links tr[data-screen-id='{ids['orphan']}']").text

    # Lines of one kind can be hidden.
    assert tab.is_displayed()
    click(browser, css(browser, "#map-filters input[data-kind='navigation']"))
    assert not line(browser, ids["home"], ids["movies"], "navigation").is_displayed()
    assert line(browser, ids["home"], ids["shows"], "component").is_displayed()
    click(browser, css(browser, "#map-filters input[data-kind='navigation']"))
    assert line(browser, ids["home"], ids["movies"], "navigation").is_displayed()
    assert unlabelled_controls(browser) == []
    shot(browser, "70-map-1440")
    browser.set_window_size(1024, 768)
    visible(browser, "#map-canvas")
    shot(browser, "70-map-1024")

    # Nodes are links: from the keyboard (Enter on a focused node) and by a click.
    browser.set_window_size(1440, 900)
    shows = node(browser, ids["shows"])
    assert shows.tag_name == "a" and shows.get_attribute("href").endswith(f"/screens/{ids['shows']}")
    browser.execute_script("arguments[0].focus()", shows)
    assert browser.switch_to.active_element == shows
    wait(browser, lambda d: css(d, "#map-canvas").get_attribute("class").find("focusing") >= 0, message="its lines brought out")
    assert "hot" in line(browser, ids["home"], ids["shows"], "component").get_attribute("class")
    shows.send_keys(Keys.ENTER)
    wait(browser, lambda d: d.current_url.endswith(f"/apps/{api.app}/screens/{ids['shows']}"), message="the screen opened")
    assert visible(browser, "#screen-name").get_attribute("value") == "Shows"
    go(browser, "#/map")
    click(browser, visible(browser, f".map-node[data-screen-id='{ids['orphan']}']"))
    wait(browser, lambda d: d.current_url.endswith(f"/screens/{ids['orphan']}"), message="the clicked screen opened")
    assert visible(browser, "#screen-name").get_attribute("value") == "Old promo"

    # Someone links to the flagged screen: the map follows, the flag goes.
    go(browser, "#/map")
    visible(browser, "#map-canvas")
    settings = api.ok("GET", f"screens/{ids['settings']}")
    api.ok("PATCH", f"screens/{ids['settings']}", {"ui_components": [{"component_type": "list", "cell_styles": ["LIST_1"], "data": {"target": ids["orphan"]}}]},
           etag=f"\"{settings['revision']}\"")
    wait(browser, lambda d: line(d, ids["settings"], ids["orphan"], "component") is not None, timeout=15, message="the new link drawn")
    assert "flagged" not in node(browser, ids["orphan"]).get_attribute("class").split()
    assert not all_css(browser, "#map-summary .map-unreached")
    assert not browser_errors(browser)


def test_the_map_of_an_app_without_screens_says_so(browser, api):
    sign_in(browser, api, "#/map")
    empty = visible(browser, "#map-empty")
    assert "No screens yet" in empty.text
    click(browser, empty.find_element("css selector", "a"))
    wait(browser, lambda d: d.current_url.endswith("/screens"), message="the screens page")


# Plugins ----------------------------------------------------------------------------------------

def promo_manifest(version="1.0.0", **changes):
    manifest = {
        "identifier": "promo", "name": "Promo", "type": "general", "screen": True, "manifest_version": version,
        "description": "A promotion screen", "author_name": "Ann", "author_email": "ann@example.com", "min_zapp_sdk": "1.0.0",
        "general": {"fields": [
            {"key": "title", "type": "text_input", "label": "Title", "initial_value": "Welcome"},
            {"key": "layout", "type": "select", "label": "Layout", "options": [{"text": "Wide", "value": "wide"}, {"text": "Narrow", "value": "narrow"}]},
        ]},
        "styles": {"fields": [{"key": "background", "type": "color_picker", "label": "Background"}]},
    }
    manifest.update(changes)
    return manifest


def paste(driver, selector, text):
    """Puts text in a textarea as a paste would (one input event)."""
    area = visible(driver, selector)
    driver.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input', {bubbles: true}))", area, text)
    return area


def problems_of(driver, form):
    return [li.text for li in all_css(driver, f"#{form}-problems li")]


def test_plugins_register_by_paste_and_by_file_update_and_remove(browser, api):
    family = api.family()
    browser.set_window_size(1440, 900)
    sign_in(browser, api, "#/plugins")
    visible(browser, "#register-plugin")
    assert "No plugins are registered in this app yet." in visible(browser, "#plugins-list").text

    # Not JSON: said at the manifest, by line and column, before anything is sent.
    area = paste(browser, "#register-plugin-text", '{\n  "identifier": "promo",\n  "name" "Promo"\n}')
    wait(browser, lambda d: "not valid JSON (line 3, column 10)" in css(d, "#register-plugin-reading").text, message="the JSON mistake")
    click(browser, css(browser, "#register-plugin-submit"))
    assert "not valid JSON (line 3" in " ".join(problems_of(browser, "register-plugin"))
    assert area.get_attribute("aria-invalid") == "true"

    # The server's problems, all at once, at the manifest, in the words on the page (no paths).
    bad = promo_manifest()
    del bad["description"]
    bad["general"]["fields"][0]["type"] = "bogus"
    paste(browser, "#register-plugin-text", json.dumps(bad, indent=2))
    assert area.get_attribute("aria-invalid") is None, "a change takes the old problems away"
    wait(browser, lambda d: "Reads as: Screen plugin “Promo” (promo), version 1.0.0, 3 fields in General and Styles." in css(d, "#register-plugin-reading").text,
         message="what the manifest is")
    click(browser, css(browser, "#register-plugin-submit"))
    wait(browser, lambda d: problems_of(d, "register-plugin"), message="the server's problems")
    said = problems_of(browser, "register-plugin")
    assert "Description: missing (the manifest must have it)" in said, said
    assert any(p.startswith("General section, field “Title” (title) › type: unknown field type “bogus”") for p in said), said
    assert not [p for p in said if "/general" in p or "/description" in p], said
    assert "The server refused it: 2 things to fix in the manifest" in css(browser, "#register-plugin-problems").text
    assert area.get_attribute("aria-invalid") == "true"
    assert not all_css(browser, ".toast-error")
    assert api.ok("GET", "plugins")["total"] == 0
    shot(browser, "71-plugin-refused")

    # By paste: registered, and its page shows what it is and its fields.
    paste(browser, "#register-plugin-text", json.dumps(promo_manifest(), indent=2))
    click(browser, css(browser, "#register-plugin-submit"))
    wait(browser, lambda d: d.current_url.endswith(f"/apps/{api.app}/plugins/promo"), message="the plugin's page")
    facts = visible(browser, "#plugin-facts")
    assert "promo" in facts.text and "1.0.0" in facts.text and "A promotion screen" in facts.text
    assert "Screen plugin" in css(browser, ".plugin-page h1").text
    general = css(browser, "table.plugin-fields[data-section='general']")
    title = general.find_element("css selector", "tr[data-key='title']")
    assert [td.text for td in title.find_elements("css selector", "td")][:4] == ["Title", "title", "Text", "Welcome"]
    assert "Choice: Wide, Narrow" in general.find_element("css selector", "tr[data-key='layout']").text
    assert "Colour" in css(browser, "table.plugin-fields[data-section='styles'] tr[data-key='background']").text
    assert "No screen or layout uses it." in css(browser, "#plugin-uses").text
    assert "1.0.0" in css(browser, "#plugin-versions li.current, #plugin-versions li[data-version='1.0.0']").text
    assert unlabelled_controls(browser) == []
    shot(browser, "72-plugin-page-1440")
    browser.set_window_size(1024, 768)
    visible(browser, "#plugin-fields")
    shot(browser, "72-plugin-page-1024")
    browser.set_window_size(1440, 900)

    # By file: a component plugin's manifest chosen from disk fills the box, then registers.
    badge = {"identifier": "badge", "name": "Badge", "type": "ui_component", "manifest_version": "2.0.0", "description": "A badge",
             "author_name": "Bo", "author_email": "bo@example.com", "min_zapp_sdk": "1.0.0",
             "styles": {"fields": [{"key": "tint", "type": "color_picker", "label": "Tint"}]}}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(badge, f)
        path = f.name
    try:
        go(browser, "#/plugins")
        visible(browser, "#register-plugin-file").send_keys(path)
        wait(browser, lambda d: '"identifier": "badge"' in css(d, "#register-plugin-text").get_attribute("value"), message="the file's text in the box")
        wait(browser, lambda d: "Component plugin “Badge” (badge), version 2.0.0, 1 field in Styles." in css(d, "#register-plugin-reading").text, message="read")
        click(browser, css(browser, "#register-plugin-submit"))
        wait(browser, lambda d: d.current_url.endswith("/plugins/badge"), message="the badge's page")
    finally:
        os.unlink(path)
    assert "Component plugin" in visible(browser, ".plugin-page h1").text
    assert "Tint" in css(browser, "#plugin-fields").text
    # The new component type is in the screen editor's catalog at once.
    screen = api.screen(family["id"], "Home")
    go(browser, f"#/screens/{screen['id']}")
    wait(browser, lambda d: [b for b in all_css(d, ".catalog button") if "Badge" in b.text], message="the badge in the catalog")

    # The list: both, with what they are and where they are used.
    api.screen(family["id"], "Promo screen", type="promo")
    go(browser, "#/plugins")
    wait(browser, lambda d: len(all_css(d, "#plugins-list tr[data-plugin]")) == 2, message="two plugins listed")
    row = css(browser, "#plugins-list tr[data-plugin='promo']")
    assert "Screen plugin" in row.text and "1 screen" in row.text
    assert "not used" in css(browser, "#plugins-list tr[data-plugin='badge']").text
    shot(browser, "73-plugins-1440")
    browser.set_window_size(1024, 768)
    visible(browser, "#plugins-list")
    shot(browser, "73-plugins-1024")
    browser.set_window_size(1440, 900)

    # Update: a new version of the manifest, with one more field; the page shows it.
    click(browser, row.find_element("css selector", "a"))
    visible(browser, "#update-plugin-text")
    assert "Screen “Promo screen” is a screen of this plugin." in css(browser, "#plugin-uses").text
    newer = promo_manifest("1.1.0")
    newer["general"]["fields"].append({"key": "subtitle", "type": "text_input", "label": "Subtitle"})
    paste(browser, "#update-plugin-text", json.dumps(newer, indent=2))
    wait(browser, lambda d: "Saving adds version 1.1.0 and makes it current." in css(d, "#update-plugin-reading").text, message="what saving does")
    click(browser, css(browser, "#update-plugin-submit"))
    wait(browser, lambda d: css(d, "#plugin-version").text == "1.1.0", message="the new version current")
    assert "Subtitle" in css(browser, "#plugin-fields").text
    assert [li.get_attribute("data-version") for li in all_css(browser, "#plugin-versions li")] == ["1.1.0", "1.0.0"]
    plugin = api.ok("GET", "plugins/promo")
    assert plugin["current_version"] == "1.1.0" and len(plugin["versions"]) == 2

    # Another plugin's manifest is not taken as this one's.
    paste(browser, "#update-plugin-text", json.dumps(badge))
    click(browser, css(browser, "#update-plugin-submit"))
    said = " ".join(problems_of(browser, "update-plugin"))
    assert "this manifest is for “badge”, not “promo”" in said
    assert api.ok("GET", "plugins/promo")["revision"] == plugin["revision"]

    # Still in use: said at once, nothing asked, nothing removed.
    click(browser, css(browser, "#remove-plugin"))
    toast = wait(browser, lambda d: (all_css(d, ".toast-error") or [False])[-1], message="the in-use toast")
    assert "Removing plugin “Promo”: Still in use" in toast.text
    assert "The screen “Promo screen” is a screen of this plugin." in toast.text
    assert not all_css(browser, "dialog[open]"), "nothing asked"
    assert api.call("GET", "plugins/promo")[0] == 200
    shot(browser, "74-plugin-in-use")

    # Where a component plugin is used: the components named.
    cards = api.ok("POST", "layouts", {"name": "Cards", "family": family["id"], "ui_components": [
        {"component_type": "list", "cell_styles": ["LIST_1"]}, {"component_type": "badge", "cell_styles": ["LIST_1"]}]})
    go(browser, "#/plugins/badge")
    wait(browser, lambda d: "Layout “Cards” has a component of this plugin (Badge 2)." in css(d, "#plugin-uses").text, message="the layout using it")
    api.ok("DELETE", f"layouts/{cards['id']}")

    # Not in use: asked, then removed.
    go(browser, "#/plugins")
    go(browser, "#/plugins/badge")
    wait(browser, lambda d: "No screen or layout uses it." in css(d, "#plugin-uses").text, message="no one uses it now")
    click(browser, visible(browser, "#remove-plugin"))
    dialog = visible(browser, "dialog[open]")
    assert "Remove plugin “Badge”?" in dialog.text
    dialog.find_element("css selector", ".button.danger").click()
    wait(browser, lambda d: d.current_url.endswith("/plugins"), message="back to the list")
    wait(browser, lambda d: len(all_css(d, "#plugins-list tr[data-plugin]")) == 1, message="one left")
    assert api.call("GET", "plugins/badge")[0] == 404
    assert not browser_errors(browser)


def test_a_viewer_sees_the_plugins_read_only(browser, api):
    api.ok("POST", "plugins", promo_manifest())
    viewer = token_for(api, "viewer")
    sign_in(browser, viewer, "#/plugins")
    banner = visible(browser, "#read-only-banner")
    assert "only editors, publishers and admins can change it" in banner.text
    visible(browser, "#plugins-list tr[data-plugin='promo']")
    assert not all_css(browser, "#register-plugin")
    click(browser, css(browser, "#plugins-list tr[data-plugin='promo'] a"))
    visible(browser, "#plugin-fields")
    visible(browser, "#read-only-banner")
    assert not all_css(browser, "#update-plugin")
    remove = css(browser, "#remove-plugin")
    assert not remove.is_enabled()
    assert "viewers cannot change it" in remove.get_attribute("title")
    assert unlabelled_controls(browser) == []
    assert not browser_errors(browser)


def test_the_hooks_hint_leads_to_the_plugins_page(browser, api):
    """Issue 29, 9: "register one to hook it here" led nowhere."""
    family = api.family()
    screen = api.screen(family["id"], "Home")
    sign_in(browser, api, f"#/screens/{screen['id']}")
    link = wait(browser, lambda d: next((a for a in all_css(d, ".hint a") if a.text == "register one"), False), message="the hint's link")
    assert "register one to hook it here" in link.find_element("xpath", "..").text
    click(browser, link)
    wait(browser, lambda d: d.current_url.endswith(f"/apps/{api.app}/plugins"), message="the plugins page")
    visible(browser, "#register-plugin-text")

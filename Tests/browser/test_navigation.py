"""Navigation (nav bar, menu and their nested items), hooks, and the components inside a group."""
from selenium.webdriver.support.ui import Select

from conftest import all_css, browser_errors, css, set_value, shot, sign_in, unlabelled_controls, visible, wait

NESTED_ORDER = ("return [...document.querySelectorAll('.component-list > .component-card[data-component-type=group] "
                ".nested-components .component-card')].map(li => li.dataset.componentType)")


def wait_saved(driver):
    wait(driver, lambda d: css(d, "#save-status").text.startswith("Saved"), message="saved")


def item(driver, pointer):
    return css(driver, f"li.nav-item[data-pointer='{pointer}']")


def add_item(driver, owner_button):
    before = len(all_css(driver, "li.nav-item"))
    owner_button.click()
    wait(driver, lambda d: len(all_css(d, "li.nav-item")) == before + 1, message="item added")


def link_to_screen(driver, pointer, screen_id):
    Select(item(driver, pointer).find_element("css selector", "select[id$='-link']")).select_by_value("screen")
    target = visible(driver, f"select[data-pointer='{pointer}/data/target']")
    Select(target).select_by_value(screen_id)


def manifest(identifier, name):
    return {"author_name": "A", "author_email": "a@example.com", "manifest_version": "1.0.0", "name": name,
            "description": "A test plugin", "identifier": identifier, "type": "general", "min_zapp_sdk": "1.0.0",
            "ui_builder_support": True}


def test_two_level_menu_linking_screens_and_hooks(browser, api):
    family = api.family()
    home = api.screen(family["id"], "Home")
    shows = api.screen(family["id"], "Shows")
    movies = api.screen(family["id"], "Movies")
    api.ok("POST", "plugins", manifest("analytics_hook", "Analytics hook"))
    assert home["home"] is True
    sign_in(browser, api, f"#/screens/{home['id']}")

    # A menu of the built-in two-level type (once the registered plugins are listed too: the
    # navigation editor draws itself again when they arrive).
    wait(browser, lambda d: d.find_elements("css selector", "#nav-menu-new-type option[value='analytics_hook']"), message="plugins listed")
    Select(visible(browser, "#nav-menu-new-type")).select_by_value("two_level_rn_menu")
    css(browser, "[data-focus-key='nav-menu-add']").click()
    visible(browser, "#nav-menu-name")
    assert "Unsaved" in css(browser, "#save-status").text
    menu = css(browser, ".navigation-box[data-category='menu']")
    add_item(browser, menu.find_element("css selector", ".nav-add-item"))
    set_value(css(browser, "input[data-pointer='/navigations/0/nav_items/0/title']"), "Shows")
    link_to_screen(browser, "/navigations/0/nav_items/0", shows["id"])

    # A nested menu holding a link to the other screen.
    add_item(browser, css(browser, ".navigation-box[data-category='menu'] > .nav-item-list > .nav-add-item"))
    set_value(css(browser, "input[data-pointer='/navigations/0/nav_items/1/title']"), "More")
    Select(css(browser, "select[data-pointer='/navigations/0/nav_items/1/type']")).select_by_value("nested_menu")
    add_item(browser, visible(browser, "li.nav-item[data-pointer='/navigations/0/nav_items/1'] .nav-add-item"))
    set_value(css(browser, "input[data-pointer='/navigations/0/nav_items/1/nav_items/0/title']"), "Movies")
    link_to_screen(browser, "/navigations/0/nav_items/1/nav_items/0", movies["id"])

    # A preload hook from the registered plugins.
    add_hook = visible(browser, "[data-focus-key='hook-preload_plugins-add']")
    Select(css(browser, "#hook-preload_plugins-choice")).select_by_value("analytics_hook")
    add_hook.click()
    set_value(visible(browser, "#hook-preload_plugins-0-weight"), "5")

    browser.execute_script("document.querySelector('.navigation-editor').scrollIntoView()")
    shot(browser, "10-navigation")
    assert unlabelled_controls(browser) == []
    css(browser, "#save-screen").click()
    wait_saved(browser)

    saved = api.ok("GET", f"screens/{home['id']}")
    assert len(saved["navigations"]) == 1
    nav = saved["navigations"][0]
    assert nav["category"] == "menu" and nav["navigation_type"] == "two_level_rn_menu"
    assert [i["title"] for i in nav["nav_items"]] == ["Shows", "More"]
    assert nav["nav_items"][0]["data"]["target"] == shows["id"]
    assert nav["nav_items"][1]["type"] == "nested_menu"
    assert nav["nav_items"][1]["nav_items"][0]["title"] == "Movies"
    assert nav["nav_items"][1]["nav_items"][0]["data"]["target"] == movies["id"]
    hook = saved["hooks"]["preload_plugins"][0]
    assert (hook["identifier"], hook["type"], hook["weight"]) == ("analytics_hook", "general", 5)
    assert saved["hooks"]["postload_plugins"] == []

    # Reorder the top-level items with the buttons; remove the hook.
    css(browser, "li.nav-item[data-pointer='/navigations/0/nav_items/0'] button[aria-label^='Move item 1 ('][aria-label$='down']").click()
    wait(browser, lambda d: d.find_element("css selector", "input[data-pointer='/navigations/0/nav_items/0/title']").get_attribute("value") == "More")
    css(browser, "button[aria-label='Remove analytics_hook from the preload plugins']").click()
    css(browser, "#save-screen").click()
    wait_saved(browser)
    saved = api.ok("GET", f"screens/{home['id']}")
    assert [i["title"] for i in saved["navigations"][0]["nav_items"]] == ["More", "Shows"]
    assert saved["hooks"]["preload_plugins"] == []
    assert not browser_errors(browser)


def test_web_link_without_url_shows_the_error_at_its_field(browser, api):
    family = api.family()
    screen = api.screen(family["id"], "Start")
    sign_in(browser, api, f"#/screens/{screen['id']}")
    visible(browser, "[data-focus-key='nav-nav_bar-add']").click()
    bar = visible(browser, ".navigation-box[data-category='nav_bar'] .nav-add-item")
    add_item(browser, bar)
    add_item(browser, css(browser, ".navigation-box[data-category='nav_bar'] .nav-add-item"))
    pointer = "/navigations/0/nav_items/1"
    set_value(css(browser, f"input[data-pointer='{pointer}/title']"), "Website")
    Select(item(browser, pointer).find_element("css selector", "select[id$='-link']")).select_by_value("web")
    url = visible(browser, f"input[data-pointer='{pointer}/data/source']")
    css(browser, "#save-screen").click()
    wait(browser, lambda d: css(d, f"input[data-pointer='{pointer}/data/source']").get_attribute("aria-invalid") == "true", message="URL marked invalid")
    host = css(browser, f"input[data-pointer='{pointer}/data/source']").find_element("xpath", "..")
    assert "enter the web address" in host.text  # said before asking the server, in plain words
    assert "Nav bar › Item 2 (Website) › Web address" in css(browser, ".error-summary").text

    url = css(browser, f"input[data-pointer='{pointer}/data/source']")
    set_value(url, "https://example.com")
    assert url.get_attribute("aria-invalid") is None  # cleared while typing
    css(browser, "#save-screen").click()
    wait_saved(browser)
    saved = api.ok("GET", f"screens/{screen['id']}")
    web = saved["navigations"][0]["nav_items"][1]
    assert saved["navigations"][0]["category"] == "nav_bar"
    assert web["data"]["type"] == "WEB_URL" and web["data"]["source"] == "https://example.com"


def test_group_children_added_and_reordered(browser, api):
    family = api.family()
    screen = api.screen(family["id"], "Grouped")
    sign_in(browser, api, f"#/screens/{screen['id']}")
    visible(browser, ".catalog-item[data-type='group']").click()
    group = visible(browser, ".component-card[data-component-type='group']")
    assert "holds no components" in group.text
    for kind in ("list", "hero"):
        Select(css(browser, ".nested-add select")).select_by_value(kind)
        css(browser, "button[aria-label='Add the chosen component type to Group 1']").click()
    wait(browser, lambda d: d.execute_script(NESTED_ORDER) == ["list", "hero"], message="two children")
    # The children have the same fields as top-level components.
    set_value(css(browser, "input[data-pointer='/ui_components/0/ui_components/0/data/source']"), "42")
    assert all_css(browser, "select[data-pointer='/ui_components/0/ui_components/1/header/style']")
    assert unlabelled_controls(browser) == []
    css(browser, "#save-screen").click()
    wait_saved(browser)
    saved = api.ok("GET", f"screens/{screen['id']}")
    assert [c["component_type"] for c in saved["ui_components"]] == ["group"]
    children = saved["ui_components"][0]["ui_components"]
    assert [c["component_type"] for c in children] == ["list", "hero"]
    assert children[0]["data"]["source"] == "42"

    css(browser, "button[aria-label='Move Hero 2 in Group 1 up']").click()
    wait(browser, lambda d: d.execute_script(NESTED_ORDER) == ["hero", "list"], message="reordered")
    css(browser, "#save-screen").click()
    wait_saved(browser)
    children = api.ok("GET", f"screens/{screen['id']}")["ui_components"][0]["ui_components"]
    assert [c["component_type"] for c in children] == ["hero", "list"]
    assert [c["id"] for c in children] == [saved["ui_components"][0]["ui_components"][1]["id"], saved["ui_components"][0]["ui_components"][0]["id"]]

    css(browser, "button[aria-label='Remove List 2 in Group 1']").click()
    wait(browser, lambda d: d.execute_script(NESTED_ORDER) == ["hero"])
    css(browser, "#save-screen").click()
    wait_saved(browser)
    children = api.ok("GET", f"screens/{screen['id']}")["ui_components"][0]["ui_components"]
    assert [c["component_type"] for c in children] == ["hero"]
    assert not browser_errors(browser)


def test_an_item_set_to_open_a_screen_with_none_chosen_does_not_save(browser, api):
    """Issue 29, 2: a tab-bar item set to "A screen" with no screen chosen used to save with no
    warning and publish with "target": null. Now the save stops at that field, in words."""
    family = api.family()
    home = api.screen(family["id"], "Home")
    other = api.screen(family["id"], "Other")
    sign_in(browser, api, f"#/screens/{home['id']}")
    Select(visible(browser, "#nav-menu-new-type")).select_by_value("two_level_rn_menu")
    css(browser, "[data-focus-key='nav-menu-add']").click()
    menu = css(browser, ".navigation-box[data-category='menu']")
    add_item(browser, menu.find_element("css selector", ".nav-add-item"))
    set_value(css(browser, "input[data-pointer='/navigations/0/nav_items/0/title']"), "Shows")
    pointer = "/navigations/0/nav_items/0"
    Select(item(browser, pointer).find_element("css selector", "select[id$='-link']")).select_by_value("screen")
    target = visible(browser, f"select[data-pointer='{pointer}/data/target']")
    css(browser, "#save-screen").click()
    wait(browser, lambda d: target.get_attribute("aria-invalid") == "true", message="the screen field marked")
    message = wait(browser, lambda d: next((e.text for e in all_css(d, ".field-error") if "choose which one" in e.text), False),
                   message="a message at the field")
    assert "Shows opens a screen" in message
    assert "Saved" not in css(browser, "#save-status").text
    assert api.ok("GET", f"screens/{home['id']}")["navigations"] == [] or all(
        not n.get("nav_items") for n in api.ok("GET", f"screens/{home['id']}")["navigations"]), "saved anyway"
    Select(target).select_by_value(other["id"])
    css(browser, "#save-screen").click()
    wait_saved(browser)
    saved = api.ok("GET", f"screens/{home['id']}")["navigations"][0]["nav_items"][0]
    assert saved["data"]["target"] == other["id"]

"""A preview that looks like the app: a device with its status bar and safe areas, the nav bar and
the tab bar drawn from the screen's navigations, header titles, a hero as a paged carousel with page
dots, horizontal lists cut at the screen's edge, placeholder artwork in each cell's frame, names on
hover; two devices side by side, zoom, and a panel that widens. Every frame is the server's.
Screenshots at 1440 and 1024 px."""
import json
import urllib.request

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from conftest import BASE_URL, css, go, shot, sign_in, visible, wait

# Every cell drawn, with its frame as drawn (from the first device).
DRAWN = """
const svg = document.querySelector('#preview-frame .device:first-child svg.device-content');
return [...svg.querySelectorAll(':scope > g.section')].map((g) => ({
  type: g.dataset.componentType, name: g.dataset.name,
  cells: [...g.querySelectorAll(':scope > g.cell > rect.cell-frame')].map((r) => ['x', 'y', 'width', 'height'].map((k) => Number(r.getAttribute(k)))),
}));
"""


def server_layout(api, screen, device):
    request = urllib.request.Request(f"{BASE_URL}/api/v1/apps/{api.app}/preview", method="POST",
                                     data=json.dumps({"screen": screen, "device": device}).encode())
    request.add_header("Authorization", f"Bearer {api.token}")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_the_preview_looks_like_the_app(browser, api):
    family = api.family()
    screen = api.screen(family["id"], "Movies", [
        {"component_type": "hero", "cell_styles": ["LIST_1"], "rules": {"item_limit": 4}, "data": {"source": "1", "type": "APPLICASTER_COLLECTION"}},
        {"component_type": "horizontal_list", "cell_styles": ["GRID_1"], "rules": {"item_limit": 6},
         "header": {"visible": True, "style": "LIST_1"}, "data": {"source": "2", "type": "APPLICASTER_COLLECTION"}},
        {"component_type": "list", "cell_styles": ["LIST_1"], "rules": {"item_limit": 3}, "data": {"source": "3", "type": "APPLICASTER_COLLECTION"}},
    ], navigations=[
        {"category": "nav_bar", "navigation_type": "navigation_bar", "name": "Top", "nav_items": [{"title": "Search", "type": "button"}]},
        {"category": "menu", "navigation_type": "tab_bar_menu", "name": "Tabs", "nav_items": [
            {"title": "Home", "type": "button"}, {"title": "Live", "type": "button"}, {"title": "Settings", "type": "button"}]},
    ])
    browser.set_window_size(1440, 900)
    sign_in(browser, api, f"#/screens/{screen['id']}")
    Select(visible(browser, "#preview-device")).select_by_value("phone-390x844")
    wait(browser, lambda d: d.execute_script("return document.querySelector('#preview-frame .device')?.dataset.deviceId") == "phone-390x844")
    device = css(browser, "#preview-frame .device")

    # The device: status bar and safe areas, the nav bar (title and item) and the tab bar.
    assert "9:41" in device.find_element("css selector", ".device-status").get_attribute("textContent")
    assert device.find_elements("css selector", ".device-status .island"), "a phone with a notch draws its island"
    assert device.find_element("css selector", ".nav-title").get_attribute("textContent") == "Movies"
    assert device.find_element("css selector", ".nav-item").get_attribute("textContent") == "Search"
    tabs = [t.get_attribute("textContent") for t in device.find_elements("css selector", ".device-tab-bar .tab-item text")]
    assert tabs == ["Home", "Live", "Settings"]
    assert len(device.find_elements("css selector", ".safe-area")) == 2

    # Sections and cells exactly where the server put them.
    layout = server_layout(api, {k: screen[k] for k in ("name", "family", "ui_components", "navigations")}, "phone-390x844")
    drawn = browser.execute_script(DRAWN)
    assert [s["type"] for s in drawn] == ["hero", "horizontal_list", "list"]
    assert [s["name"] for s in drawn] == ["Hero 1", "Horizontal list 2", "List 3"]
    for section, server in zip(drawn, layout["sections"]):
        assert section["cells"] == [[i["frame"][k] for k in ("x", "y", "width", "height")] for i in server["items"]]
    # The hero is a carousel of pages with dots; the horizontal list runs past the screen's edge and is cut there.
    assert len(device.find_elements("css selector", "g.section[data-component-type='hero'] .page-dot")) == 4
    width = layout["device"]["width"]
    assert any(c[0] + c[2] > width for c in drawn[1]["cells"]), "a cell past the edge"
    assert browser.execute_script("return document.querySelector('#preview-frame svg.device-content').getAttribute('viewBox')").split()[2] == str(width)
    # Its header shows a section title from the sample feed (test_preview_look.py), not the component's name.
    header = device.find_element("css selector", "g.section[data-component-type='horizontal_list'] .header-title").get_attribute("textContent")
    assert header.strip() and "Horizontal list" not in header
    assert device.find_elements("css selector", "g.cell .art"), "placeholder artwork"

    # Hovering a section names its component; a click goes to it.
    target = device.find_element("css selector", "g.section[data-component-type='list'] g.cell")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", target)
    ActionChains(browser).move_to_element(target).perform()
    hover = visible(browser, "#preview-hover")
    assert hover.text.startswith("List 3")
    shot(browser, "19-preview-device-1440")
    target.click()
    wait(browser, lambda d: d.execute_script("return document.activeElement.closest('.component-card')?.dataset.index") == "2")

    # Two devices side by side; a fixed zoom.
    Select(css(browser, "#preview-device-2")).select_by_value("tablet-768x1024")
    wait(browser, lambda d: len(d.find_elements("css selector", "#preview-frame .device")) == 2, message="two devices")
    first, second = browser.find_elements("css selector", "#preview-frame .device")
    assert second.get_attribute("data-device-id") == "tablet-768x1024"
    assert first.rect["y"] == second.rect["y"] and second.rect["x"] > first.rect["x"] + first.rect["width"] - 1
    Select(css(browser, "#preview-zoom")).select_by_value("1")
    wait(browser, lambda d: css(d, "#preview-frame svg.device-content").get_attribute("width") == "390")

    # The panel widens: drag its edge, or arrow keys on it; the width is remembered.
    before = css(browser, ".preview-panel").rect["width"]
    handle = css(browser, "#preview-resizer")
    ActionChains(browser).click_and_hold(handle).move_by_offset(-300, 0).release().perform()
    wait(browser, lambda d: css(d, ".preview-panel").rect["width"] >= before + 250, message="widened by dragging")
    handle.send_keys(Keys.ARROW_LEFT)
    Select(css(browser, "#preview-zoom")).select_by_value("fit")
    wait(browser, lambda d: css(d, "#preview-frame svg.device-content").get_attribute("width") != "390", message="fits again")
    assert browser.execute_script("return document.querySelector('.device-row').offsetWidth <= document.querySelector('#preview-frame').clientWidth")
    shot(browser, "19-preview-two-devices-1440")
    widened = css(browser, ".preview-panel").rect["width"]
    assert browser.execute_script("return Number(localStorage.getItem('rivers.previewWidth'))") >= before + 250
    go(browser, "#/screens")
    go(browser, f"#/screens/{screen['id']}")
    visible(browser, "#preview-frame .device")
    assert abs(css(browser, ".preview-panel").rect["width"] - widened) < 2

    # At 1024 px the preview sits under the form, as wide as the column.
    browser.set_window_size(1024, 900)
    Select(css(browser, "#preview-device-2")).select_by_value("")
    wait(browser, lambda d: len(d.find_elements("css selector", "#preview-frame .device")) == 1)
    panel = css(browser, ".preview-panel")
    browser.execute_script("arguments[0].scrollIntoView()", panel)
    shot(browser, "19-preview-device-1024")

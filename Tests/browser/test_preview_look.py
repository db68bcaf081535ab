"""Issue 29, "a preview that looks like the app": the colours, fonts and sizes of the screen's, the
components', the navigations' and the family's styles are drawn; cells show sample content (titles
and generated pictures) from a sample feed per data source that the Sample content panel edits (kept
in the browser per app); section titles come from the feed, not from component names; each platform
family gets its chrome (iOS, Android, tvOS and Android TV with no tab bar and a focus ring, web);
Fit fits two devices side by side; the form stays usable beside a wide preview and at 1024 px.
Screenshots at 1440×900 and 1024×768 of a phone, a TV and two devices."""
import time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from conftest import all_css, css, go, set_value, shot, sign_in, visible, wait

NAV = [
    {"category": "nav_bar", "navigation_type": "navigation_bar", "name": "Top",
     "styles": {"background_color": "#FF1A1F36", "title_color": "#FFFFD166", "title_size": "19"},
     "nav_items": [{"title": "Search", "type": "button"}]},
    {"category": "menu", "navigation_type": "tab_bar_menu", "name": "Tabs",
     "styles": {"background_color": "#FF1A1F36", "selected_color": "#FFFFD166"},
     "nav_items": [{"title": "Home", "type": "button"}, {"title": "Live", "type": "button"}, {"title": "Settings", "type": "button"}]},
]


def phone_family(api):
    return api.ok("POST", "families", {
        "id": "LOOK_PHONE", "name": "Phones", "reference_size": {"width": 320, "height": 568},
        "insets": {"top": 10, "left": 10, "bottom": 10, "right": 10}, "interitem_spacing": 10, "line_spacing": 10,
        "cell_styles": [
            {"id": "HERO_1", "columns": 1, "aspect_ratio": 1.7778},
            {"id": "POSTER_1", "width": 100, "aspect_ratio": 0.6667},
            {"id": "CARD_1", "columns": 2, "height": "fit", "content": {"kind": "stack", "axis": "vertical", "spacing": 4, "children": [
                {"kind": "image", "aspect_ratio": "16:9", "placeholder": "poster"},
                {"kind": "text", "role": "title", "font_size": 16, "line_height": 20},
                {"kind": "text", "role": "subtitle", "font_size": {"fixed": 11}, "line_height": 14}]}},
            {"id": "HEADER_1", "columns": 1, "height": 32},
        ]})


def tv_family(api):
    return api.ok("POST", "families", {
        "id": "LOOK_TV", "name": "TV", "reference_size": {"width": 1920, "height": 1080},
        "insets": {"top": 40, "left": 80, "bottom": 40, "right": 80}, "interitem_spacing": 30, "line_spacing": 40,
        "cell_styles": [{"id": "TV_HERO", "columns": 1, "height": 500}, {"id": "TV_CARD", "width": 360, "aspect_ratio": 1.7778},
                        {"id": "TV_HEADER", "columns": 1, "height": 60}]})


def phone_screen(api, family):
    return api.screen(family["id"], "Home", [
        {"component_type": "hero", "cell_styles": ["HERO_1"], "rules": {"item_limit": 4}, "data": {"source": "101", "type": "APPLICASTER_COLLECTION"}},
        {"component_type": "horizontal_list", "cell_styles": ["POSTER_1"], "rules": {"item_limit": 6}, "header": {"visible": True, "style": "HEADER_1"},
         "data": {"source": "102", "type": "APPLICASTER_COLLECTION"}},
        {"component_type": "grid", "cell_styles": ["CARD_1"], "rules": {"item_limit": 4}, "header": {"visible": True, "style": "HEADER_1"},
         "styles": {"background_color": "#FFF4F1EA", "title_color": "#FF7A1F2B"}, "data": {"source": "103", "type": "APPLICASTER_COLLECTION"}},
    ], navigations=NAV, styles={"background_color": "#FFFBFAF7"})


def tv_screen(api, family):
    return api.screen(family["id"], "TV Home", [
        {"component_type": "hero", "cell_styles": ["TV_HERO"], "rules": {"item_limit": 3}, "data": {"source": "201", "type": "APPLICASTER_COLLECTION"}},
        {"component_type": "horizontal_list", "cell_styles": ["TV_CARD"], "rules": {"item_limit": 8}, "header": {"visible": True, "style": "TV_HEADER"},
         "data": {"source": "202", "type": "APPLICASTER_COLLECTION"}},
    ], navigations=[{"category": "menu", "navigation_type": "tab_bar_menu", "name": "Menu", "nav_items": [
        {"title": "Home", "type": "button"}, {"title": "Movies", "type": "button"}, {"title": "Series", "type": "button"}]}])


def choose(driver, device, platform="ios", beside=""):
    Select(visible(driver, "#preview-device")).select_by_value(device)
    Select(css(driver, "#preview-device-2")).select_by_value(beside)
    Select(css(driver, "#preview-platform")).select_by_value(platform)
    expected = [device] + ([beside] if beside else [])
    wait(driver, lambda d: d.execute_script(
        "return [...document.querySelectorAll('#preview-frame .device')].map((e) => e.dataset.deviceId + '/' + e.dataset.platform)")
        and [x.split("/")[0] for x in d.execute_script(
            "return [...document.querySelectorAll('#preview-frame .device')].map((e) => e.dataset.deviceId + '/' + e.dataset.platform)")] == expected,
        timeout=20, message=f"preview of {expected}")


def platforms(driver):
    return driver.execute_script("return [...document.querySelectorAll('#preview-frame .device')].map((e) => e.dataset.platform)")


def attr(driver, selector, name):
    return driver.execute_script("return document.querySelector(arguments[0])?.getAttribute(arguments[1]) ?? null", selector, name)


def texts(driver, selector):
    return driver.execute_script("return [...document.querySelectorAll(arguments[0])].map((e) => e.textContent)", selector)


def test_styles_and_sample_content_are_drawn(browser, api):
    family = phone_family(api)
    screen = phone_screen(api, family)
    browser.set_window_size(1440, 900)
    sign_in(browser, api, f"#/screens/{screen['id']}")
    choose(browser, "phone-390x844", "ios")
    first = "#preview-frame .device:first-child"

    # Colours from the styles: the screen's background, a component's background and title colour,
    # the nav bar's background and title colour and size (the status bar takes the nav bar's colour),
    # the tab bar's background and selected colour. #AARRGGBB is read with its alpha first.
    assert attr(browser, f"{first} svg.device-content rect.screen", "fill") == "#fbfaf7"
    assert attr(browser, f"{first} g.section[data-component-type='grid'] > rect.section", "fill") == "#f4f1ea"
    assert attr(browser, f"{first} g.section[data-component-type='grid'] .header-title", "fill") == "#7a1f2b"
    assert attr(browser, f"{first} .device-nav-bar .nav-background", "fill") == "#1a1f36"
    assert attr(browser, f"{first} .device-status rect", "fill") == "#1a1f36"
    assert attr(browser, f"{first} .nav-title", "fill") == "#ffd166"
    assert attr(browser, f"{first} .nav-title", "font-size") == "19"
    assert attr(browser, f"{first} .device-tab-bar .menu-background", "fill") == "#1a1f36"
    assert attr(browser, f"{first} .device-tab-bar .tab-item text", "fill") == "#ffd166"
    # The family's text sizes: 16 scaled by 390/320, and a fixed 11.
    sizes = browser.execute_script("""return [...document.querySelectorAll(arguments[0] + " g.section[data-component-type='grid'] g.cell[data-index='0'] .content-text text")]
      .map((t) => [t.dataset.role, Number(t.getAttribute('font-size'))])""", first)
    assert sizes[0][0] == "title" and abs(sizes[0][1] - 16 * 390 / 320) < 0.01, sizes
    assert sizes[1] == ["subtitle", 11], sizes
    # Generated pictures (a gradient each, no outside image), different per item.
    fills = browser.execute_script("""return [...document.querySelectorAll(arguments[0] + " g.section[data-component-type='horizontal_list'] g.cell .art-bg")].map((r) => r.getAttribute('fill'))""", first)
    assert len(fills) == 6 and all(f.startswith("url(#art-") for f in fills)
    stops = browser.execute_script("""return [...document.querySelectorAll(arguments[0] + " g.section[data-component-type='horizontal_list'] g.cell linearGradient stop:first-child")].map((s) => s.getAttribute('stop-color'))""", first)
    assert len(set(stops)) >= 3, stops
    assert not browser.execute_script("return document.querySelector('#preview-frame').querySelector('image, img')"), "no image is fetched"

    # Section titles come from the sample feed, never the component's name.
    headers = texts(browser, f"{first} .header-title")
    assert len(headers) == 2 and not any("list" in t.lower() or "grid" in t.lower() for t in headers), headers
    titles = texts(browser, f"{first} g.section[data-component-type='horizontal_list'] g.cell .cell-text")
    assert len(titles) == 6 and all(t.strip() for t in titles)

    # The Sample content panel lists a feed per data source; its defaults are what is drawn.
    css(browser, "#sample-panel > summary").click()
    feed = visible(browser, "fieldset.sample-feed[data-feed='APPLICASTER_COLLECTION|102']")
    assert len(all_css(browser, "fieldset.sample-feed")) == 3
    title_input = feed.find_element("css selector", "input")
    items = feed.find_element("css selector", "textarea")
    assert title_input.get_attribute("placeholder") == headers[0]
    typed = items.get_attribute("value").split("\n")[:6]
    # (A title too long for its cell is cut with "…".)
    assert all(t == full or (t.endswith("…") and full.startswith(t[:-1])) for t, full in zip(titles, typed)), (titles, typed)
    shot(browser, "40-preview-look-phone-1440")

    # Edited: the section title and the items' titles change in the drawing at once (no save).
    set_value(title_input, "Weekend picks")
    set_value(items, "Alpha Centauri\nBeta Blues")
    section = f"{first} g.section[data-component-type='horizontal_list']"
    wait(browser, lambda d: texts(d, f"{section} .header-title") == ["Weekend picks"], message="section title from the panel")
    wait(browser, lambda d: texts(d, f"{section} g.cell .cell-text")[:4] == ["Alpha Centauri", "Beta Blues", "Alpha Centauri", "Beta Blues"],
         message="item titles from the panel")
    assert css(browser, "#save-status").text.startswith("Saved"), "sample content is not an edit of the screen"
    # Ctrl+Z in the panel does not undo the screen.
    items.send_keys(Keys.CONTROL, "z")
    assert css(browser, "#screen-name").get_attribute("value") == "Home"

    # Kept in this browser, per app: back after a reload; the other feeds keep their defaults.
    browser.refresh()
    visible(browser, f"{section} .header-title")
    choose(browser, "phone-390x844", "ios")
    wait(browser, lambda d: texts(d, f"{section} .header-title") == ["Weekend picks"], message="kept after a reload")
    assert texts(browser, f"{first} g.section[data-component-type='grid'] .header-title") == [headers[1]]
    assert api.ok("GET", f"screens/{screen['id']}")["revision"] == screen["revision"], "nothing was saved"

    # The hero's page dots are under its title, not on it.
    clear = browser.execute_script("""
const hero = document.querySelector(arguments[0] + " g.section[data-component-type='hero']");
const title = hero.querySelector('g.cell .hero-title').getBBox();
const dot = hero.querySelector('.page-dot');
return Number(dot.getAttribute('cy')) - Number(dot.getAttribute('r')) >= title.y + title.height;""", first)
    assert clear, "the page dots sit below the hero's title"

    # Start over: the default feed again.
    css(browser, "#sample-panel > summary").click() if not css(browser, "#sample-panel").get_attribute("open") else None
    feed = visible(browser, "fieldset.sample-feed[data-feed='APPLICASTER_COLLECTION|102']")
    feed.find_element("css selector", "button").click()
    wait(browser, lambda d: texts(d, f"{section} .header-title") == [headers[0]], message="back to the default")


def test_chrome_per_platform_family(browser, api):
    phone = phone_screen(api, phone_family(api))
    tv = tv_screen(api, tv_family(api))
    browser.set_window_size(1440, 900)
    sign_in(browser, api, f"#/screens/{tv['id']}")

    # A TV (tvOS): no status bar, no tab bar even though the menu is a tab bar; the menu runs along
    # the top with its first item focused; the first item has the focus ring.
    for platform, family in (("ios", "tvos"), ("android", "androidtv")):
        choose(browser, "tv-1920x1080", platform)
        wait(browser, lambda d: platforms(d) == [family], message=family)
        device = css(browser, "#preview-frame .device")
        assert not device.find_elements("css selector", ".device-tab-bar"), f"{family}: no tab bar"
        assert not device.find_elements("css selector", ".device-status"), f"{family}: no status bar"
        assert texts(browser, "#preview-frame .device-top-menu .menu-item") == ["Home", "Movies", "Series"]
        assert device.find_elements("css selector", ".device-top-menu .menu-focus")
        ring = browser.execute_script("""
const svg = document.querySelector('#preview-frame svg.device-content');
const ring = svg.querySelector('.focus-ring .ring');
const cell = svg.querySelector('g.section g.cell rect.cell-frame');
const n = (e, k) => Number(e.getAttribute(k));
return ring && {stroke: ring.getAttribute('stroke'),
  encloses: n(ring, 'x') < n(cell, 'x') && n(ring, 'y') < n(cell, 'y')
    && n(ring, 'x') + n(ring, 'width') > n(cell, 'x') + n(cell, 'width') && n(ring, 'y') + n(ring, 'height') > n(cell, 'y') + n(cell, 'height')};""")
        assert ring == {"stroke": "#ffffff", "encloses": True}, ring
        assert family.replace("androidtv", "Android TV").replace("tvos", "tvOS") in device.find_element("css selector", "figcaption").text
    choose(browser, "tv-1920x1080", "ios")
    shot(browser, "40-preview-look-tv-1440")

    # Android: its status bar (a camera, no island), a top app bar with the title on the left, a
    # bottom navigation in place of the tab bar; the nav bar's colours still apply.
    go(browser, f"#/screens/{phone['id']}")
    choose(browser, "phone-390x844", "android")
    wait(browser, lambda d: platforms(d) == ["android"])
    device = css(browser, "#preview-frame .device")
    assert device.find_elements("css selector", ".device-status .camera")
    assert not device.find_elements("css selector", ".device-status .island")
    assert attr(browser, "#preview-frame .device-nav-bar", "data-platform") == "android"
    assert float(attr(browser, "#preview-frame .nav-title", "x")) < 100, "the title starts at the left"
    assert attr(browser, "#preview-frame .nav-background", "fill") == "#1a1f36"
    assert texts(browser, "#preview-frame .bottom-navigation .tab-item text") == ["Home", "Live", "Settings"]
    assert device.find_elements("css selector", ".bottom-navigation .active-indicator")
    shot(browser, "40-preview-look-android-1440")

    # iOS: the nav bar's title in the middle, the tab bar; the web: a browser's address bar and no tab bar.
    choose(browser, "phone-390x844", "ios")
    wait(browser, lambda d: platforms(d) == ["ios"])
    assert attr(browser, "#preview-frame .nav-title", "text-anchor") == "middle"
    assert all_css(browser, "#preview-frame .device-tab-bar:not(.bottom-navigation)")
    choose(browser, "tablet-1024x768", "web")
    wait(browser, lambda d: platforms(d) == ["web"])
    assert "app.example.com/home" in css(browser, "#preview-frame .device-browser .address").get_attribute("textContent")
    assert not all_css(browser, "#preview-frame .device-tab-bar")
    assert texts(browser, "#preview-frame .device-nav-bar .menu-item") == ["Home", "Live", "Settings"]
    # The choice is remembered.
    assert browser.execute_script("return localStorage.getItem('rivers.previewPlatform')") == "web"


FITS = """
const frame = document.querySelector('#preview-frame').getBoundingClientRect();
const devices = [...document.querySelectorAll('#preview-frame .device-body')].map((d) => d.getBoundingClientRect());
return {frame: [frame.left, frame.right], devices: devices.map((d) => [d.left, d.right, d.top]),
  scroll: document.querySelector('#preview-frame').scrollWidth - document.querySelector('#preview-frame').clientWidth};
"""


def assert_fits(driver, label):
    m = driver.execute_script(FITS)
    (left, right), devices = m["frame"], m["devices"]
    assert len(devices) == 2, label
    assert all(left <= d[0] and d[1] <= right for d in devices), f"{label}: {m}"
    assert devices[0][1] < devices[1][0], f"{label}: side by side"
    assert m["scroll"] <= 0, f"{label}: nothing to scroll sideways ({m})"
    # And Fit uses the room: the two devices take most of the frame's width.
    assert devices[1][1] - devices[0][0] > 0.8 * (right - left) - 40, f"{label}: uses the width ({m})"


def form_usable(driver):
    """The narrowest select, text field and the form's width, in the screen form beside the preview."""
    return driver.execute_script("""
const main = document.querySelector('.editor-main').getBoundingClientRect();
const panel = document.querySelector('.preview-panel').getBoundingClientRect();
const widths = (sel) => [...document.querySelectorAll(sel)].filter((e) => e.getClientRects().length).map((e) => e.getBoundingClientRect().width);
return {main: main.width, mainRight: main.right, panelLeft: panel.left, panelTop: panel.top,
  select: Math.min(...widths('.editor-main .component-card select, .editor-main .screen-fields select')),
  input: Math.min(...widths(".editor-main .component-card input[type='text'], .editor-main .screen-fields input[type='text']"))};""")


def test_fit_and_the_form_beside_the_preview(browser, api):
    screen = phone_screen(api, phone_family(api))
    tv = tv_screen(api, tv_family(api))
    browser.set_window_size(1440, 900)
    sign_in(browser, api, f"#/screens/{screen['id']}")
    Select(visible(browser, "#preview-zoom")).select_by_value("fit")
    choose(browser, "phone-390x844", "ios", beside="tv-1920x1080")
    time.sleep(0.3)
    assert_fits(browser, "1440")
    shot(browser, "40-preview-look-two-devices-1440")

    # Widest preview: the form keeps 448 px and every select room for its words.
    handle = css(browser, "#preview-resizer")
    handle.send_keys(Keys.END)
    time.sleep(0.3)
    m = form_usable(browser)
    assert m["main"] >= 440 and m["select"] >= 120 and m["input"] >= 120, m
    wait(browser, lambda d: d.execute_script(FITS)["scroll"] <= 0, message="fits the wider frame")
    assert_fits(browser, "1440, widest")
    ActionChains(browser).click_and_hold(handle).move_by_offset(400, 0).release().perform()
    time.sleep(0.3)
    assert_fits(browser, "1440, narrowed")

    # 1024×768: the preview beside the form, in sight without scrolling, two devices fitting it;
    # the form's fields keep their width.
    browser.set_window_size(1024, 768)
    wait(browser, lambda d: d.execute_script("return window.innerWidth") <= 1024)
    time.sleep(0.4)
    m = form_usable(browser)
    assert m["panelLeft"] >= m["mainRight"], f"beside the form: {m}"
    assert m["panelTop"] < 300, f"in sight: {m}"
    assert m["main"] >= 440 and m["select"] >= 120 and m["input"] >= 120, m
    assert_fits(browser, "1024")
    shot(browser, "40-preview-look-two-devices-1024")
    choose(browser, "phone-390x844", "ios")
    shot(browser, "40-preview-look-phone-1024")
    go(browser, f"#/screens/{tv['id']}")
    choose(browser, "tv-1920x1080", "ios")
    shot(browser, "40-preview-look-tv-1024")

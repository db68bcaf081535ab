"""The editor's layout holds at every width from 1024 px up: nothing overflows sideways, the screen
editor's column stays as wide as the window, sidebar headings keep clear of their New buttons, and
the Save/Delete bar stays in sight on long screens. Screenshots at 1440 and 1024 px."""
import time

from conftest import css, go, set_value, shot, sign_in, visible, wait

WIDTHS = (1440, 1024)

# Everything that sticks out to the right, scroll containers that scroll sideways, and children of
# head rows (title beside buttons) that overlap. The preview frame is meant to scroll (a horizontal
# list runs past the screen's edge), and so are the layout thumbnails: what is inside them is left out.
MEASURE = """
const width = window.innerWidth;
const scrolling = (el) => el.closest('.preview-frame, .layout-thumb, svg');
const name = (el) => `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}${typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\\s+/).join('.') : ''}`;
const out = {width, page: document.documentElement.scrollWidth, sticking_out: [], scrolling_sideways: [], overlapping: []};
for (const el of document.querySelectorAll('body *')) {
  if (scrolling(el) || el.closest('.visually-hidden') || !el.getClientRects().length) continue;
  const r = el.getBoundingClientRect();
  if (r.right > width + 1) out.sticking_out.push(`${name(el)} (right edge at ${Math.round(r.right)} px)`);
  const overflow = getComputedStyle(el).overflowX;
  if ((overflow === 'auto' || overflow === 'scroll') && el.scrollWidth > el.clientWidth + 1) {
    out.scrolling_sideways.push(`${name(el)} (${el.scrollWidth} px in ${el.clientWidth} px)`);
  }
}
for (const row of document.querySelectorAll('.sidebar-head, .toolbar, .toolbar-actions, .toolbar-title, .section-head, .card-head, .preview-head')) {
  const kids = [...row.children].filter((k) => k.getClientRects().length);
  for (let i = 0; i < kids.length; i += 1) {
    for (let j = i + 1; j < kids.length; j += 1) {
      const a = kids[i].getBoundingClientRect();
      const b = kids[j].getBoundingClientRect();
      // Closer than 4 px side by side counts as touching.
      if (a.left < b.right + 4 && b.left < a.right + 4 && a.top < b.bottom - 1 && b.top < a.bottom - 1) {
        out.overlapping.push(`${name(row)}: ${name(kids[i])} and ${name(kids[j])}`);
      }
    }
  }
}
const main = document.querySelector('.editor-main');
out.editor_main = main ? Math.round(main.getBoundingClientRect().width) : null;
out.sticking_out = out.sticking_out.slice(0, 10);
return out;
"""


def measure(driver):
    return driver.execute_script(MEASURE)


def check_fits(driver, where):
    found = measure(driver)
    assert found["page"] <= found["width"], f"{where}: the page is {found['page']} px wide in a {found['width']} px window"
    assert not found["sticking_out"], f"{where}: sticks out: {found['sticking_out']}"
    assert not found["scrolling_sideways"], f"{where}: scrolls sideways: {found['scrolling_sideways']}"
    assert not found["overlapping"], f"{where}: overlaps: {found['overlapping']}"
    if found["editor_main"] is not None:
        assert found["editor_main"] <= found["width"], f"{where}: the editor's column is {found['editor_main']} px wide"
    return found


def components(family):
    """A long screen: a hero, a grid and a horizontal list (whose preview runs past the screen's
    edge, which once made the column thousands of pixels wide), then lists."""
    return ([{"component_type": "hero", "cell_styles": ["LIST_1"], "data": {"source": "1", "type": "APPLICASTER_COLLECTION"}},
             {"component_type": "grid", "cell_styles": ["GRID_1"], "rules": {"item_limit": 8}, "data": {"source": "2", "type": "APPLICASTER_COLLECTION"}},
             {"component_type": "horizontal_list", "cell_styles": ["GRID_1"], "rules": {"item_limit": 30}, "data": {"source": "3", "type": "APPLICASTER_COLLECTION"}}]
            + [{"component_type": "list", "cell_styles": ["LIST_1"], "rules": {"item_limit": 3}, "data": {"source": str(10 + i), "type": "APPLICASTER_COLLECTION"}} for i in range(6)])


def test_nothing_overflows_from_1024_px_up(browser, api):
    family = api.family()
    home = api.screen(family["id"], "Home with a long name that keeps going", components(family))
    connected = api.screen(family["id"], "Show page", [{"component_type": "list", "cell_styles": ["LIST_1"]}], connected=True, parent=home["id"])
    layout = api.ok("POST", "layouts", {"name": "Starter", "family": family["id"], "ui_components": components(family)[:3]})
    views = [
        ("screens", "#/screens", "#new-screen-name"),
        ("screen-editor", f"#/screens/{home['id']}", "#preview-frame svg"),
        ("connected-screen", f"#/screens/{connected['id']}", "#preview-frame svg"),
        ("families", "#/families", ".data-table"),
        ("family", f"#/families/{family['id']}", "[data-testid='size-1']"),
        ("new-family", "#/families/new", "input[data-pointer='/id']"),
        ("layouts", "#/layouts", ".layout-card svg"),
        ("layout-editor", f"#/layouts/{layout['id']}", "#preview-frame svg"),
        ("publish", "#/publish", "#problems ul, #problems .ok"),
    ]
    sign_in(browser, api, "#/screens")
    for width in WIDTHS:
        browser.set_window_size(width, 900)
        wait(browser, lambda d: d.execute_script("return window.innerWidth") == width, message=f"window {width} px wide")
        for name, path, ready in views:
            go(browser, path)
            visible(browser, ready)
            time.sleep(0.3)  # the preview and the lists settle
            found = check_fits(browser, f"{name} at {width} px")
            if name == "screen-editor":
                # The column holds the form beside (1440) or above (1024) the preview, never more.
                assert found["editor_main"] <= width - 200
            if name in ("screen-editor", "family", "screens"):
                shot(browser, f"11-{name}-{width}")


def test_save_bar_stays_in_sight_on_a_long_screen(browser, api):
    family = api.family()
    home = api.screen(family["id"], "Long screen", components(family))
    sign_in(browser, api, f"#/screens/{home['id']}")
    for width in WIDTHS:
        browser.set_window_size(width, 900)
        wait(browser, lambda d: d.execute_script("return window.innerWidth") == width, message=f"window {width} px wide")
        go(browser, f"#/screens/{home['id']}?w={width}")
        visible(browser, "#save-screen")
        # An edit at the bottom of the form: the last component's item limit.
        limits = browser.find_elements("css selector", "input[data-pointer$='/rules/item_limit']")
        last = limits[-1]
        browser.execute_script("arguments[0].scrollIntoView({block: 'end'})", last)
        set_value(last, str(4 + WIDTHS.index(width)))
        scrolled = browser.execute_script("return document.querySelector('.pane').scrollTop")
        assert scrolled > 500, "the form is long enough to scroll"
        # The bar is still at the top of the pane, and what is drawn at the Save button is the button.
        on_top = browser.execute_script("""
const button = document.getElementById('save-screen');
const r = button.getBoundingClientRect();
const pane = document.querySelector('.pane').getBoundingClientRect();
const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
return {inside: r.top >= pane.top - 1 && r.bottom <= pane.bottom + 1, hit: hit === button || button.contains(hit)};
""")
        assert on_top == {"inside": True, "hit": True}, on_top
        delete = css(browser, "button[aria-label='Delete screen']")
        assert delete.is_displayed()
        shot(browser, f"12-sticky-save-bar-{width}")
        css(browser, "#save-screen").click()
        wait(browser, lambda d: css(d, "#save-status").text.startswith("Saved"), message="saved from the bar")
        saved = api.ok("GET", f"screens/{home['id']}")
        assert saved["ui_components"][-1]["rules"]["item_limit"] == 4 + WIDTHS.index(width)
        # A field scrolled to (the first one) is not hidden under the bar.
        name = css(browser, "#screen-name")
        browser.execute_script("arguments[0].focus(); arguments[0].scrollIntoView()", name)
        clear = browser.execute_script("""
const bar = document.querySelector('.resource-form > .toolbar').getBoundingClientRect();
return document.getElementById('screen-name').getBoundingClientRect().top >= bar.bottom - 1;
""")
        assert clear, "the field is below the bar"

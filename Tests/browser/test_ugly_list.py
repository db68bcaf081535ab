"""Issue 29, the "ugly" list, measured: layout thumbnails are sketches (no labels, no red fold line),
Publish after a rollback scrolls in one place, the family and layout editors' forms stop at one
width, and at 1024 px no page (other than the screen preview) has overlapping or clipped controls
or a select squashed to a letter. Screenshots of each page at 1440 and 1024 (80-ugly-…)."""
import pytest

from conftest import all_css, browser_errors, css, go, shot, sign_in, visible, wait

SIZES = ((1440, 900), (1024, 768))


def layout_body(family_id, name="Home"):
    return {"id": f"L_{family_id}", "name": name, "family": family_id, "ui_components": [
        {"component_type": "hero", "cell_styles": ["LIST_1"]},
        {"component_type": "horizontal_list", "cell_styles": ["GRID_1"], "header": {"visible": True}},
        {"component_type": "grid", "cell_styles": ["GRID_1"]},
        {"component_type": "list", "cell_styles": ["LIST_1"]},
    ]}


# What a sketch holds: text of any kind, a red element, a line (the old fold line).
SKETCH_PROBLEMS = """
const host = arguments[0];
const svg = host.querySelector('svg');
const problems = [];
if (!svg) return ['no svg'];
if (svg.querySelectorAll('text, tspan, foreignObject, line').length) problems.push('text or line elements: ' + svg.querySelectorAll('text, tspan, foreignObject, line').length);
if (svg.textContent.trim()) problems.push('text: ' + svg.textContent.trim().slice(0, 60));
const red = (value) => {
  const m = /rgba?\\((\\d+),\\s*(\\d+),\\s*(\\d+)/.exec(value || '');
  return m && +m[1] >= 170 && +m[2] <= 100 && +m[3] <= 100;
};
for (const el of svg.querySelectorAll('*')) {
  const style = getComputedStyle(el);
  if ((style.fill !== 'none' && red(style.fill)) || (style.stroke !== 'none' && red(style.stroke))) problems.push('red ' + el.tagName);
  if (style.strokeDasharray && style.strokeDasharray !== 'none') problems.push('dashed ' + el.tagName);
}
return problems;
"""


def sketch_of(driver, selector):
    return wait(driver, lambda d: next((e for e in all_css(d, selector) if e.find_elements("css selector", "svg .sketch-section")), False),
                message=f"{selector}: the sketch is drawn")


def test_layout_thumbnails_are_sketches_without_labels(browser, api):
    family = api.family()
    layout = api.ok("POST", "layouts", layout_body(family["id"]))
    sign_in(browser, api, "#/layouts")
    for width, height in SIZES:
        browser.set_window_size(width, height)
        thumb = sketch_of(browser, f".layout-card[data-layout-id='{layout['id']}'] .layout-thumb")
        assert SKETCH_PROBLEMS and browser.execute_script(SKETCH_PROBLEMS, thumb) == []
        # A device-shaped frame around four drawn components (no box of labels).
        assert thumb.find_elements("css selector", "svg .sketch-body")
        assert len(thumb.find_elements("css selector", "svg .sketch-section")) == 4
        # An image named by what it shows; the SVG itself is hidden from screen readers.
        assert thumb.get_attribute("role") == "img"
        name = thumb.get_attribute("aria-label")
        assert "Home" in name and "Hero" in name and "Grid" in name, name
        assert css(browser, ".layout-card .layout-thumb svg").get_attribute("aria-hidden") == "true"
        # Shaped like the phone (taller than wide) and small beside the card's text.
        box = thumb.rect
        assert box["height"] > box["width"] * 1.3 and box["width"] < 130, box
        shot(browser, f"80-ugly-layouts-{width}")

    # The "From a layout" picker shows the chosen layout's sketch too.
    browser.set_window_size(1440, 900)
    go(browser, f"#/screens?layout={layout['id']}")
    picked = sketch_of(browser, ".layout-pick .layout-sketch")
    assert browser.execute_script(SKETCH_PROBLEMS, picked) == []
    shot(browser, "80-ugly-from-a-layout-1440")
    assert browser_errors(browser) == []


# Every ancestor of an element (the document's scrolling element included) that scrolls vertically.
SCROLLERS = """
const out = [];
for (let el = arguments[0].parentElement; el; el = el.parentElement) {
  const style = getComputedStyle(el);
  const root = el === document.documentElement;
  const scrolls = root ? el.scrollHeight > innerHeight : /(auto|scroll)/.test(style.overflowY) && el.scrollHeight > el.clientHeight;
  if (scrolls) out.push((el.id ? '#' + el.id : el.tagName.toLowerCase()) + '.' + String(el.className).replace(/\\s+/g, '.') + ` ${el.scrollHeight}>${root ? innerHeight : el.clientHeight}`);
}
return out;
"""


def test_publish_after_a_rollback_scrolls_in_one_place(browser, api):
    family = api.family()
    screen = api.screen(family["id"], "Home", [{"component_type": "list", "cell_styles": ["LIST_1"]}])
    api.ok("POST", "publish", {"note": "first"})
    api.ok("PATCH", f"screens/{screen['id']}", {"name": "Home, renamed"}, etag=f"\"{screen['revision']}\"")
    api.ok("POST", "publish", {"note": "second"})
    api.ok("POST", "versions/1/rollback", {})
    sign_in(browser, api, "#/publish")
    for width, height in SIZES:
        browser.set_window_size(width, height)
        wait(browser, lambda d: all_css(d, "#versions tr[data-version='3']"), message="the rollback listed")
        versions = css(browser, "#versions")
        scrollers = browser.execute_script(SCROLLERS, versions)
        assert len(scrollers) == 1, f"{width}px: {scrollers}"
        # Scrolled to the end, the page shows the versions (nothing is cut off below).
        browser.execute_script("arguments[0].scrollIntoView({block: 'end'})", versions)
        assert browser.execute_script("return document.documentElement.scrollTop") == 0
        shot(browser, f"80-ugly-publish-rollback-{width}")


FORM_WIDTH = """
const el = document.querySelector(arguments[0]);
return el && { width: el.getBoundingClientRect().width, max: getComputedStyle(el).maxWidth };
"""


def test_family_and_layout_editors_stop_at_one_width(browser, api):
    family = api.family()
    layout = api.ok("POST", "layouts", layout_body(family["id"]))
    sign_in(browser, api, f"#/families/{family['id']}")
    widths = {}
    for width, height in ((1920, 1080), (1440, 900)):
        browser.set_window_size(width, height)
        go(browser, f"#/families/{family['id']}")
        visible(browser, ".family-editor > .resource-form fieldset")
        widths[("family", width)] = browser.execute_script(FORM_WIDTH, ".family-editor > .resource-form")
        go(browser, f"#/layouts/{layout['id']}")
        visible(browser, ".layout-editor .editor-main fieldset")
        widths[("layout", width)] = browser.execute_script(FORM_WIDTH, ".layout-editor .editor-main")
        # Its Save bar stops where the form and the preview stop.
        gap = browser.execute_script("return document.querySelector('.layout-editor .toolbar').getBoundingClientRect().right"
                                     " - document.querySelector('.layout-editor .editor-grid').getBoundingClientRect().right")
        assert 0 <= gap <= 25, gap
        shot(browser, f"80-ugly-widths-layout-editor-{width}")
    for width in (1920, 1440):
        family_form, layout_form = widths[("family", width)], widths[("layout", width)]
        assert family_form["max"] == layout_form["max"] != "none", widths
        assert abs(family_form["width"] - layout_form["width"]) <= 1, widths
    # On a wide window both stop at that width (neither runs on).
    assert widths[("family", 1920)]["width"] == pytest.approx(float(widths[("family", 1920)]["max"].rstrip("px")), abs=1)


# The page's controls at the current size: pairs that overlap, controls cut off by a clipping
# ancestor or the window, selects narrower than 6rem or than their choices when these are short (under 10rem), and
# whether the page scrolls sideways. The preview's device drawing is left out (its own business).
LAYOUT_PROBLEMS = """
const rem = parseFloat(getComputedStyle(document.documentElement).fontSize);
const skip = (el) => el.closest('.preview-frame, .device, svg, .map-canvas, .visually-hidden, dialog:not([open])');
const controls = [...document.querySelectorAll('main input, main select, main textarea, main button, main a.button, main summary')]
  .filter((el) => el.type !== 'hidden' && el.getClientRects().length && !skip(el))
  .filter((el) => { const s = getComputedStyle(el); return s.visibility !== 'hidden' && s.opacity !== '0'; });
const problems = [];
const name = (el) => `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}「${(el.getAttribute('aria-label') || el.textContent || el.value || el.name || '').trim().slice(0, 30)}」`;
const rects = controls.map((el) => [el, el.getBoundingClientRect()]);
for (let i = 0; i < rects.length; i++) {
  for (let j = i + 1; j < rects.length; j++) {
    const [a, ra] = rects[i]; const [b, rb] = rects[j];
    if (a.contains(b) || b.contains(a)) continue;
    const x = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
    const y = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
    if (x > 2 && y > 2) problems.push(`overlap: ${name(a)} and ${name(b)}`);
  }
}
for (const [el, r] of rects) {
  if (r.right > document.documentElement.clientWidth + 1) problems.push(`past the window: ${name(el)}`);
  for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
    const s = getComputedStyle(p);
    if (s.overflowX === 'visible' || p.scrollWidth > p.clientWidth + 1) continue;  // a sideways scroller shows the rest
    const pr = p.getBoundingClientRect();
    if (r.right > pr.right + 1 || r.left < pr.left - 1) { problems.push(`clipped: ${name(el)} by ${p.tagName}.${p.className}`); break; }
  }
  if (el.tagName === 'SELECT') {
    // Its own width, out of the flow and free of max-width (what its longest choice needs).
    const shown = el.style.cssText;
    el.style.cssText += ';position:absolute;width:auto;max-width:none;min-width:0;flex:none';
    const natural = el.getBoundingClientRect().width;
    el.style.cssText = shown;
    // Short choices ("Aspect ratio", "Fit") show whole; long ones may be cut, but not below 6rem.
    if (r.width < Math.min(natural < 10 * rem ? natural : 6 * rem, natural) - 3) problems.push(`squashed select: ${name(el)} ${Math.round(r.width)}px (needs ${Math.round(natural)})`);
  }
}
for (const pane of document.querySelectorAll('main .pane, main .pane-body')) {
  if (pane.scrollWidth > pane.clientWidth + 1 && getComputedStyle(pane).overflowX !== 'visible') problems.push(`scrolls sideways: ${pane.className} ${pane.scrollWidth}>${pane.clientWidth}`);
}
if (document.documentElement.scrollWidth > document.documentElement.clientWidth + 1) problems.push('the window scrolls sideways');
return problems;
"""

PAGES = [
    ("families", "#/families", "main table, main .empty"),
    ("family-editor", "#/families/{family}", ".family-editor fieldset"),
    ("new-family", "#/families/new", ".family-editor fieldset"),
    ("layouts", "#/layouts", ".layout-card .layout-sketch svg .sketch-section"),
    ("layout-editor", "#/layouts/{layout}", ".layout-editor .component-card"),
    ("publish", "#/publish", "#versions tr[data-version]"),
    ("releases", "#/releases", "main h1"),
    ("webhooks", "#/webhooks", "main .webhook"),
    ("members", "#/members", "main h1"),
    ("tokens", "#/tokens", "main h1"),
    ("settings", "#/settings", "main h1"),
    ("activity", "#/activity", "main table"),
    ("map", "#/map", "main .map-canvas"),
    ("plugins", "#/plugins", "main table"),
    ("plugin", "#/plugins/promo", "main h1"),
]


def test_pages_at_1024_have_no_overlapping_clipped_or_squashed_controls(browser, api):
    family = api.family()
    layout = api.ok("POST", "layouts", layout_body(family["id"]))
    screen = api.screen(family["id"], "Home", [{"component_type": "list", "cell_styles": ["LIST_1"]}])
    api.ok("POST", "publish", {"note": "first"})
    api.ok("PATCH", f"screens/{screen['id']}", {"name": "Home, renamed"}, etag=f"\"{screen['revision']}\"")
    api.ok("POST", "publish", {"note": "second"})
    api.ok("POST", "versions/1/rollback", {})
    api.ok("POST", "plugins", {
        "identifier": "promo", "name": "Promo", "type": "general", "screen": True, "manifest_version": "1.0.0",
        "description": "A promotion screen", "author_name": "Ann", "author_email": "ann@example.com", "min_zapp_sdk": "1.0.0",
        "general": {"fields": [{"key": "title", "type": "text_input", "label": "Title", "initial_value": "Welcome"}]},
    })
    api.ok("POST", "invitations", {"email": "someone.with.a.rather.long.address@example-company.com", "role": "editor"})
    api.ok("POST", "tokens", {"name": "Release pipeline of the phone and TV apps", "role": "publisher"})
    api.ok("POST", "webhooks", {"url": "https://hooks.example.com/rivers/a/rather/long/path", "events": ["channel.promoted"]})
    api.ok("POST", "preview-links", {"name": "QA phones of the Berlin office"})
    sign_in(browser, api, "#/families")
    found = {}
    for width, height in SIZES:
        browser.set_window_size(width, height)
        for name, path, ready in PAGES:
            go(browser, path.format(family=family["id"], layout=layout["id"]))
            visible(browser, ready)
            wait(browser, lambda d: not all_css(d, "main .loading, main [aria-busy='true']"), message=f"{name} loaded")
            shot(browser, f"80-ugly-{name}-{width}")
            problems = browser.execute_script(LAYOUT_PROBLEMS)
            if problems:
                found[f"{name} at {width}"] = problems
    assert found == {}
    assert browser_errors(browser) == []

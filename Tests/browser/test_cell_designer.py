"""The cell-style designer (issue 16): the example cell of docs/cell-content.md built with controls,
no JSON typed; drawn live by the server (POST …/cell-preview) at the reference size and on a device;
saved with the family; a length switched to fixed; the server's refusals at the designer's fields."""
import json
import re

from selenium.webdriver.support.ui import Select

from conftest import SCREENSHOTS, all_css, browser_errors, click, css, set_value, shot, sign_in, unlabelled_controls, visible, wait
from test_layout import check_fits

# The example of docs/cell-content.md, as the designer builds it.
EXPECTED = {
    "kind": "stack", "axis": "vertical", "padding": 8, "spacing": 4, "alignment": "fill",
    "children": [
        {"kind": "image", "aspect_ratio": "16:9", "placeholder": "poster"},
        {"kind": "text", "role": "title", "line_height": 17, "max_lines": 1},
    ],
}

# What a member left out means (docs/cell-content.md, "Nodes"): the server may write it either way.
DEFAULTS = {
    "stack": {"spacing": 0, "alignment": "fill", "distribution": "fill", "children": []},
    "overlay": {"children": []},
    "image": {"placeholder": "image"},
    "text": {"role": "body", "font_size": 14, "max_lines": 1},
    "spacer": {},
}


def normalized(node):
    """A node with its defaults filled in, a 16:9 ratio as "16:9", and padding on every side."""
    out = {**DEFAULTS.get(node.get("kind"), {}), **node}
    if "children" in out:
        out["children"] = [normalized(c) for c in out["children"]]
    ratio = out.get("aspect_ratio")
    if isinstance(ratio, (int, float)) and abs(ratio - 16 / 9) < 1e-3:
        out["aspect_ratio"] = "16:9"
    padding = out.get("padding")
    if padding is not None and not (isinstance(padding, dict) and "fixed" not in padding):
        out["padding"] = {side: padding for side in ("top", "left", "bottom", "right")}
    return out


def designer(browser, index):
    return css(browser, f"[data-testid='content-{index}']")


def field(browser, pointer):
    return visible(browser, f"[data-pointer='{pointer}']")


def pick_node(browser, index, path):
    click(browser, css(browser, f"[data-testid='content-{index}'] [data-node-path='{path}']"))
    wait(browser, lambda d: css(d, f"[data-testid='content-{index}'] [data-node-path='{path}']").get_attribute("aria-pressed") == "true")


def drawn_cell(browser, index):
    """The cell's size line once a drawing is shown: (width, height, text)."""
    def ready(d):
        svg = all_css(d, f"[data-testid='cell-svg-{index}'] svg")
        text = css(d, f"[data-testid='cell-size-{index}']").text
        match = re.search(r"Cell ([\d.]+) × ([\d.]+)", text)
        return (float(match.group(1)), float(match.group(2)), text) if svg and match else False
    return wait(browser, ready, message="the cell drawn")


def test_the_example_cell_is_built_without_typing_json(browser, api):
    family = api.family()  # 320 × 568, insets 10, spacing 10; GRID_1 (cell style 2) has 2 columns
    content = "/cell_styles/1/content"
    browser.set_window_size(1440, 1000)
    sign_in(browser, api, f"#/families/{family['id']}")
    visible(browser, "[data-testid='size-1']")

    # Height: fit (from content). The designer opens, the size says "fit" until there is content.
    Select(css(browser, "select[aria-label='Height of cell style 2 by']")).select_by_value("fit")
    box = wait(browser, lambda d: designer(d, 1) if designer(d, 1).get_attribute("open") is not None else False, message="designer open")
    assert "fit" in css(browser, "[data-testid='size-1']").text

    # A vertical stack: padding 8, spacing 4, alignment fill.
    click(browser, box.find_element("css selector", "button[data-focus-key='cd-1-start-vstack']"))
    set_value(field(browser, f"{content}/padding"), "8")
    set_value(field(browser, f"{content}/spacing"), "4")
    Select(field(browser, f"{content}/alignment")).select_by_value("fill")
    assert Select(field(browser, f"{content}/axis")).first_selected_option.get_attribute("value") == "vertical"

    # An image, 16:9, a poster.
    click(browser, designer(browser, 1).find_element("css selector", "button[data-add-kind='image']"))
    set_value(field(browser, f"{content}/children/0/aspect_ratio"), "16:9")
    Select(field(browser, f"{content}/children/0/placeholder")).select_by_value("poster")

    # A title: one line of 17 points, added to the stack after the image.
    pick_node(browser, 1, "")
    click(browser, designer(browser, 1).find_element("css selector", "button[data-add-kind='text']"))
    Select(field(browser, f"{content}/children/1/role")).select_by_value("title")
    set_value(field(browser, f"{content}/children/1/line_height"), "17")
    set_value(field(browser, f"{content}/children/1/max_lines"), "1")

    nodes = [e.text for e in all_css(browser, "[data-testid='content-1'] .cd-pick")]
    assert len(nodes) == 3 and nodes[0].startswith("Stack") and nodes[1].startswith("Image") and nodes[2].startswith("Text"), nodes

    # Drawn by the server at the reference size: 145 wide, 109.5625 tall before rounding to the
    # pixel grid (the image 129 × 72.5625 at (8, 8), the title 129 × 17 under it).
    wait(browser, lambda d: abs(drawn_cell(d, 1)[1] - 109.5625) <= 0.5, message="the fit height")
    width, height, text = drawn_cell(browser, 1)
    assert width == 145, text
    assert "reference size" in text
    assert not css(browser, "[data-testid='cell-errors-1']").text.strip()
    # The form's size takes the fit height from the drawing.
    wait(browser, lambda d: css(d, "[data-testid='size-1']").text.startswith("145 × 109.5"), message="fit size in the form")

    # The JSON view shows the same tree (read only here: nothing is typed).
    shown = json.loads(browser.execute_script("return document.querySelector(\"[data-testid='content-1'] .cd-json-text\").value"))
    assert normalized(shown) == normalized(EXPECTED)
    shot(browser, "31-cell-designer")
    assert unlabelled_controls(browser) == []

    # Saved with the family, through its save flow.
    click(browser, css(browser, "button[data-focus-key='save']"))
    wait(browser, lambda d: css(d, ".save-status").text.startswith("Saved · revision 2"), message="saved")
    saved = api.ok("GET", f"families/{family['id']}")["cell_styles"][1]
    assert saved["height"] == "fit"
    assert normalized(saved["content"]) == normalized(EXPECTED), saved["content"]

    # The padding, fixed: {"fixed": 8}.
    pick_node(browser, 1, "")
    toggle = css(browser, f"input[data-fixed-for='{content}/padding']")
    assert not toggle.is_selected()
    click(browser, toggle)
    assert "fixed" in css(browser, "[data-testid='content-1'] .cd-json-text").get_attribute("value")
    click(browser, css(browser, "button[data-focus-key='save']"))
    wait(browser, lambda d: css(d, ".save-status").text.startswith("Saved · revision 3"), message="saved again")
    saved = api.ok("GET", f"families/{family['id']}")["cell_styles"][1]
    assert saved["content"]["padding"] == {"fixed": 8}, saved["content"]
    assert normalized({**saved["content"], "padding": 8}) == normalized(EXPECTED)
    # Shown as fixed when drawn again.
    wait(browser, lambda d: css(d, f"input[data-fixed-for='{content}/padding']").is_selected(), message="fixed after the save")
    drawn_cell(browser, 1)
    row = designer(browser, 1).find_element("xpath", "./ancestor::div[contains(@class,'cs-row')][1]")
    browser.execute_script("document.activeElement.blur(); arguments[0].scrollIntoView({block: 'start'}); document.querySelector('.pane').scrollBy(0, -80)", row)
    row.screenshot(str(SCREENSHOTS / "31-cell-designer-row.png"))
    assert not browser_errors(browser)


def test_a_device_and_the_servers_refusals(browser, api):
    family = save_family_with_content(api, api.family())
    content = "/cell_styles/1/content"
    browser.set_window_size(1440, 1000)
    sign_in(browser, api, f"#/families/{family['id']}")
    click(browser, visible(browser, "[data-testid='content-1'] > summary"))
    width, height, _ = drawn_cell(browser, 1)
    assert width == 145 and abs(height - 109.5625) <= 0.5

    # On a 375 × 667 phone everything scales by m = 375 ÷ 320.
    Select(visible(browser, "[data-testid='content-1'] select[data-focus-key='cd-1-device']")).select_by_value("phone-375x667")
    wait(browser, lambda d: "m = 1.17" in drawn_cell(d, 1)[2], message="drawn on the phone")
    width, height, text = drawn_cell(browser, 1)
    assert abs(width - 145 * 375 / 320) <= 0.5 and abs(height - 109.5625 * 375 / 320) <= 1, text

    # A negative frame width is refused by the server, at the image's field.
    pick_node(browser, 1, "0")
    set_value(field(browser, f"{content}/children/0/frame/width"), "-5")
    bad = wait(browser, lambda d: (lambda e: e if e.get_attribute("aria-invalid") == "true" else False)(
        css(d, f"input[data-pointer='{content}/children/0/frame/width']")), message="the refusal at its field")
    assert bad.find_element("xpath", "./ancestor::div[contains(@class,'field')][1]").find_elements("css selector", ".field-error")
    shot(browser, "32-cell-designer-refused")
    # Fixed, the drawing comes back and the message goes.
    set_value(bad, "100")
    wait(browser, lambda d: css(d, f"input[data-pointer='{content}/children/0/frame/width']").get_attribute("aria-invalid") != "true")
    wait(browser, lambda d: not css(d, "[data-testid='cell-errors-1']").text.strip(), message="no message left")

    # Moving and removing nodes: the title goes first, then the image is removed.
    pick_node(browser, 1, "1")
    click(browser, css(browser, "[data-testid='content-1'] button[data-focus-key='cd-1-up']"))
    nodes = [e.text for e in all_css(browser, "[data-testid='content-1'] .cd-pick")]
    assert nodes[1].startswith("Text") and nodes[2].startswith("Image"), nodes
    pick_node(browser, 1, "1")
    click(browser, css(browser, "[data-testid='content-1'] button[data-focus-key='cd-1-remove']"))
    nodes = [e.text for e in all_css(browser, "[data-testid='content-1'] .cd-pick")]
    assert len(nodes) == 2 and nodes[1].startswith("Text"), nodes
    # Undone (the designer's edits are steps of the family's undo history).
    click(browser, css(browser, "#undo"))
    wait(browser, lambda d: len(all_css(d, "[data-testid='content-1'] .cd-pick")) == 3, message="undone")
    assert not browser_errors(browser)

    # The JSON view takes a tree typed in (applied on Apply, or when the box is left).
    click(browser, css(browser, "[data-testid='content-1'] .cd-json > summary"))
    text = css(browser, "[data-testid='content-1'] .cd-json-text")
    tree = {"kind": "overlay", "children": [{"kind": "image", "aspect_ratio": "1:1", "placeholder": "avatar"}, {"kind": "text", "role": "badge", "align": "top_trailing"}]}
    browser.execute_script("arguments[0].value = arguments[1]", text, json.dumps(tree))
    click(browser, css(browser, "[data-testid='content-1'] button[data-focus-key='cd-1-json-apply']"))
    wait(browser, lambda d: [e.text.split(" ·")[0] for e in all_css(d, "[data-testid='content-1'] .cd-pick")] == ["Overlay", "Image", "Text"], message="the tree from JSON")
    wait(browser, lambda d: "3 nodes laid out" in drawn_cell(d, 1)[2], message="drawn from the JSON")
    browser.execute_script("arguments[0].value = '{not json'", css(browser, "[data-testid='content-1'] .cd-json-text"))
    click(browser, css(browser, "[data-testid='content-1'] button[data-focus-key='cd-1-json-apply']"))
    assert "not valid JSON" in css(browser, "[data-testid='content-1'] .cd-json .hint").text
    assert len(all_css(browser, "[data-testid='content-1'] .cd-pick")) == 3

    # Nothing sticks out with the designer open, from 1024 px up.
    for width in (1440, 1024):
        browser.set_window_size(width, 900)
        wait(browser, lambda d: d.execute_script("return window.innerWidth") == width, message=f"window {width} px wide")
        drawn_cell(browser, 1)
        check_fits(browser, f"the designer at {width} px")
    shot(browser, "33-cell-designer-1024")


def save_family_with_content(api, family):
    body = {k: v for k, v in family.items() if k not in ("revision", "created_at", "updated_at")}
    body["cell_styles"] = [{k: v for k, v in s.items() if k != "computed"} for s in body["cell_styles"]]
    body["cell_styles"][1] = {"id": "GRID_1", "columns": 2, "height": "fit", "content": EXPECTED}
    return api.ok("PUT", f"families/{family['id']}", body, etag=f"\"{family['revision']}\"")


def test_the_screen_preview_draws_what_is_inside_cells(browser, api):
    family = save_family_with_content(api, api.family())
    screen = api.screen(family["id"], "Posters", [
        {"component_type": "grid", "cell_styles": ["GRID_1"], "rules": {"item_limit": 4}, "data": {"source": "1", "type": "APPLICASTER_COLLECTION"}},
    ])
    browser.set_window_size(1440, 900)
    sign_in(browser, api, f"#/screens/{screen['id']}")
    # Every cell: its poster and its title (a sample title, test_preview_look.py), where the server laid them out.
    # Counted in one script run: the preview may redraw in between, which would leave elements found
    # one by one stale.
    counts = """
        const cells = [...document.querySelectorAll('#preview-frame .device:first-child g.cell')];
        return cells.map((c) => [c.querySelectorAll('.content-image.poster').length,
                                 [...c.querySelectorAll(".content-text[data-role='title'] text")].filter((t) => t.textContent.trim()).length]);
    """
    drawn = wait(browser, lambda d: (lambda r: r if len(r) == 4 else False)(d.execute_script(counts)), message="four cells drawn")
    assert drawn == [[1, 1]] * 4
    shot(browser, "34-screen-preview-cell-content")
    assert not browser_errors(browser)

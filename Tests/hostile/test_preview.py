"""The preview and the family rules under attack: sample numbers that do not fit an Int, item
counts that would lay out millions of cells, and cell style lists that make the checks quadratic
(every unknown style naming every known one)."""
import re

import pytest

from conftest import call, expect_problem, family_body, uid


def preview_screen(family, components):
    return {"family": family, "ui_components": components}


def lists(n, **component):
    return [{"component_type": "list", "cell_styles": ["LIST_1"], **component} for _ in range(n)]


def test_a_normal_preview_answers_200(family):
    """Control: a small preview with sample counts is drawn (200 JSON), so the refusals below are
    about their numbers, not about a broken preview."""
    a = call("POST", "preview", {"screen": preview_screen(family, lists(2)), "sample": {"counts": {"0": 3, "1": 4}}})
    assert a.status == 200, f"the preview failed: {a}"
    assert (a.header("content-type") or "").startswith("application/json")


# MARK: 2. Sample numbers


@pytest.mark.parametrize("sample, pointer", [
    ({"children": [1e19]}, "/sample/children/0"),
    ({"children": [-1]}, "/sample/children/0"),
    ({"children": [1.5]}, "/sample/children/0"),
    ({"children": [3, 1e300]}, "/sample/children/1"),
    ({"counts": {"0": 1e19}}, "/sample/counts/0"),
], ids=["children-1e19", "children-negative", "children-fraction", "children-1e300", "counts-1e19"])
def test_sample_numbers_out_of_range_are_422(family, sample, pointer):
    """Sample item numbers beyond an Int (1e19), negative or fractional are a 422 at their
    pointer — never a trap converting a double to an Int."""
    a = call("POST", "preview", {"screen": preview_screen(family, []), "sample": sample})
    expect_problem(a, 422, field=pointer)


# MARK: 3. Preview memory


@pytest.mark.parametrize("count", [2, 4])
def test_huge_item_limits_in_a_preview_are_422(family, count):
    """Lists with `item_limit: 1000000` would lay out millions of cells: refused with a 422 that
    names item_limit, small and fast (and the server stays under 300 MB)."""
    a = call("POST", "preview", {"screen": preview_screen(family, lists(count, rules={"item_limit": 1_000_000}))})
    body = expect_problem(a, 422)
    assert "item_limit" in (body.get("field") or ""), f"the answer does not point at item_limit: {body}"
    assert body["field"].startswith("/screen/ui_components/"), f"field {body['field']!r} is not a component's"


def test_sample_counts_over_the_total_budget_are_422(family):
    """Sample counts adding up to more than the preview's budget (10,000 items in all) are a 422
    whose body names the limit."""
    a = call("POST", "preview", {"screen": preview_screen(family, lists(2)), "sample": {"counts": {"0": 6000, "1": 6000}}})
    body = expect_problem(a, 422)
    text = " ".join([str(body.get("detail", ""))] + [str(e.get("message", "")) for e in body.get("errors", [])])
    assert "10000" in text or "10,000" in text, f"the answer does not name the 10,000 item limit: {text[:500]}"


# MARK: 4. Quadratic amplification through cell styles


def styles(n, prefix="STYLE"):
    return [{"id": f"{prefix}_{i:03d}", "columns": 1, "height": 10} for i in range(n)]


def test_a_family_with_1000_cell_styles_is_422():
    """At most 200 cell styles a family: 1,000 are refused with a 422 at /cell_styles, fast."""
    family_id = f"FAMILY_S{uid()}"
    body = expect_problem(call("POST", "families", family_body(family_id, styles=styles(1000))), 422)
    assert (body.get("field") or "").startswith("/cell_styles"), f"field {body.get('field')!r} is not /cell_styles"
    assert call("GET", f"families/{family_id}").status == 404, "the family was stored anyway"


@pytest.fixture(scope="module")
def big_family():
    """A family of 200 cell styles (the most allowed): it must be accepted. Its id."""
    family_id = f"FAMILY_B{uid()}"
    created = call("POST", "families", family_body(family_id, styles=styles(200)))
    assert created.status == 201, f"a family of 200 cell styles must be accepted: {created}"
    return family_id


def assert_no_style_lists(body):
    """No message may list the family's cell styles (200 ids in each of 1,000 messages is how a
    small body became megabytes)."""
    texts = [str(e.get("message", "")) for e in body.get("errors", [])] + [str(body.get("detail", ""))]
    for text in texts:
        known = re.findall(r"STYLE_\d{3}", text)
        assert len(known) <= 1, f"a message lists the family's styles: {text[:300]}"


def test_one_component_naming_1000_unknown_cell_styles(big_family):
    """A preview whose single component names 1,000 unknown cell styles (against a family of 200):
    refused before any is looked up, as over the 20-styles-a-component limit, at that field, in one
    small problem that lists none of the family's styles."""
    component = {"component_type": "list", "cell_styles": [f"NOPE_{i}" for i in range(1000)]}
    body = expect_problem(call("POST", "preview", {"screen": preview_screen(big_family, [component])}), 422,
                          field="/screen/ui_components/0/cell_styles")
    assert "20" in body["errors"][0]["message"], body
    assert_no_style_lists(body)


def test_1000_unknown_cell_styles_over_50_components(big_family):
    """The same 1,000 unknown references spread over 50 components of 20 styles each (within every
    per-component limit): a 422 within a second, at most 100 errors, `error_count` ≥ 1,000, and no
    message listing the family's styles."""
    components = [{"component_type": "list", "cell_styles": [f"NOPE_{c}_{i}" for i in range(20)]} for c in range(50)]
    body = expect_problem(call("POST", "preview", {"screen": preview_screen(big_family, components)}), 422)
    assert isinstance(body.get("error_count"), int) and body["error_count"] >= 1000, \
        f"error_count is {body.get('error_count')!r}, expected the 1,000 problems found: {body.get('detail')}"
    assert_no_style_lists(body)

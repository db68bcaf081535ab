"""Hostile request bodies: media types without a media type, invalid UTF-8, deep nesting, NUL
characters, numbers at the edges of a double, and floods of array elements. Each answer must
follow the error contract of conftest.expect_problem, and the server must survive."""
import json

import pytest

from conftest import API, call, expect_problem, family_body, head_lines, raw_http, uid


# MARK: 1. Content-Type with no media type


@pytest.mark.parametrize("content_type", [";", ";;", " ; charset=utf-8", ";charset=utf-8", "text/plain"])
def test_content_type_without_a_json_media_type_is_415(content_type):
    """A Content-Type whose media type is empty (`;`, `;;`, ` ; charset=utf-8`) or not JSON is
    answered 415 problem+json — not a crash on an empty list of parameters."""
    body = b"{}"
    request = head_lines("POST", f"{API}/families", [f"Content-Type: {content_type}", f"Content-Length: {len(body)}"]) + body
    a = raw_http(request, method="POST", path=f"{API}/families (Content-Type: {content_type!r})")
    expect_problem(a, 415)


# MARK: 13. Invalid UTF-8


def test_invalid_utf8_in_a_body_is_400_and_nothing_is_stored():
    """Bytes that are not UTF-8 inside a JSON string are malformed JSON (400), not silently turned
    into U+FFFD and stored."""
    family_id = f"FAMILY_U{uid()}"
    text = json.dumps(family_body(family_id, name="PLACEHOLDER")).encode()
    raw = text.replace(b"PLACEHOLDER", b"\xff\xfe")
    expect_problem(call("POST", "families", raw=raw), 400)
    assert call("GET", f"families/{family_id}").status == 404, "the family was stored anyway"


def test_invalid_utf8_in_an_object_key_is_400():
    """A key made of bytes that are not UTF-8 is malformed JSON too (400)."""
    raw = b'{"id":"FAMILY_K' + uid().encode() + b'","\xc3\x28":1}'
    expect_problem(call("POST", "families", raw=raw), 400)


# MARK: 14. Deep nesting


@pytest.mark.parametrize("shape", ["arrays", "objects"])
def test_100000_levels_of_nesting_are_400_at_once(shape):
    """`[[[[…]]]]` and `{"a":{"a":…}}` 100,000 levels deep: a 400 within a second, no stack
    overflow (the server must still be alive afterwards)."""
    depth = 100_000
    raw = ("[" * depth + "]" * depth) if shape == "arrays" else ('{"a":' * depth + "1" + "}" * depth)
    expect_problem(call("POST", "families", raw=raw), 400)


# MARK: 5. NUL characters


def test_nul_in_a_family_name_is_422():
    """A NUL (\\u0000) in a family's name is refused at /name (PostgreSQL could not store it: never a 500)."""
    a = call("POST", "families", family_body(f"FAMILY_N{uid()}", name="a\u0000b"))
    expect_problem(a, 422, field="/name")


def test_nul_in_a_cell_style_id_is_422():
    """A NUL in a cell style's id is refused at /cell_styles/0/id."""
    body = family_body(f"FAMILY_N{uid()}", styles=[{"id": "LIST\u00001", "columns": 1, "height": 80}])
    expect_problem(call("POST", "families", body), 422, field="/cell_styles/0/id")


def test_nul_in_a_screen_name_is_422(family):
    """A NUL in a screen's name is refused at /name."""
    a = call("POST", "screens", {"name": "Home\u0000page", "family": family, "ui_components": []})
    expect_problem(a, 422, field="/name")


def test_nul_in_a_publish_note_is_422(family):
    """A NUL in a publish note is refused at /note (whatever else the app lacks)."""
    expect_problem(call("POST", "publish", {"note": "a\u0000b"}), 422, field="/note")


def test_nul_in_a_plugin_manifest_field_is_422(manifest):
    """A NUL in a plugin manifest's name is refused at /name."""
    body = dict(manifest, identifier=f"nul-plugin-{uid().lower()}", name="Parent\u0000Lock")
    expect_problem(call("POST", "plugins", body), 422, field="/name")


def test_nul_in_a_free_form_object_key_is_422(family):
    """A NUL in a key of a free-form object (a screen's styles) is refused, pointing at that key."""
    body = {"name": "Nul key", "family": family, "ui_components": [], "styles": {"a\u0000b": 1}}
    expect_problem(call("POST", "screens", body), 422, field="/styles/a\u0000b")


def test_nul_in_an_unknown_top_level_key_is_422():
    """A NUL in an unknown key of a family is refused, pointing at that key."""
    body = family_body(f"FAMILY_N{uid()}")
    body["x\u0000y"] = 1
    expect_problem(call("POST", "families", body), 422, field="/x\u0000y")


# MARK: 6. Numbers at the edges


def test_a_reference_height_of_1e308_is_422():
    """A reference height of 1e308 is finite but absurd (sizes computed from it overflow): refused
    at /reference_size/height."""
    body = family_body(f"FAMILY_X{uid()}", reference_size={"width": 320, "height": 1e308})
    expect_problem(call("POST", "families", body), 422, field="/reference_size/height")


def test_an_aspect_ratio_of_1e_310_is_422():
    """An aspect ratio of 1e-310 (subnormal) makes the height infinite: refused at its pointer."""
    body = family_body(f"FAMILY_X{uid()}", styles=[{"id": "LIST_1", "columns": 1, "aspect_ratio": 1e-310}])
    expect_problem(call("POST", "families", body), 422, field="/cell_styles/0/aspect_ratio")


def test_1e400_in_a_typed_field_is_422():
    """`1e400` (written by hand: it overflows a double) in a number field is refused at its pointer."""
    text = json.dumps(family_body(f"FAMILY_X{uid()}", interitem_spacing="HUGE")).replace('"HUGE"', "1e400")
    expect_problem(call("POST", "families", raw=text), 422, field="/interitem_spacing")


def test_1e400_in_a_free_form_object_is_422(family):
    """`1e400` in a screen's free-form styles is refused at /styles/big — never stored as infinity
    or silently as null."""
    text = json.dumps({"name": "Huge", "family": family, "ui_components": [], "styles": {"big": "HUGE"}})
    text = text.replace('"HUGE"', "1e400")
    expect_problem(call("POST", "screens", raw=text), 422, field="/styles/big")


@pytest.mark.parametrize("literal", ["-0", "1e-400", "-1e-400", "0e999999"])
def test_negative_zero_and_underflow_do_not_break_anything(literal):
    """`-0` and numbers that underflow to zero are either accepted as 0 (201, read back as a finite
    number) or refused with a 422 — never a 5xx, never a dead server."""
    family_id = f"FAMILY_Z{uid()}"
    text = json.dumps(family_body(family_id, line_spacing="TINY")).replace('"TINY"', literal)
    a = call("POST", "families", raw=text)
    assert a.status in (201, 422), f"unexpected answer: {a}"
    if a.status == 422:
        expect_problem(a, 422)
    else:
        stored = call("GET", f"families/{family_id}")
        assert stored.status == 200, f"created but not readable: {stored}"
        value = stored.json["line_spacing"]
        assert isinstance(value, (int, float)) and value == 0, f"line_spacing read back as {value!r}"


# MARK: 16. Floods of elements where objects are expected


def test_10000_strings_as_cell_styles_give_at_most_100_errors():
    """10,000 strings where cell style objects are expected: one 422 with at most 100 errors,
    small and fast."""
    body = family_body(f"FAMILY_F{uid()}", styles=["x"] * 10_000)
    expect_problem(call("POST", "families", body), 422)


def test_10000_strings_as_components_give_at_most_100_errors(family):
    """10,000 strings where component objects are expected (a screen's ui_components): at most 100 errors."""
    body = {"name": "Flood", "family": family, "ui_components": ["x"] * 10_000}
    expect_problem(call("POST", "screens", body), 422)


def test_10000_strings_as_a_preview_screen_give_at_most_100_errors(family):
    """The same flood inside a preview body: at most 100 errors."""
    body = {"screen": {"family": family, "ui_components": ["x"] * 10_000}}
    expect_problem(call("POST", "preview", body), 422)


def test_10000_strings_as_nav_items_give_at_most_100_errors(family):
    """10,000 strings where nav item objects are expected: at most 100 errors."""
    body = {"name": "Flood nav", "family": family, "ui_components": [], "navigations": [{
        "id": "nav", "category": "nav_bar", "navigation_type": "navigation_bar", "nav_items": ["x"] * 10_000}]}
    expect_problem(call("POST", "screens", body), 422)

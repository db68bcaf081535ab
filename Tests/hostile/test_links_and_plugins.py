"""Values that end up in URLs and links: plugin identifiers (they are path segments of the API)
and the web links of nav items (apps open them: a `javascript:` link is script injection)."""
import pytest

from conftest import API, call, expect_problem, head_lines, raw_http, uid


# MARK: 11. Plugin identifiers


@pytest.mark.parametrize("identifier", ["a/b", "q?x=1#f", "../../x", "a b", "", "a%2Fb", "a\\b"])
def test_plugin_identifiers_that_break_a_url_are_422(manifest, identifier):
    """An identifier is a path segment of /plugins/{identifier}: `/`, `?`, `#`, `..` segments,
    spaces, `%`, backslashes and the empty string are refused at /identifier."""
    expect_problem(call("POST", "plugins", dict(manifest, identifier=identifier)), 422, field="/identifier")


def test_a_dotted_plugin_identifier_registers_and_is_found_plain_and_percent_encoded(manifest):
    """A reverse-DNS identifier (`com.example.login…`) registers, and GET /plugins/{identifier}
    finds it both as written and with its dots percent-encoded (%2E)."""
    identifier = f"com.example.login{uid().lower()}"
    created = call("POST", "plugins", dict(manifest, identifier=identifier))
    assert created.status == 201, f"the plugin was not registered: {created}"
    plain = call("GET", f"plugins/{identifier}")
    assert plain.status == 200 and plain.json.get("identifier") == identifier, f"not found as written: {plain}"
    encoded_path = f"{API}/plugins/{identifier.replace('.', '%2E')}"
    # Sent byte for byte: HTTP libraries would decode %2E before sending.
    encoded = raw_http(head_lines("GET", encoded_path), method="GET", path=encoded_path)
    assert encoded.status == 200, f"not found percent-encoded: {encoded}"
    assert (encoded.json or {}).get("identifier") == identifier, f"another plugin came back: {encoded}"


# MARK: 12. Nav item web links


def nav_screen(family, source, nested=False):
    item = {"id": "item", "title": "Open", "type": "button", "data": {"type": "WEB_URL", "source": source}}
    if nested:
        item = {"id": "menu", "title": "More", "type": "nested_menu", "nav_items": [item]}
    return {"name": f"Links {uid()}", "family": family, "ui_components": [], "navigations": [{
        "id": "nav", "category": "nav_bar", "navigation_type": "navigation_bar", "nav_items": [item]}]}


SOURCE = "/navigations/0/nav_items/0/data/source"
BAD_LINKS = [
    "javascript:alert(1)", "JavaScript:alert(1)", " javascript:alert(1)", "JAVASCRIPT:alert(1)",
    "java\tscript:alert(1)", "data:text/html,<script>alert(1)</script>", "vbscript:msgbox(1)", "file:///etc/passwd",
]


@pytest.mark.parametrize("source", BAD_LINKS)
def test_script_and_local_links_in_nav_items_are_422(family, source):
    """Web links an app would run as script or open from its own disk (`javascript:` in any case
    or with leading space or an embedded tab, `data:`, `vbscript:`, `file:`) are refused at the
    link's source."""
    expect_problem(call("POST", "screens", nav_screen(family, source)), 422, field=SOURCE)


def test_a_javascript_link_in_a_nested_nav_item_is_422(family):
    """The rule holds at any depth of nav items."""
    a = call("POST", "screens", nav_screen(family, "javascript:alert(1)", nested=True))
    expect_problem(a, 422, field="/navigations/0/nav_items/0/nav_items/0/data/source")


def test_a_javascript_link_cannot_be_patched_in(family):
    """A screen saved with a good link cannot be changed to a `javascript:` one with PATCH."""
    created = call("POST", "screens", nav_screen(family, "https://example.com"))
    assert created.status == 201, f"set-up failed: {created}"
    screen = created.json
    navigations = screen["navigations"]
    navigations[0]["nav_items"][0]["data"]["source"] = "javascript:alert(1)"
    a = call("PATCH", f"screens/{screen['id']}", {"navigations": navigations})
    expect_problem(a, 422, field=SOURCE)


@pytest.mark.parametrize("source", ["https://example.com", "http://example.com/a?b=c#d", "myapp://show/1"])
def test_web_and_deep_links_are_accepted(family, source):
    """Ordinary web addresses and an app's deep links stay accepted."""
    a = call("POST", "screens", nav_screen(family, source))
    assert a.status == 201, f"a good link was refused: {a}"
    assert a.json["navigations"][0]["nav_items"][0]["data"]["source"] == source

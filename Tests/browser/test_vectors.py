"""The editor's own copies of server rules, checked against the cases the server is checked with.

Tests/Fixtures/vectors/*.json are shared with Tests/RiversCoreTests/SharedVectorTests.swift: the
editor's modules are loaded in Chromium and run on every vector, and each vector is also sent to
the running server, so the files, the editor and the server cannot drift apart unnoticed.
"""
import json
import pathlib
import uuid

from conftest import BASE_URL, wait

VECTORS = pathlib.Path(__file__).resolve().parents[1] / "Fixtures" / "vectors"
TOLERANCE = 1e-9


def load(name):
    return json.loads((VECTORS / name).read_text())["vectors"]


def open_editor(browser):
    """The editor's page (signed out is enough: its modules are what is loaded)."""
    browser.get(f"{BASE_URL}/")
    wait(browser, lambda d: d.execute_script("return document.readyState") == "complete")
    browser.set_script_timeout(30)


def run_module(browser, module, body, argument):
    """Imports /js/<module> in the page and runs `body` (the body of a function of (m, argument) that
    may return a promise), JSON in and out."""
    # The body goes into the script itself: the editor's CSP forbids building functions from text.
    script = """
const [path, argumentText, done] = arguments;
const argument = JSON.parse(argumentText);
import(path)
  .then(async (m) => { %s })
  .then((result) => done({ok: JSON.stringify(result)}))
  .catch((error) => done({error: String(error && error.stack || error)}));
""" % body
    answer = browser.execute_async_script(script, f"/js/{module}", json.dumps(argument))
    assert "error" not in answer, answer.get("error")
    return json.loads(answer["ok"])


def family_body(vector, family_id):
    return {"id": family_id, "name": "Vectors", **vector["family"], "cell_styles": [{"id": "STYLE_1", **vector["cell_style"]}]}


def test_cell_sizes_follow_the_shared_vectors(browser, api):
    vectors = load("cell-sizes.json")
    assert len(vectors) >= 30
    open_editor(browser)
    results = run_module(browser, "family-math.js", """
return argument.map((v) => m.cellSize(v.family, {id: 'STYLE_1', ...v.cell_style}, '/cell_styles/0'));
""", vectors)

    failures = []
    for vector, result in zip(vectors, results):
        name = vector["name"]
        # The editor.
        if "size" in vector:
            if result.get("error"):
                failures.append(f"editor, {name}: {result['error']}")
            elif result.get("fit"):
                # A fit height is the content's: the editor leaves it to the server (the cell preview).
                if abs(result["width"] - vector["size"]["width"]) > TOLERANCE:
                    failures.append(f"editor, {name}: {result} instead of {vector['size']}")
            elif abs(result["width"] - vector["size"]["width"]) > TOLERANCE or abs(result["height"] - vector["size"]["height"]) > TOLERANCE:
                failures.append(f"editor, {name}: {result} instead of {vector['size']}")
        else:
            found = sorted({p["pointer"] for p in result.get("problems") or []})
            if not result.get("error") or found != sorted(vector["problems"]):
                failures.append(f"editor, {name}: problems at {found} instead of {sorted(vector['problems'])}")
        # The server.
        family_id = f"VEC_{uuid.uuid4().hex[:8].upper()}"
        status, payload, _ = api.call("POST", "families", family_body(vector, family_id))
        if "size" in vector:
            if status != 201:
                failures.append(f"server, {name}: {status} {payload}")
            else:
                computed = payload["cell_styles"][0]["computed"]
                if abs(computed["width"] - vector["size"]["width"]) > TOLERANCE or abs(computed["height"] - vector["size"]["height"]) > TOLERANCE:
                    failures.append(f"server, {name}: {computed} instead of {vector['size']}")
        else:
            found = sorted({e["pointer"] for e in (payload.get("errors") or [])}) if isinstance(payload, dict) else []
            if status != 422 or found != sorted(vector["problems"]):
                failures.append(f"server, {name}: {status}, problems at {found} instead of {sorted(vector['problems'])}")
    assert not failures, "\n".join(failures)


def manifest(identifier, sections):
    return {
        "author_name": "A", "author_email": "a@example.com", "manifest_version": "1.0.0", "name": "Vector",
        "description": "A test plugin", "identifier": identifier, "type": "general", "min_zapp_sdk": "1.0.0",
        "ui_builder_support": True, "screen": True, **sections,
    }


def test_plugin_field_conditions_follow_the_shared_vectors(browser, api):
    vectors = load("plugin-conditions.json")
    assert len(vectors) >= 20
    forms = []
    for i, vector in enumerate(vectors):
        identifier = f"vector-{i}"
        api.ok("POST", "plugins", manifest(identifier, vector["sections"]))
        forms.append(api.ok("GET", f"plugins/{identifier}/form"))

    open_editor(browser)
    results = run_module(browser, "plugin-conditions.js", """
return argument.map(({vector, form}) => {
  const fields = m.sectionFields(form, vector.section);
  const context = {section: vector.section, values: vector.values, fields};
  return Object.fromEntries(Object.keys(vector.fields).map((key) => {
    const field = fields.find((f) => f.key === key);
    return [key, field ? {shown: m.isShown(field, context), required: m.isRequired(field, context)} : null];
  }));
});
""", [{"vector": v, "form": f} for v, f in zip(vectors, forms)])

    failures = []
    for vector, result in zip(vectors, results):
        for key, expected in vector["fields"].items():
            if result.get(key) != expected:
                failures.append(f"editor, {vector['name']}, {key}: {result.get(key)} instead of {expected}")

    # The server: each field left empty is refused as mandatory exactly when it is required.
    family = api.family()
    for i, vector in enumerate(vectors):
        section = vector["section"]
        for key, expected in vector["fields"].items():
            values = {**vector["values"], key: ""}
            status, payload, _ = api.call("POST", "screens", {"name": "Vector", "family": family["id"], "type": f"vector-{i}", section: values})
            errors = payload.get("errors") or [] if isinstance(payload, dict) else []
            mandatory = any(e["pointer"] == f"/{section}/{key}" and "mandatory" in e["message"] for e in errors)
            unexpected = [e for e in errors if "mandatory" not in e["message"]]
            if mandatory != expected["required"] or unexpected or status not in (201, 422):
                failures.append(f"server, {vector['name']}, {key}: {status} {payload}")
    assert not failures, "\n".join(failures)


def test_plugin_values_follow_the_shared_vectors(browser, api):
    """The editor writes what its controls give in the form the server's form says (`value_form`),
    and the server writes the same value for it, for every vector of plugin-values.json."""
    vectors = load("plugin-values.json")
    assert len(vectors) >= 12
    fields = []
    for i, vector in enumerate(vectors):
        identifier = f"values-{i}"
        api.ok("POST", "plugins", manifest(identifier, {"styles": {"fields": [vector["field"]]}}))
        form = api.ok("GET", f"plugins/{identifier}/form")
        fields.append(next(s for s in form["sections"] if s["name"] == "styles")["fields"][0])

    open_editor(browser)
    results = run_module(browser, "plugin-values.js", """
return argument.map(({vector, field}) => vector.inputs.map(({input}) => m.controlValue(field, input)));
""", [{"vector": v, "field": f} for v, f in zip(vectors, fields)])

    failures = []
    family = api.family()
    for i, (vector, field, written) in enumerate(zip(vectors, fields, results)):
        name = vector["name"]
        if field.get("value_form") != vector["value_form"] or field.get("initial_value") != vector["initial_value"]:
            failures.append(f"form, {name}: {field.get('value_form')} {field.get('initial_value')!r}")
        for case, value in zip(vector["inputs"], written):
            if value != case["value"]:
                failures.append(f"editor, {name}: {case['input']!r} written as {value!r}")
            # The server stores (and publishes) the editor's value as it is.
            status, screen, _ = api.call("POST", "screens", {"name": "Vector", "family": family["id"], "type": f"values-{i}",
                                                             "styles": {vector["field"]["key"]: value}})
            stored = screen.get("styles", {}).get(vector["field"]["key"]) if status == 201 else None
            if status != 201 or stored != case["value"]:
                failures.append(f"server, {name}: {status} {stored!r} for {value!r}")
    assert not failures, "\n".join(failures)


def test_missing_routes_are_told_apart_by_problem_type(browser, api):
    """A route the server lacks is recognised by status and problem type, never by English text."""
    open_editor(browser)
    found = run_module(browser, "api.js", """
const client = new m.Api(argument.token);
client.app = argument.app;
const probe = (path) => client.request('GET', path).then(() => null, (e) => ({
  status: e.status, type: e.type, missingRoute: e.isMissingRoute, notFound: e.isNotFound}));
return Promise.all([probe(client.appPath('no-such-collection')), probe(client.appPath('families/NO_SUCH_FAMILY'))]);
""", {"token": api.token, "app": api.app})
    no_route, no_family = found
    assert no_route == {"status": 404, "type": "/problems/no-route", "missingRoute": True, "notFound": True}
    assert no_family["status"] == 404 and no_family["missingRoute"] is False and no_family["type"] != "/problems/no-route"


def test_plugin_form_shows_and_requires_fields_by_the_shared_rules(browser, api):
    """The screen editor draws a plugin's form with those rules: a field whose condition holds
    through an initial value is shown, one whose condition does not is hidden until it does, and
    the server's "mandatory" lands on the field the editor marked as required."""
    from conftest import click, css, set_value, sign_in, visible

    api.ok("POST", "plugins", manifest("promo-screen", {"general": {"fields": [
        {"key": "show_banner", "type": "switch", "label": "Show a banner", "initial_value": False},
        {"key": "banner_title", "type": "text_input", "label": "Banner title", "mandatory": True,
         "conditional_fields": [{"key": "general/show_banner", "condition_value": True}]},
        {"key": "look", "type": "select", "label": "Look", "options": ["plain", "fancy"], "initial_value": "fancy"},
        {"key": "fancy_note", "type": "text_input", "label": "Fancy note",
         "conditional_fields": [{"key": "general/look", "condition_value": ["fancy", "festive"]}]},
        # A number the manifest writes as text stays text (plugin code casts it to a string); a
        # switch is a boolean even where the manifest writes "false" (docs/spec/plugin-values.md).
        {"key": "font_size", "type": "number_input", "label": "Font size", "initial_value": "18"},
        {"key": "autoplay", "type": "switch", "label": "Autoplay", "initial_value": "false"},
    ]}}))
    family = api.family()
    screen = api.screen(family["id"], "Promo", type="promo-screen")
    sign_in(browser, api, f"#/screens/{screen['id']}")
    visible(browser, ".plugin-form input[data-pointer='/general/show_banner']")

    def labels(d):
        return [label.text for label in d.find_elements("css selector", ".plugin-form label")]

    # The look starts as "fancy" (its initial value), one of the note's condition values.
    assert "Fancy note" in labels(browser)
    assert not [t for t in labels(browser) if t.startswith("Banner title")]
    click(browser, css(browser, "input[data-pointer='/general/show_banner']"))
    wait(browser, lambda d: "Banner title (required)" in labels(d), message="the banner title appears, required")

    # Left empty, the server refuses it as mandatory, at the field the editor shows.
    click(browser, css(browser, "#save-screen"))
    field = wait(browser, lambda d: next((e for e in d.find_elements("css selector", "input[data-pointer='/general/banner_title']")
                                          if e.get_attribute("aria-invalid") == "true"), False), message="banner title marked")
    assert "mandatory" in field.find_element("xpath", "..").text
    set_value(field, "Summer sale")
    set_value(css(browser, "input[data-pointer='/general/font_size']"), "20")
    click(browser, css(browser, "input[data-pointer='/general/autoplay']"))
    click(browser, css(browser, "#save-screen"))
    wait(browser, lambda d: css(d, "#save-status").text.startswith("Saved"), message="saved")
    saved = api.ok("GET", f"screens/{screen['id']}")
    assert saved["general"]["show_banner"] is True and saved["general"]["banner_title"] == "Summer sale"
    assert saved["general"]["font_size"] == "20" and saved["general"]["autoplay"] is True, saved["general"]

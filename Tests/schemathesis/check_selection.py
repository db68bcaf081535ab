"""Fails unless schemathesis tested every operation of the served document but the deliberate exclusions.

    python3 Tests/schemathesis/check_selection.py OPENAPI_URL SCHEMATHESIS_TOML JUNIT_XML [METHODS]

METHODS (comma-separated, like POST,PUT) limits the operations expected to those methods: the
coverage run of `make test` selects every POST and PUT.

The operations tested are read from schemathesis' own JUnit report (one test case per operation it
ran), not from the toml's filters, whose semantics are easy to get wrong (separate `include-*` keys
of one `[[operations]]` block are ORed). The deliberate exclusions are the toml's `[[operations]]`
blocks with `enabled = false`, each naming one operation with `include-name-regex`; each must name
exactly one operation of the document, so a stale exclusion fails too. (Schemathesis never tests
the operation serving the document it loaded, GET /api/openapi.json; that one is not counted.)
"""
import json
import re
import sys
import tomllib
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET

METHODS = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}


def main():
    openapi_url, toml_path, junit_path = sys.argv[1:4]
    wanted = {m.strip().lower() for m in sys.argv[4].split(",")} if len(sys.argv) > 4 else METHODS
    with urllib.request.urlopen(openapi_url, timeout=30) as response:
        document = json.loads(response.read())
    operations = {
        f"{method.upper()} {path}" for path, item in document["paths"].items() for method in item if method in METHODS and method in wanted
    }

    with open(toml_path, "rb") as file:
        config = tomllib.load(file)
    problems = []
    excluded = {}
    for block in config.get("operations", []):
        if block.get("enabled", True):
            continue
        regex = block.get("include-name-regex")
        if regex is None or set(block) - {"include-name-regex", "enabled"}:
            problems.append(f"an exclusion must be one include-name-regex and enabled = false: {block}")
            continue
        named = {name for name in operations if re.search(regex, name)}
        if len(named) != 1 and wanted == METHODS:
            problems.append(f"the exclusion {regex!r} names {len(named)} operations of the document, not one: {sorted(named)}")
        for name in named:
            excluded[name] = regex

    # Schemathesis leaves out the operation that serves the document it was loaded from.
    served = f"GET {urllib.parse.urlsplit(openapi_url).path}"
    operations.discard(served)
    tested = {case.get("name") for case in ET.parse(junit_path).getroot().iter("testcase")}
    tested.discard("Stateful tests")
    expected = operations - set(excluded)
    missing = sorted(expected - tested)
    unexpected = sorted(tested - expected)
    print(
        f"schemathesis: {len(operations)} operations in the document, {len(excluded)} excluded, "
        f"{len(tested & expected)} of the {len(expected)} expected tested",
        file=sys.stderr,
    )
    for name in missing:
        problems.append(f"not tested: {name}")
    for name in unexpected:
        problems.append(f"tested although excluded or not in the document: {name}")
    for problem in problems:
        print(f"schemathesis: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

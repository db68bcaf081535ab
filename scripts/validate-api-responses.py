#!/usr/bin/env python3
"""Checks every response the API tests received against the OpenAPI document.

    .venv-test/bin/python scripts/validate-api-responses.py LOGFILE [--spec PATH] [--examples N] [-v]

LOGFILE holds one JSON object a line, as the Swift tests' `ResponseLog` writes them when
RIVERS_API_RESPONSE_LOG is set: {"method", "uri" (path and query as requested), "status",
"content_type" (or null), "body" (the response text)}.

For each response whose path matches a path template of the document (under the document's
`servers`, as the document defines them), the operation for the method is looked up, then the
response object for the status (the exact code, then a range such as `4XX`, then `default`). A
status the operation does not document is a failure. When the response object declares content,
the Content-Type must be one of its media types (parameters such as charset ignored) and a JSON
body must parse and validate against that media type's schema (JSON Schema 2020-12 for OpenAPI
3.1, Draft 4 with `nullable` for 3.0; `$ref`s resolved inside the document; formats checked);
bodies of other types (SVG, HTML) are only checked for their type. A problem's `status` member
must be the response's status (RFC 9457). A response object without content must come with an
empty body. HEAD bodies are not checked (there are none).

Responses whose path matches no template (tests of unknown routes, editor files) are counted as
unmatched; HEAD and OPTIONS on paths that do not describe them, and 405 answers to methods a path
does not describe, are counted as ignored. Any other response to a method the document does not
describe is a failure (the document is missing an operation).

Prints a summary and, for failures, groups them by (method, template, status, what failed: the
schema location of the validator's error, or the kind of mismatch) with a few examples each.
Exits 1 when anything failed, 2 on a usage or setup error.
"""
import argparse
import collections
import json
import pathlib
import re
import sys
import urllib.parse

import jsonschema_rs

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_SPEC = ROOT / "Sources" / "RiversServer" / "openapi.json"
# The document is registered as a schema resource under this URI, so that every `$ref` in it
# ("#/components/schemas/…") resolves inside it.
BASE_URI = "https://rivers.invalid/openapi.json"
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
JSON_DIALECTS_2020 = (
    "https://spec.openapis.org/oas/3.1/dialect/base",
    "https://spec.openapis.org/oas/3.1/dialect/2024-11-10",
    "https://json-schema.org/draft/2020-12/schema",
)


def fail_setup(message):
    print(f"validate-api-responses: {message}", file=sys.stderr)
    sys.exit(2)


def escape_pointer(token):
    return str(token).replace("~", "~0").replace("/", "~1")


def pointer_get(document, pointer):
    node = document
    for raw in pointer.lstrip("/").split("/") if pointer not in ("", "/") else []:
        token = urllib.parse.unquote(raw).replace("~1", "/").replace("~0", "~")
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node


class Spec:
    def __init__(self, path):
        try:
            self.document = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            fail_setup(f"cannot read the OpenAPI document {path}: {error}")
        version = str(self.document.get("openapi", ""))
        if version.startswith("3.1"):
            dialect = self.document.get("jsonSchemaDialect")
            if dialect and dialect.rstrip("#") not in JSON_DIALECTS_2020:
                fail_setup(f"jsonSchemaDialect {dialect} is not supported (only JSON Schema 2020-12)")
            schema_document, draft, validator = self.document, jsonschema_rs.Draft202012, jsonschema_rs.Draft202012Validator
        elif version.startswith("3.0"):
            schema_document = nullable_to_type_lists(json.loads(json.dumps(self.document)))
            draft, validator = jsonschema_rs.Draft4, jsonschema_rs.Draft4Validator
        else:
            fail_setup(f"unsupported OpenAPI version {version!r} (3.0 and 3.1 are)")
        self.version = version
        self.registry = jsonschema_rs.Registry([(BASE_URI, schema_document)], draft=draft)
        self.validator_class = validator
        self.validators = {}
        self.templates = self._templates()

    def resolve(self, node, pointer):
        """Follows local `$ref`s (path items, responses, media types); returns (object, pointer)."""
        seen = set()
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            if not ref.startswith("#") or ref in seen:
                fail_setup(f"cannot resolve $ref {ref!r} at {pointer}")
            seen.add(ref)
            pointer = ref[1:]
            try:
                node = pointer_get(self.document, pointer)
            except (KeyError, IndexError, ValueError):
                fail_setup(f"$ref {ref!r} points at nothing")
        return node, pointer

    def _templates(self):
        """[(full path, template, segment matchers, path item, its pointer)], most specific first."""
        top_servers = self.document.get("servers") or [{"url": "/"}]
        templates = []
        for template, item in (self.document.get("paths") or {}).items():
            item_pointer = "/paths/" + escape_pointer(template)
            item, item_pointer = self.resolve(item, item_pointer)
            for base in server_paths(item.get("servers") or top_servers):
                full = base.rstrip("/") + template
                segments = [segment_matcher(s) for s in split_path(full)]
                templates.append((full, template, segments, item, item_pointer))
        # A literal segment beats a parameter at the first place they differ (`versions/diff`
        # before `versions/{number}`), as in the server's router.
        templates.sort(key=lambda t: [0 if isinstance(s, str) else 1 for s in t[2]])
        return templates

    def match(self, path):
        segments = split_path(path)
        for full, template, matchers, item, pointer in self.templates:
            if len(matchers) != len(segments):
                continue
            if all(m == s if isinstance(m, str) else m.fullmatch(s) for m, s in zip(matchers, segments)):
                return template, item, pointer
        return None

    def validator(self, pointer):
        if pointer not in self.validators:
            self.validators[pointer] = self.validator_class(
                {"$ref": BASE_URI + "#" + urllib.parse.quote(pointer, safe="/~-._!$&'()*+,;=:@")}, registry=self.registry, validate_formats=True
            )
        return self.validators[pointer]


def server_paths(servers):
    """The path part of each server URL (variables replaced by their defaults)."""
    paths = []
    for server in servers:
        url = server.get("url", "/")
        for name, variable in (server.get("variables") or {}).items():
            url = url.replace("{" + name + "}", str(variable.get("default", "")))
        path = urllib.parse.urlsplit(url).path if "://" in url else url.split("?")[0]
        paths.append(path or "/")
    return paths


def split_path(path):
    # The router ignores empty segments ("//", a trailing "/").
    return [s for s in path.split("/") if s]


def segment_matcher(segment):
    if "{" not in segment:
        return segment
    parts = re.split(r"(\{[^}]+\})", segment)
    return re.compile("".join("[^/]+" if p.startswith("{") else re.escape(p) for p in parts if p))


def nullable_to_type_lists(node):
    """OpenAPI 3.0 `nullable: true` as JSON Schema: `null` added to the type (and enum)."""
    if isinstance(node, list):
        return [nullable_to_type_lists(n) for n in node]
    if not isinstance(node, dict):
        return node
    node = {k: nullable_to_type_lists(v) for k, v in node.items()}
    if node.pop("nullable", None) is True:
        if "enum" in node and None not in node["enum"]:
            node["enum"] = node["enum"] + [None]
        if isinstance(node.get("type"), str):
            node["type"] = [node["type"], "null"]
        elif "type" not in node:
            node = {"anyOf": [node, {"type": "null"}]}
    return node


def media_type(content_type):
    return content_type.split(";")[0].strip().lower() if content_type else None


def is_json(media):
    return media == "application/json" or media.endswith("+json")


def find_media(content, media):
    by_type = {media_type(k): k for k in content}
    for candidate in (media, media.split("/")[0] + "/*", "*/*"):
        if candidate in by_type:
            return by_type[candidate]
    return None


def find_response(responses, status):
    text = str(status)
    keys = {str(k).upper(): k for k in responses}
    for candidate in (text, text[0] + "XX", "DEFAULT"):
        if candidate in keys:
            return keys[candidate]
    return None


def strict_json(text):
    def no_constant(name):
        raise ValueError(f"{name} is not JSON")

    def no_duplicates(pairs):
        keys = [k for k, _ in pairs]
        if len(keys) != len(set(keys)):
            raise ValueError(f"duplicate key {sorted(k for k in keys if keys.count(k) > 1)[0]!r}")
        return dict(pairs)

    return json.loads(text, parse_constant=no_constant, object_pairs_hook=no_duplicates)


def shorten(text, limit):
    text = text if isinstance(text, str) else json.dumps(text)
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} chars)"


def error_message(error):
    message = error.message
    if isinstance(error.instance, (dict, list)):
        message += f"\n      value: {shorten(json.dumps(error.instance, ensure_ascii=False), 240)}"
    if error.kind.name in ("anyOf", "oneOf"):
        # Say which alternatives failed and why, one line each.
        try:
            context = error.kind.context
        except AttributeError:
            context = []
        lines = []
        for index, branch in enumerate(context or []):
            reasons = "; ".join(f"{'/' + '/'.join(map(str, e.instance_path))}: {e.message}" for e in branch[:3])
            lines.append(f"      alternative {index}: {shorten(reasons, 300)}")
        if lines:
            message += "\n" + "\n".join(lines)
    return message


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", help="the JSON-lines response log")
    parser.add_argument("--spec", default=str(DEFAULT_SPEC), help="the OpenAPI document (default: %(default)s)")
    parser.add_argument("--examples", type=int, default=5, help="examples printed per failure group")
    parser.add_argument("--body-chars", type=int, default=400, help="body characters printed per example")
    parser.add_argument("-v", "--verbose", action="store_true", help="also list the unmatched paths and the operations no response reached")
    args = parser.parse_args()

    spec = Spec(args.spec)
    try:
        lines = pathlib.Path(args.log).read_text(encoding="utf-8").splitlines()
    except OSError as error:
        fail_setup(f"cannot read the response log: {error}")

    checked = 0
    operations = collections.Counter()
    unmatched = collections.Counter()
    ignored = collections.Counter()
    failures = collections.defaultdict(list)  # (method, template, status, what) -> [(uri, body, message)]
    failed_responses = 0

    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            method, uri, status = entry["method"].upper(), entry["uri"], int(entry["status"])
            content_type, body = entry.get("content_type"), entry.get("body") or ""
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            fail_setup(f"{args.log}:{number}: not a response record ({error})")
        path = urllib.parse.urlsplit(uri).path if "://" in uri else uri.split("?")[0].split("#")[0]
        found = spec.match(path)
        if found is None:
            unmatched[(method, path)] += 1
            continue
        template, item, item_pointer = found
        problems = collections.defaultdict(list)  # what -> [message]

        def fail(what, message):
            problems[what].append(message)

        operation = item.get(method.lower()) if method.lower() in METHODS else None
        if operation is None:
            if method in ("HEAD", "OPTIONS") or status == 405:
                ignored[f"{method} {status} (not in the document)"] += 1
                continue
            fail("method not in the document", f"{method} is not an operation of {template}, yet it answered {status}")
        else:
            checked += 1
            operations[(method, template)] += 1
            op_pointer = f"{item_pointer}/{method.lower()}"
            responses = operation.get("responses") or {}
            key = find_response(responses, status)
            if key is None:
                fail("status not documented", f"{status} is not among the documented statuses {sorted(map(str, responses))}")
            else:
                response, response_pointer = spec.resolve(responses[key], f"{op_pointer}/responses/{escape_pointer(key)}")
                content = response.get("content") or {}
                media = media_type(content_type)
                if not content:
                    if body and method != "HEAD":
                        fail("body where the document declares none", f"the document declares no content for {key}, the response has a {content_type or 'untyped'} body")
                elif media is None:
                    fail("no Content-Type", f"no Content-Type; the document says {', '.join(content)}")
                else:
                    media_key = find_media(content, media)
                    if media_key is None:
                        fail(f"Content-Type {media}", f"Content-Type {content_type}; the document says {', '.join(content)}")
                    elif method != "HEAD" and is_json(media):
                        media_object, media_pointer = spec.resolve(content[media_key], f"{response_pointer}/content/{escape_pointer(media_key)}")
                        try:
                            instance = strict_json(body)
                        except ValueError as error:
                            fail("body is not JSON", f"{content_type} body is not JSON: {error}")
                        else:
                            # RFC 9457: a problem's `status` member is the response's status code.
                            if media == "application/problem+json" and isinstance(instance, dict) \
                                    and "status" in instance and instance["status"] != status:
                                fail("problem status is not the HTTP status", f"the body says status {instance['status']!r}, the response is {status}")
                            if "schema" in media_object:
                                for error in spec.validator(f"{media_pointer}/schema").iter_errors(instance):
                                    where = "/" + "/".join(escape_pointer(p) for p in error.instance_path)
                                    fail("#/" + "/".join(escape_pointer(p) for p in error.schema_path), f"at {where}: {error_message(error)}")
        if problems:
            failed_responses += 1
            for what, messages in problems.items():
                more = f"\n    (and {len(messages) - 3} more)" if len(messages) > 3 else ""
                failures[(method, template, status, what)].append((uri, body, "\n    ".join(messages[:3]) + more))

    total = sum(len(list(o for o in item if o in METHODS)) for item in (spec.resolve(v, "")[0] for v in spec.document.get("paths", {}).values()))
    print(
        f"validate-api-responses: checked {checked} responses across {len(operations)} of {total} operations "
        f"(OpenAPI {spec.version}); {sum(unmatched.values())} unmatched ({len(unmatched)} distinct paths), "
        f"{sum(ignored.values())} ignored"
    )
    for what, count in sorted(ignored.items()):
        print(f"  ignored: {what}: {count}")
    listed = sorted(unmatched.items()) if args.verbose else sorted(unmatched.items())[:20]
    for (method, path), count in listed:
        print(f"  unmatched: {method} {shorten(path, 120)}" + (f" ×{count}" if count > 1 else ""))
    if len(listed) < len(unmatched):
        print(f"  unmatched: … and {len(unmatched) - len(listed)} more paths (-v lists them)")
    unreached = []
    for template, item in spec.document.get("paths", {}).items():
        item, _ = spec.resolve(item, "")
        unreached += [f"{m.upper()} {template}" for m in METHODS if m in item and (m.upper(), template) not in operations]
    if unreached:
        print(f"  {len(unreached)} documented operations got no response" + (":" if args.verbose else " (-v lists them)"))
        if args.verbose:
            for operation in unreached:
                print(f"    {operation}")
    if checked == 0:
        print("validate-api-responses: warning: no response was checked (did the API tests run?)")

    if not failures:
        print("validate-api-responses: every matched response agrees with the document")
        return 0
    print(f"validate-api-responses: {failed_responses} responses FAIL, in {len(failures)} groups:")
    for (method, template, status, what), examples in sorted(failures.items(), key=lambda kv: (kv[0][1], kv[0][0], kv[0][2], kv[0][3])):
        print(f"\n== {method} {template} → {status}: {what} ({len(examples)} response{'s' if len(examples) != 1 else ''})")
        shown = set()
        for uri, body, message in examples:
            if (message, body) in shown:
                continue
            shown.add((message, body))
            if len(shown) > args.examples:
                break
            print(f"  - {method} {shorten(uri, 160)}")
            print(f"    {message}")
            if body:
                print(f"    body: {shorten(body, args.body_chars)}")
    return 1


if __name__ == "__main__":
    sys.exit(main())

"""Schemathesis hooks for scripts/schemathesis.sh (loaded through Tests/schemathesis/schemathesis.toml).

The OpenAPI document states every rule a JSON Schema can state. A few rules tie a request to the
app's data or to another part of the same request, and no schema can say them: the family and cell
styles a screen names must exist, a cell style must fit between its family's insets, `width` needs
`height` in a preview query, a PUT body's id is the path's, `component_ids` are the screen's own, and
so on (the document says each of them in words). Without help, schemathesis would send
schema-valid requests that break those rules, and count the server's 422 as a failure.

So these hooks, for schema-valid (positive) cases only, point the request at the seeded data and
bend the generated values until those rules hold, leaving everything a schema can check alone.
Negative cases are sent as generated, but with path ids that name real resources (DELETEs name spare
ones) and mostly `If-Match: *`, so that the server's validation of the body is what answers.
Stateful scenarios keep the ids their links carry. The hooks are deterministic: the same generated
case is always bent the same way.
"""
import copy
import datetime
import hashlib
import json
import os
import re
import time
import urllib.error
import urllib.request
import uuid

import schemathesis

URL = os.environ["RIVERS_URL"].rstrip("/")
TOKEN = os.environ["RIVERS_TOKEN"]
APP = os.environ["RIVERS_APP"]
HOME = os.environ["RIVERS_HOME_SCREEN"]
SHOW = os.environ["RIVERS_SHOW_SCREEN"]
PLUGIN = os.environ["RIVERS_PLUGIN"]
# Archiving an app ends every later request of the run, so DELETE /apps/{app} archives a spare app
# (schemathesis.toml sends that operation with the spare app's token); revoking the run's own
# token likewise, so a DELETE that names it revokes a spare token instead.
SPARE_APP = os.environ["RIVERS_SPARE_APP"]
OWN_TOKEN_ID = os.environ["RIVERS_OWN_TOKEN_ID"]
SPARE_TOKEN_ID = os.environ["RIVERS_SPARE_TOKEN_ID"]
SLUG_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")

FAMILY = "FAMILY_1"
CELL_STYLES = ["LIST_1", "GRID_1"]
LAYOUT = "HOME_LAYOUT"
BUILT_IN_TYPES = ["list", "grid", "hero", "horizontal_list", "html_ticker", "tab_bar", "screen_picker", "banner", "group"]
NAVIGATION_TYPES = {"navigation_bar", "two_level_rn_menu", "side_menu", "tab_bar_menu", PLUGIN}
MAX_ITEM_LIMIT = 50  # 200 components x 50 items stays within a preview's 10,000 items


def pick(seed, choices):
    """A deterministic choice, from the text of `seed`."""
    digest = hashlib.sha256(json.dumps(seed, sort_keys=True, default=str).encode()).digest()
    return choices[digest[0] % len(choices)]


def get(path):
    request = urllib.request.Request(f"{URL}/api/v1/apps/{APP}{path}")
    request.add_header("Authorization", f"Bearer {TOKEN}")
    for attempt in range(5):
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            # A busy machine can make the database late (503): the repair needs the current
            # resource, so it asks again rather than send the case unrepaired.
            if error.code != 503:
                return None
            time.sleep(0.5 * (attempt + 1))
    return None


# --------------------------------------------------------------------------------------------------
# Families: every cell style fits between the insets, and the insets leave room.

def points(length):
    """A length's number: lengths are numbers (scalable) or {"fixed": n}."""
    if isinstance(length, dict):
        length = length.get("fixed")
    return length if isinstance(length, (int, float)) and not isinstance(length, bool) else 0


# A cell's content: the schema states each member, but not which members go with which kind, nor
# the ranges of lengths inside nodes, nor the tree's limits (docs/cell-content.md). A generated
# tree is rebuilt from what it gives: members of its kind, lengths made valid, at most 8 levels and
# 64 nodes.
NODE_KEYS = {
    "stack": {"axis", "spacing", "alignment", "distribution", "children"},
    "overlay": {"children"},
    "image": {"aspect_ratio", "placeholder"},
    "text": {"role", "font_size", "line_height", "max_lines"},
    "spacer": set(),
}
COMMON_KEYS = {"kind", "padding", "frame", "align", "offset"}


def valid_length(value, positive=False, low=0.0, high=10000.0):
    number = points(value)
    if not (low <= number <= high) or (positive and number <= 0):
        number = 1 if positive else 0
    return {"fixed": number} if isinstance(value, dict) else number


def repair_content(node, depth=1, budget=None):
    budget = budget if budget is not None else [64]
    budget[0] -= 1
    if not isinstance(node, dict) or node.get("kind") not in NODE_KEYS:
        node = {"kind": "spacer"}
    kind = node["kind"]
    out = {k: v for k, v in node.items() if k in COMMON_KEYS | NODE_KEYS[kind] and v is not None}
    if isinstance(out.get("padding"), dict) and "fixed" not in out["padding"]:
        out["padding"] = {k: valid_length(v) for k, v in out["padding"].items()}
    elif "padding" in out:
        out["padding"] = valid_length(out["padding"])
    if isinstance(out.get("frame"), dict):
        frame = {k: valid_length(v) for k, v in out["frame"].items() if v is not None}
        for lo, hi in (("min_width", "max_width"), ("min_height", "max_height")):
            if lo in frame and hi in frame:
                frame[hi] = frame[lo]
        out["frame"] = frame
    if isinstance(out.get("offset"), dict):
        out["offset"] = {k: valid_length(v, low=-10000) for k, v in out["offset"].items()}
    if "spacing" in out:
        out["spacing"] = valid_length(out["spacing"])
    for key in ("font_size", "line_height"):
        if key in out:
            out[key] = valid_length(out[key], positive=True, high=1000)
    if kind == "stack":
        out.setdefault("axis", "vertical")
    if kind == "image":
        ratio = out.get("aspect_ratio")
        if not (isinstance(ratio, (int, float)) and 0.01 <= ratio <= 100):
            out["aspect_ratio"] = "16:9"
    if "children" in out:
        children = []
        for child in out["children"] if isinstance(out["children"], list) else []:
            if depth >= 8 or budget[0] <= 0:
                break
            children.append(repair_content(child, depth + 1, budget))
        out["children"] = children
    return out


def repair_family(family):
    if not isinstance(family, dict):
        return family
    size = family.get("reference_size")
    if not isinstance(size, dict) or not isinstance(size.get("width"), (int, float)):
        return family
    width = size["width"]
    insets = family.get("insets") if isinstance(family.get("insets"), dict) else {}
    left, right = points(insets.get("left")), points(insets.get("right"))
    if left + right >= width:
        family["insets"] = {**insets, "left": 0, "right": 0}
        left = right = 0
    available = width - left - right
    spacing = points(family.get("interitem_spacing"))
    seen = set()
    for index, style in enumerate(family.get("cell_styles") or []):
        if not isinstance(style, dict):
            continue
        if style.get("id") in seen:
            style["id"] = f"S{index}_{style['id']}"[:100]
        seen.add(style.get("id"))
        # Exactly one of columns/width and one of height/aspect_ratio (a merge patch's nulls can
        # leave a style with neither).
        if style.get("columns") is None and style.get("width") is None:
            style["columns"] = 1
        if style.get("height") is None and style.get("aspect_ratio") is None:
            style["aspect_ratio"] = 1
        columns = style.get("columns")
        # (A whole number may come as 16.0: JSON does not tell them apart.)
        if isinstance(columns, (int, float)) and not isinstance(columns, bool) and columns > 0:
            if (available - (columns - 1) * spacing) / columns <= 0:
                family["interitem_spacing"] = spacing = 0
        elif style.get("width") is not None and points(style["width"]) > available:
            style["width"] = {"fixed": available} if isinstance(style["width"], dict) else available
        if style.get("content") is not None:
            style["content"] = repair_content(style["content"])
        elif style.get("height") == "fit":
            style["content"] = {"kind": "text", "line_height": 17}
    return family


# --------------------------------------------------------------------------------------------------
# Components, layouts and screens: names of things the app has, and the rules between members.

def repair_components(components, *, connected, depth=0, budget=None):
    if not isinstance(components, list):
        return components
    budget = budget if budget is not None else [200]
    out, ids = [], set()
    for index, component in enumerate(components):
        if not isinstance(component, dict):
            out.append(component)
            continue
        if budget[0] <= 0:
            break
        budget[0] -= 1
        kind = component.get("component_type")
        if kind not in BUILT_IN_TYPES:
            kind = component["component_type"] = pick(kind, BUILT_IN_TYPES)
        cid = component.get("id")
        if cid is not None:
            if cid in ids:
                cid = component["id"] = f"{cid}-{index}"[-100:]
            ids.add(cid)
        if isinstance(component.get("cell_styles"), list):
            component["cell_styles"] = [s if s in CELL_STYLES else pick(s, CELL_STYLES) for s in component["cell_styles"]]
        rules = component.get("rules")
        if isinstance(rules, dict):
            # The schema allows a whole number, null, or a numeric string padded with any Unicode
            # white space (blank: no limit); only a number above the preview's bound is lowered.
            limit = rules.get("item_limit")
            text = limit.strip() if isinstance(limit, str) else None
            if text:
                limit = int(text)
            if isinstance(limit, int) and not isinstance(limit, bool) and limit > MAX_ITEM_LIMIT:
                rules["item_limit"] = MAX_ITEM_LIMIT
        data = component.get("data")
        if isinstance(data, dict):
            if data.get("target") is not None:
                data["target"] = HOME
            if connected:
                for key in ("source", "type"):
                    # Any value but null and "" (a number too) names a source of its own.
                    if data.get(key) not in (None, ""):
                        data[key] = ""
        children = component.get("ui_components")
        if kind != "group" or depth >= 4:
            if children:
                component["ui_components"] = []
        else:
            component["ui_components"] = repair_components(children, connected=connected, depth=depth + 1, budget=budget)
        out.append(component)
    return out


def repair_nav_items(items, ids):
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        if item.get("id") is not None:
            if item["id"] in ids:
                item["id"] = f"{item['id']}-{len(ids)}"
            ids.add(item["id"])
        data = item.get("data")
        if isinstance(data, dict) and data.get("target") is not None:
            data["target"] = HOME
        repair_nav_items(item.get("nav_items"), ids)


def repair_screen(screen, *, path_id=None, connected=None, preview=False):
    """A screen body (or the screen of a preview) with every reference pointing at the seeded app."""
    if not isinstance(screen, dict):
        return screen
    if path_id is not None and screen.get("id") is not None:
        screen["id"] = path_id
    if screen.get("from_layout") is not None:
        screen["from_layout"] = LAYOUT
    if screen.get("family") is not None:
        screen["family"] = FAMILY
    if screen.get("type") not in (None, "general_content", "favorites"):
        screen["type"] = pick(screen["type"], ["general_content", "favorites"])
    screen.pop("screen_type", None)
    if screen.get("plugin_version") is not None:
        screen["plugin_version"] = None
    if screen.get("home") is False:
        del screen["home"]
    if screen.get("parent") is not None:
        screen["parent"] = HOME
        if path_id is not None and str(path_id).lower() == HOME.lower():
            # The home screen (a stateful scenario's link may name it) cannot be its own parent.
            screen["parent"] = None
            screen["connected"] = False
    hooks = screen.get("hooks")
    if isinstance(hooks, dict):
        for key in ("preload_plugins", "postload_plugins"):
            for hook in hooks.get(key) or []:
                if isinstance(hook, dict):
                    hook["identifier"] = PLUGIN
                    if hook.get("screen_id") is not None:
                        hook["screen_id"] = HOME
    navigations = screen.get("navigations")
    if isinstance(navigations, list):
        for index, navigation in enumerate(navigations):
            if not isinstance(navigation, dict):
                continue
            navigation["category"] = ["nav_bar", "menu"][index % 2]
            if navigation.get("navigation_type") not in NAVIGATION_TYPES:
                navigation["navigation_type"] = pick(navigation.get("navigation_type"), sorted(NAVIGATION_TYPES - {PLUGIN}))
            repair_nav_items(navigation.get("nav_items"), set())
    if connected is None:
        connected = bool(screen.get("connected"))
    if "ui_components" in screen:
        screen["ui_components"] = repair_components(screen["ui_components"], connected=connected)
    return screen


def repair_layout(layout, *, path_id=None):
    if not isinstance(layout, dict):
        return layout
    if path_id is not None and layout.get("id") is not None:
        layout["id"] = path_id
    layout["family"] = FAMILY
    if "ui_components" in layout:
        layout["ui_components"] = repair_components(layout["ui_components"], connected=False)
    return layout


def merge_patch(target, patch):
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def repair_patch(kind, path_id, patch):
    """A merge patch whose result is a valid resource: repaired on the merged result, then diffed."""
    if not isinstance(patch, dict):
        return patch
    current = get(f"/{kind}/{path_id}")
    if current is None:
        return patch
    merged = merge_patch(current, patch)
    if merged.get("id") is not None:
        merged["id"] = current.get("id")
    if kind == "families":
        repaired = repair_family(copy.deepcopy(merged))
    elif kind == "layouts":
        repaired = repair_layout(copy.deepcopy(merged))
    else:
        # Connected before or after the patch: its components' data sources are cleared (an
        # empty source is valid on any screen, a source on a connected one is not).
        # (A parent makes a screen connected too, before or after.) The coverage phase was seen to
        # send a data-source type to a screen that was connected when the case was sent but not
        # when it was repaired (the seeded screens are shared by every phase), so patched
        # components never name a source of their own: an empty one is valid on every screen.
        repaired = repair_screen(copy.deepcopy(merged), connected=True)
        if current.get("home") and repaired.get("home") is not True:
            repaired["home"] = True
        if "screen_type" in merged:
            repaired["screen_type"] = current.get("screen_type")
    out = make_patch(current, repaired)
    for key in ("revision", "created_at", "updated_at"):
        if key in patch:
            out[key] = patch[key]
        else:
            out.pop(key, None)
    return out


def make_patch(current, target):
    """The merge patch that turns `current` into `target`: the members that changed, each whole
    (a nested object given in part is merged by the server, but the document's schema of the
    member asks for all of it, so a partial one would count as invalid input)."""
    if not isinstance(current, dict) or not isinstance(target, dict):
        return copy.deepcopy(target)
    patch = {key: None for key in current if key not in target}
    for key, value in target.items():
        if key not in current or current[key] != value:
            patch[key] = whole_member(current.get(key), value)
    return patch


def whole_member(current, target):
    """`target` whole, with a null for each member of a nested object that `current` has and
    `target` lost: the server merges a nested object into the current one, so a member merely left
    out would be kept (insets {"left": null, ...} must stay a removal, not become "keep left")."""
    if not isinstance(current, dict) or not isinstance(target, dict):
        return copy.deepcopy(target)
    out = {key: whole_member(current.get(key), value) for key, value in target.items()}
    for key in current:
        if key not in target:
            out[key] = None
    return out


# --------------------------------------------------------------------------------------------------
# The hook.

NEW_SCREENS = [0]
NEW_IDS = [0]
PLUGIN_VERSION = os.environ["RIVERS_PLUGIN_VERSION"]
REAL_IDS = {
    "families": "FAMILY_1", "layouts": LAYOUT, "screens": SHOW, "plugins": PLUGIN, "preview-links": os.environ["RIVERS_PREVIEW_LINK"],
    "webhooks": os.environ["RIVERS_WEBHOOK"],
}
# DELETEs remove spare resources, so that the others stay for every other operation.
SPARE_IDS = {
    "families": "FAMILY_2", "layouts": "SPARE_LAYOUT", "screens": os.environ["RIVERS_SPARE_SCREEN"], "plugins": PLUGIN + "_spare",
    "preview-links": os.environ["RIVERS_SPARE_PREVIEW_LINK"], "webhooks": os.environ["RIVERS_SPARE_WEBHOOK"],
}
# The seeded webhook's ping: the delivery its delivery routes name.
WEBHOOK_DELIVERY = os.environ["RIVERS_WEBHOOK_DELIVERY"]
# The seeded preview link's secret: the public draft URL's path parameter.
PREVIEW_SECRET = os.environ["RIVERS_PREVIEW_SECRET"]


def future_expiry(text):
    """`text` (an RFC 3339 date-time) with its date and time replaced by tomorrow's, same zone form."""
    match = re.match(r"^\d{4}-\d{2}-\d{2}([Tt])\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$", text)
    if match is None:
        return text
    zone = match.group(3)
    offset = datetime.timedelta(0) if zone in ("Z", "z") else (1 if zone[0] == "+" else -1) * datetime.timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6]))
    local = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=1) + offset
    return local.strftime(f"%Y-%m-%d{match.group(1)}%H:%M:%S") + (match.group(2) or "") + zone


def location_mode(meta, location):
    info = meta.components.get(location) if meta.components else None
    return str(info.mode) if info is not None else None


@schemathesis.hook
def map_case(context, case):
    meta = case.meta
    if meta is None:
        return case
    stateful = str(meta.phase.name) == "stateful"
    parts = case.path.strip("/").split("/")
    kind = parts[4] if len(parts) > 4 and parts[:3] == ["api", "v1", "apps"] else None
    positive = str(meta.generation.mode) == "positive"

    # Path parameters name the seeded resources unless the path itself is what is under test.
    # (Stateful scenarios keep the ids their links carry, but they too work in the token's app.)
    if location_mode(meta, "path") != "negative" and case.path_parameters:
        params = dict(case.path_parameters)
        if "app" in params:
            spare = (case.method.upper() == "DELETE" and parts == ["api", "v1", "apps", parts[3]]) or (
                case.method.upper() == "PUT" and parts[4:] == ["draft.json"])
            params["app"] = SPARE_APP if spare else APP
        if kind == "tokens" and case.method.upper() == "DELETE" and params.get("id") == OWN_TOKEN_ID:
            params["id"] = SPARE_TOKEN_ID
        # Likewise the seeded webhook, which a stateful scenario finds in the list: the later
        # phases (the coverage phase of its PATCH, ping, rotation and redelivery) need it.
        if kind == "webhooks" and case.method.upper() == "DELETE" and params.get("id") == REAL_IDS["webhooks"]:
            params["id"] = SPARE_IDS["webhooks"]
        if "slug" in params:
            params["slug"] = APP
        if "secret" in params and parts[0] == "preview":
            params["secret"] = PREVIEW_SECRET
        if not stateful:
            if "id" in params and kind in REAL_IDS:
                params["id"] = (SPARE_IDS if case.method.upper() == "DELETE" else REAL_IDS)[kind]
            if "delivery" in params:
                params["delivery"] = WEBHOOK_DELIVERY
            if "number" in params:
                params["number"] = 1
            if "version" in params:
                params["version"] = "v1"
        case.path_parameters = params

    # A stale If-Match answers 412 before anything else is looked at: most cases send `*` (or the
    # current ETag would do) so that the body is what the server judges; one in four keeps its own.
    if not stateful and location_mode(meta, "header") != "negative" and case.headers and "If-Match" in case.headers:
        if pick([case.method, case.path, case.headers.get("If-Match"), case.body if case.body is not None else None], [0, 1, 2, 3]):
            case.headers["If-Match"] = "*"

    # An Idempotency-Key names one request: a valid case sends a key of its own (a generated one
    # repeats across cases with other bodies, which is a 422 by design).
    if location_mode(meta, "header") != "negative" and case.headers and "Idempotency-Key" in case.headers:
        case.headers["Idempotency-Key"] = uuid.uuid4().hex

    # A slug change would leave every later request without an app: a PATCH keeps the slug (a
    # valid one; an invalid one is what a negative case tests), and renames only.
    if case.method.upper() == "PATCH" and len(parts) == 4 and parts[:3] == ["api", "v1", "apps"] and isinstance(case.body, dict):
        if isinstance(case.body.get("slug"), str) and SLUG_PATTERN.fullmatch(case.body["slug"]):
            case.body = {**case.body, "slug": APP}

    if not positive:
        return case

    method = case.method.upper()
    path_id = (case.path_parameters or {}).get("id")
    body = case.body

    # The seeded plugin's version; a stateful case asks for the plugin it just created, and its
    # link gives that plugin's own current version.
    if not stateful and case.path.endswith("/form") and isinstance(case.query, dict) and "version" in case.query:
        case.query = {**case.query, "version": PLUGIN_VERSION}
    if case.path.endswith("/versions/diff") and isinstance(case.query, dict):
        case.query = {**case.query, "from": 1, "to": 1}
    if kind == "preview" or case.path.endswith("/preview"):
        query = dict(case.query or {})
        if query.get("device") is None and any(k in query for k in ("width", "height", "scale")):
            query.setdefault("width", 320)
            query.setdefault("height", 568)
            case.query = query
    if isinstance(body, (dict, list)):
        body = copy.deepcopy(body)
    if method == "POST" and kind in ("families", "layouts") and isinstance(body, dict) and body.get("id") in ("FAMILY_1", "FAMILY_2", LAYOUT):
        # Most new families and layouts get an id of their own (the others meet 409).
        if pick(body, [0, 1, 2, 3]):
            NEW_IDS[0] += 1
            body["id"] = f"{body['id']}_{NEW_IDS[0]}"
    if kind == "families" and method in ("POST", "PUT") and isinstance(body, dict):
        if method == "PUT" and body.get("id") is not None:
            body["id"] = path_id
        case.body = repair_family(body)
    elif kind in ("families", "layouts", "screens") and method == "PATCH":
        case.body = repair_patch(kind, path_id, body)
    elif kind == "layouts" and method in ("POST", "PUT"):
        case.body = repair_layout(body, path_id=path_id if method == "PUT" else None)
    elif kind == "screens" and case.path.endswith("/reorder"):
        current = get(f"/screens/{path_id}")
        if current is not None and isinstance(body, dict):
            ids = [c.get("id") for c in current.get("ui_components") or []]
            case.body = {**body, "component_ids": ids[::-1]}
    elif kind == "screens" and method in ("POST", "PUT"):
        if method == "POST" and isinstance(body, dict) and body.get("id") is not None:
            # A new screen needs an id of its own.
            NEW_SCREENS[0] += 1
            body["id"] = str(uuid.uuid5(uuid.NAMESPACE_URL, f"rivers-schemathesis-screen-{NEW_SCREENS[0]}"))
        case.body = repair_screen(body, path_id=path_id if method == "PUT" else None)
    elif kind == "preview" and method == "POST" and isinstance(body, dict):
        if isinstance(body.get("screen"), dict):
            body["screen"].pop("from_layout", None)
            repair_screen(body["screen"], preview=True)
            body["screen"]["family"] = FAMILY
        sample = body.get("sample")
        if isinstance(sample, dict) and sample.get("counts") is not None and sample.get("children") is not None:
            # A sample gives counts or children, not both.
            del sample[pick(sample, ["counts", "children"])]
        if isinstance(sample, dict):
            if isinstance(sample.get("counts"), dict):
                sample["counts"] = {k: min(v, 40) for k, v in list(sample["counts"].items())[:200] if isinstance(v, int)}
            if isinstance(sample.get("children"), list):
                sample["children"] = [min(v, 1) if isinstance(v, int) else v for v in sample["children"]]
        case.body = body
    elif kind == "cell-preview" and method == "POST" and isinstance(body, dict):
        # The family is judged like a family body; the cell style must be one of it.
        family = repair_family(body.get("family")) if isinstance(body.get("family"), dict) else None
        size = (family or {}).get("reference_size")
        if not (isinstance(size, dict) and all(isinstance(size.get(k), (int, float)) for k in ("width", "height"))):
            family = None
        styles = [s.get("id") for s in (family or {}).get("cell_styles") or [] if isinstance(s, dict)]
        if family is None or not styles:
            family = get(f"/families/{FAMILY}")
            styles = CELL_STYLES
        body["family"] = family
        if body.get("cell_style") not in styles:
            body["cell_style"] = pick(body.get("cell_style"), styles)
        case.body = body
    elif kind in ("tokens", "preview-links") and method == "POST" and isinstance(body, dict) and isinstance(body.get("expires_at"), str):
        # An expiry must be in the future and within 5 years (a preview link's, 30 days) of now,
        # which no schema can say: keep the generated text's form (fraction, offset), moved to a
        # day from now.
        body["expires_at"] = future_expiry(body["expires_at"])
        case.body = body
    elif kind == "plugins" and method == "PUT" and isinstance(body, dict):
        body["identifier"] = path_id
        case.body = body
    return case

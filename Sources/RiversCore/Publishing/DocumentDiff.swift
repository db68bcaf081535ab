/// What changed between two rivers documents (for example two published versions).
///
/// ```
/// {"screens": {"added": [{id, name}], "removed": [{id, name}],
///              "changed": [{id, name, changed_keys: [...],
///                           components: {added: [{id, component_type}], removed: [...],
///                                        changed: [{id, component_type, changed_keys}],
///                                        moved: [id]}}]},
///  "unchanged": n}
/// ```
///
/// Screens and components are matched by `id`; key order never matters (objects are compared as
/// values). Lists are in document order (`removed`: in the order of `from`). A screen's
/// `changed_keys` names every top-level key whose value differs, `ui_components` included;
/// the component details are under `components`. Components are compared at every depth (children
/// of groups too): a component's `changed_keys` leaves out `position` and `ui_components`, and a
/// component is `moved` when its place (its parent and its index in the parent's list) differs.
/// Entries without a string id are matched by their index and reported with `"id": null`.
/// A `from` or `to` that is not an array counts as an empty document.
public enum DocumentDiff {
    public static func diff(from: JSONValue, to: JSONValue) -> JSONValue {
        let old = keyed(from.arrayValue ?? [])
        let new = keyed(to.arrayValue ?? [])
        let oldByKey = Dictionary(old.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        let newByKey = Dictionary(new.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })

        var added: [JSONValue] = []
        var changed: [JSONValue] = []
        var unchanged = 0
        for (key, screen) in new {
            guard let before = oldByKey[key] else {
                added.append(["id": idValue(screen), "name": screen["name"] ?? .null])
                continue
            }
            if before == screen {
                unchanged += 1
                continue
            }
            var entry: [String: JSONValue] = [
                "id": idValue(screen),
                "name": screen["name"] ?? .null,
                "changed_keys": .array(changedKeys(before, screen, ignoring: []).map(JSONValue.string)),
                "components": componentsDiff(before["ui_components"], screen["ui_components"]),
            ]
            if before["name"] != screen["name"] { entry["previous_name"] = before["name"] ?? .null }
            changed.append(.object(entry))
        }
        let removed: [JSONValue] = old.filter { newByKey[$0.key] == nil }.map { key, screen in
            ["id": idValue(screen), "name": screen["name"] ?? .null]
        }
        return [
            "screens": ["added": .array(added), "removed": .array(removed), "changed": .array(changed)],
            "unchanged": .number(Double(unchanged)),
        ]
    }

    /// Entries keyed by id (`#<index>` for an entry without a string id), in order.
    static func keyed(_ list: [JSONValue]) -> [(key: String, value: JSONValue)] {
        list.enumerated().map { index, value in
            if let id = value["id"]?.stringValue { return ("id:" + id, value) }
            return ("#" + String(index), value)
        }
    }

    static func idValue(_ value: JSONValue) -> JSONValue {
        if let id = value["id"]?.stringValue { return .string(id) }
        return .null
    }

    /// The keys, sorted, whose values differ (a key present on one side only counts).
    static func changedKeys(_ a: JSONValue, _ b: JSONValue, ignoring: Set<String>) -> [String] {
        let ao = a.objectValue ?? [:]
        let bo = b.objectValue ?? [:]
        return Set(ao.keys).union(bo.keys).subtracting(ignoring).filter { ao[$0] != bo[$0] }.sorted()
    }

    struct Placed {
        var key: String
        var value: JSONValue
        var parent: String
        var index: Int
    }

    /// Every component, depth first, with its place.
    static func flatten(_ list: JSONValue?, parent: String = "", into result: inout [Placed]) {
        for (index, component) in (list?.arrayValue ?? []).enumerated() {
            let key = component["id"]?.stringValue.map { "id:" + $0 } ?? (parent + "#" + String(index))
            result.append(Placed(key: key, value: component, parent: parent, index: index))
            flatten(component["ui_components"], parent: key + "/", into: &result)
        }
    }

    static func componentsDiff(_ from: JSONValue?, _ to: JSONValue?) -> JSONValue {
        var old: [Placed] = []
        var new: [Placed] = []
        flatten(from, into: &old)
        flatten(to, into: &new)
        var oldByKey: [String: Placed] = [:]
        for p in old where oldByKey[p.key] == nil { oldByKey[p.key] = p }
        var newKeys: Set<String> = []
        for p in new { newKeys.insert(p.key) }

        func summary(_ c: JSONValue) -> [String: JSONValue] {
            ["id": idValue(c), "component_type": c["component_type"] ?? .null]
        }
        var added: [JSONValue] = []
        var changed: [JSONValue] = []
        var moved: [JSONValue] = []
        for p in new {
            guard let before = oldByKey[p.key] else {
                added.append(.object(summary(p.value)))
                continue
            }
            let keys = changedKeys(before.value, p.value, ignoring: ["position", "ui_components"])
            if !keys.isEmpty {
                var entry = summary(p.value)
                entry["changed_keys"] = .array(keys.map(JSONValue.string))
                changed.append(.object(entry))
            }
            if before.parent != p.parent || before.index != p.index {
                moved.append(idValue(p.value))
            }
        }
        let removed = old.filter { !newKeys.contains($0.key) }.map { JSONValue.object(summary($0.value)) }
        return [
            "added": .array(added), "removed": .array(removed), "changed": .array(changed), "moved": .array(moved),
        ]
    }
}

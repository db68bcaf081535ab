import Foundation

/// Small helpers shared by the plugin-manifest, value and navigation code. Internal on purpose:
/// the names are namespaced so they cannot clash with the rest of `RiversCore`.
enum PluginJSON {
    /// One step of a path into a JSON value.
    enum Token: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    static func pointer(_ path: [Token]) -> String {
        var out = ""
        for token in path {
            switch token {
            case .key(let k): out = JSONPointer.join(out, k)
            case .index(let i): out = JSONPointer.join(out, i)
            }
        }
        return out
    }

    /// Returns `value` with the node at `path` replaced by `newValue`. Missing containers are not
    /// created: a path that does not exist leaves the value unchanged.
    static func setting(_ newValue: JSONValue, at path: ArraySlice<Token>, in value: JSONValue) -> JSONValue {
        guard let first = path.first else { return newValue }
        switch (first, value) {
        case (.key(let k), .object(var o)):
            guard let child = o[k] else { return value }
            o[k] = setting(newValue, at: path.dropFirst(), in: child)
            return .object(o)
        case (.index(let i), .array(var a)):
            guard a.indices.contains(i) else { return value }
            a[i] = setting(newValue, at: path.dropFirst(), in: a[i])
            return .array(a)
        default:
            return value
        }
    }

    /// `value` with every edit made, in order (a later edit of a node wins over an earlier one of
    /// it or below it), each container on the edits' paths copied once. Paths that do not exist
    /// are left out, as `setting(_:at:in:)` leaves them.
    static func setting(_ edits: [(path: [Token], value: JSONValue)], in value: JSONValue) -> JSONValue {
        applying(edits.map { ($0.path[...], $0.value) }[...], to: value)
    }

    private static func applying(_ edits: ArraySlice<(path: ArraySlice<Token>, value: JSONValue)>, to value: JSONValue) -> JSONValue {
        var start = value, rest = edits
        if let whole = edits.lastIndex(where: { $0.path.isEmpty }) {
            start = edits[whole].value
            rest = edits[(whole + 1)...]
        }
        guard !rest.isEmpty else { return start }
        var order: [Token] = []
        var below: [Token: [(path: ArraySlice<Token>, value: JSONValue)]] = [:]
        for edit in rest {
            guard let first = edit.path.first else { continue }
            if below[first] == nil { order.append(first) }
            below[first, default: []].append((edit.path.dropFirst(), edit.value))
        }
        switch start {
        case .object(var o):
            for token in order {
                guard case .key(let k) = token, let child = o[k], let inner = below[token] else { continue }
                o[k] = applying(inner[...], to: child)
            }
            return .object(o)
        case .array(var a):
            for token in order {
                guard case .index(let i) = token, a.indices.contains(i), let inner = below[token] else { continue }
                a[i] = applying(inner[...], to: a[i])
            }
            return .array(a)
        default:
            return start
        }
    }

    /// How a value is quoted in a message: `"abc"`, `12`, `true`, `[…]`.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .array, .object: return value.typeName
        default: return value.serializedString()
        }
    }

    /// What a message says was found: `string "yes"`, `number 1`, `boolean false`, `null`, `array`, `object`.
    static func got(_ value: JSONValue) -> String {
        switch value {
        case .null, .array, .object: return value.typeName
        default: return "\(value.typeName) \(value.serializedString())"
        }
    }

    /// A number written the way JSON writes it (`18`, not `18.0`).
    static func numberText(_ n: Double) -> String { JSONValue.number(n).serializedString() }

    /// `"true"`/`"false"` (any case, surrounding spaces ignored) as a boolean.
    static func looseBool(_ value: JSONValue) -> Bool? {
        switch value {
        case .bool(let b): return b
        case .string(let s):
            switch s.trimmingCharacters(in: .whitespaces).lowercased() {
            case "true": return true
            case "false": return false
            default: return nil
            }
        default: return nil
        }
    }

    /// A value counts as "not set" when it is null, an empty string, an empty array or an empty object.
    static func isEmpty(_ value: JSONValue?) -> Bool {
        switch value {
        case nil, .null?: return true
        case .string(let s)?: return s.isEmpty
        case .array(let a)?: return a.isEmpty
        case .object(let o)?: return o.isEmpty
        default: return false
        }
    }
}

/// The manifest parser reports through `Problems`, like every reader, with paths of tokens.
extension Problems {
    func error(_ path: [PluginJSON.Token], _ message: String) { add(PluginJSON.pointer(path), message) }
    func error(_ pointer: String, _ message: String) { add(pointer, message) }
    /// A loose value that was normalised: a warning.
    func note(_ path: [PluginJSON.Token], _ message: String) { warn(PluginJSON.pointer(path), message) }
}

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

    /// A UUID (`8-4-4-4-12` ASCII hexadecimal digits, either case) in lower case, as screen ids are
    /// written; nil for anything else.
    static func normalizedUUID(_ s: String) -> String? {
        let bytes = Array(s.lowercased().utf8)
        guard bytes.count == 36 else { return nil }
        for (i, b) in bytes.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard b == UInt8(ascii: "-") else { return nil }
            } else {
                guard (48...57).contains(b) || (97...102).contains(b) else { return nil }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
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
    static func numberText(_ n: Double) -> String {
        String(decoding: JSONValue.number(n).serialized(), as: UTF8.self)
    }

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

/// Collects problems while walking one JSON value: every check appends, nothing stops early.
struct PluginProblemLog: Sendable {
    var errors: [FieldError] = []
    var notes: [FieldError] = []

    mutating func error(_ path: [PluginJSON.Token], _ message: String) {
        errors.append(FieldError(PluginJSON.pointer(path), message))
    }

    mutating func error(_ pointer: String, _ message: String) {
        errors.append(FieldError(pointer, message))
    }

    mutating func note(_ path: [PluginJSON.Token], _ message: String) {
        notes.append(FieldError(PluginJSON.pointer(path), message))
    }
}

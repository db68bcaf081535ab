/// How a body is read. `.api`: bodies from the editor and API callers; unknown members are
/// errors and types are exact. `.document`: a rivers.json being imported, as real documents write
/// it; unknown members are kept as they are (with a warning), and `"true"`, `"false"` and numbers
/// written for strings are accepted.
public enum ReadMode: Sendable {
    case api, document
}

/// Collects every problem found while reading a JSON body, so one response can list them all, and
/// the warnings: what was accepted but deserves a look. Only the first `Limits.maxProblems` of
/// each are kept; `count` says how many errors were found in all.
public final class Problems {
    public let mode: ReadMode
    public private(set) var errors: [FieldError] = []
    public private(set) var count = 0
    public private(set) var warnings: [FieldError] = []
    public init(mode: ReadMode = .api) { self.mode = mode }

    public func add(_ pointer: String, _ message: String) {
        count += 1
        if errors.count < Limits.maxProblems { errors.append(FieldError(pointer, message)) }
    }

    public func add(contentsOf more: [FieldError]) {
        for e in more { add(e.pointer, e.message) }
    }

    /// Takes in what `other` found, its pointers under `prefix`, counting the ones it did not keep.
    public func add(_ other: Problems, under prefix: String) {
        for e in other.errors { add(prefix + e.pointer, e.message) }
        count += other.count - other.errors.count
        for w in other.warnings { warn(prefix + w.pointer, w.message) }
    }

    public func warn(_ pointer: String, _ message: String) {
        if warnings.count < Limits.maxProblems { warnings.append(FieldError(pointer, message)) }
    }

    public var isEmpty: Bool { count == 0 }

    /// What was found, as one error to throw.
    public var failure: ValidationFailure { ValidationFailure(errors, count: count) }
}

/// Reads the members of one JSON object, checking types and recording problems at their pointers.
/// A missing optional member and a member set to `null` both read as `nil`.
public struct ObjectReader {
    public let object: [String: JSONValue]
    public let pointer: String
    public let problems: Problems

    /// Reads `value` as an object; records a problem and returns nil when it is not one.
    public init?(_ value: JSONValue?, at pointer: String, problems: Problems, required: Bool = true) {
        guard let value, !value.isNull else {
            if required { problems.add(pointer, "is required and must be an object") }
            return nil
        }
        guard case .object(let object) = value else {
            problems.add(pointer, "must be an object, not \(value.typeName)")
            return nil
        }
        self.object = object
        self.pointer = pointer
        self.problems = problems
    }

    public func at(_ key: String) -> String { JSONPointer.join(pointer, key) }

    /// The member at `key`, or nil when it is absent or null (a problem when it is `required`).
    func present(_ key: String, required: Bool) -> JSONValue? {
        guard let value = object[key], !value.isNull else {
            if required { problems.add(at(key), "is required") }
            return nil
        }
        return value
    }

    public func has(_ key: String) -> Bool {
        if let v = object[key], !v.isNull { return true }
        return false
    }

    /// Records every member whose name is not in `allowed`: an error when reading for the API; a
    /// warning when reading a document (the member is left out).
    public func rejectUnknownKeys(_ allowed: Set<String>) {
        _ = unknownMembers(allowed, keep: false)
    }

    /// The members whose names are not in `allowed`: errors when reading for the API (and none
    /// returned); when reading a document, returned as they are with a warning each, so nothing a
    /// client may read is lost.
    public func unknownMembers(_ allowed: Set<String>, also: String? = nil, keep: Bool = true) -> [String: JSONValue] {
        func known(_ key: String) -> Bool { key == also || allowed.contains(key) }
        if object.keys.allSatisfy(known) { return [:] }  // the common case, without sorting
        var kept: [String: JSONValue] = [:]
        for key in object.keys.sorted() where !known(key) {
            switch problems.mode {
            case .api: problems.add(at(key), "is not a known field")
            case .document where keep:
                problems.warn(at(key), "is published as it is: Rivers does not model it")
                kept[key] = object[key]
            case .document:
                problems.warn(at(key), "is left out: Rivers has no place for it here")
            }
        }
        return kept
    }

    /// What an object carries beyond the model. Reading a document: its unknown members, kept with
    /// a warning each. Reading an API body: members outside `apiKeys` are errors, and `extra` (an
    /// object whose keys are not in `documentKeys`) holds what is published as it is.
    public func extras(documentKeys: Set<String>, apiKeys: Set<String>) -> [String: JSONValue] {
        if problems.mode == .document { return unknownMembers(documentKeys) }
        rejectUnknownKeys(apiKeys)
        return extraMembers(modelled: documentKeys)
    }

    /// The same, where the API takes the document's keys and `extra` (no set made per object).
    public func extras(documentKeys: Set<String>) -> [String: JSONValue] {
        if problems.mode == .document { return unknownMembers(documentKeys) }
        _ = unknownMembers(documentKeys, also: "extra", keep: false)
        return extraMembers(modelled: documentKeys)
    }

    /// A free-form object of members published as they are beside the modelled ones (`extra`):
    /// none of its keys may be one the model writes itself.
    public func extraMembers(_ key: String = "extra", modelled: Set<String>) -> [String: JSONValue] {
        let extra = freeObject(key)
        for name in extra.keys.sorted() where modelled.contains(name) {
            problems.add(JSONPointer.join(at(key), name), "is a field of its own: set it there, not in \(key)")
        }
        return extra
    }

    /// A string member. `acceptNumber`: reading a document, a number is read as the text a client
    /// sees (documents write feed ids both ways).
    public func string(_ key: String, required: Bool = false, nonEmpty: Bool = false, maxLength: Int = 10_000, acceptNumber: Bool = false) -> String? {
        guard let value = present(key, required: required) else { return nil }
        if acceptNumber, problems.mode == .document, case .number(let n) = value, n.isFinite {
            return JSONValue.number(n).serializedString()
        }
        guard case .string(let s) = value else {
            problems.add(at(key), "must be a string, not \(value.typeName)")
            return nil
        }
        if nonEmpty, s.trimmingWhitespace().isEmpty {
            problems.add(at(key), "must not be empty")
            return nil
        }
        // Lengths count code points, as JSON Schema's maxLength does; utf8.count is O(1), so they
        // are counted only when it could matter.
        if s.utf8.count > maxLength, s.unicodeScalars.count > maxLength {
            problems.add(at(key), "must be at most \(maxLength) characters")
            return nil
        }
        return s
    }

    /// A string matching an identifier pattern such as `[A-Z0-9_]+`.
    public func identifier(_ key: String, required: Bool = false, allowed: (UInt8) -> Bool, describe: String) -> String? {
        guard let s = string(key, required: required) else { return nil }
        if s.isEmpty || s.utf8.count > 100 || !s.utf8.allSatisfy(allowed) {
            problems.add(at(key), "must be \(describe) (got \"\(s)\")")
            return nil
        }
        return s
    }

    /// A number up to `maximum` (by default `Limits.maxInteger`: no number the API takes is larger).
    public func number(
        _ key: String, required: Bool = false, minimum: Double? = nil, exclusiveMinimum: Double? = nil,
        maximum: Double = Double(Limits.maxInteger)
    ) -> Double? {
        guard let value = present(key, required: required) else { return nil }
        var number: Double?
        switch value {
        case .number(let n): number = n
        // Documents write some numbers as strings ("weight": "5").
        case .string(let s) where problems.mode == .document: number = Double(s.trimmingWhitespace())
        default: break
        }
        guard let n = number, n.isFinite else {
            problems.add(at(key), "must be a number, not \(value.typeName)")
            return nil
        }
        if let minimum, n < minimum {
            problems.add(at(key), minimum == 0 ? "must not be negative" : "must be at least \(JSONValue.number(minimum).serializedString())")
            return nil
        }
        if let exclusiveMinimum, n <= exclusiveMinimum {
            problems.add(at(key), "must be greater than \(JSONValue.number(exclusiveMinimum).serializedString())")
            return nil
        }
        if n > maximum {
            problems.add(at(key), "must be at most \(JSONValue.number(maximum).serializedString())")
            return nil
        }
        return n
    }

    /// A whole number; `acceptNumericString` also takes "6", as real documents write item limits.
    /// A whole number from `minimum` to `maximum` (by default `Limits.maxInteger`).
    public func integer(
        _ key: String, required: Bool = false, minimum: Int? = nil, maximum: Int = Limits.maxInteger, acceptNumericString: Bool = false
    ) -> Int? {
        guard let value = present(key, required: required) else { return nil }
        var number: Double?
        switch value {
        case .number(let n): number = n
        case .string(let s) where acceptNumericString:
            let trimmed = s.trimmingWhitespace()
            if trimmed.isEmpty { return nil }
            number = Double(trimmed)
        default: break
        }
        guard let n = number, n.isFinite, n.rounded() == n else {
            problems.add(at(key), "must be a whole number, not \(value.typeName == "number" ? JSONValue.number(value.numberValue ?? 0).serializedString() : String(value.serializedString().prefix(100)))")
            return nil
        }
        // Compared as Doubles, so a huge number never reaches an Int conversion.
        if let minimum, n < Double(minimum) {
            problems.add(at(key), "must be at least \(minimum)")
            return nil
        }
        if n > Double(maximum) {
            problems.add(at(key), "must be at most \(maximum)")
            return nil
        }
        return Int(n)
    }

    public func bool(_ key: String, required: Bool = false) -> Bool? {
        guard let value = present(key, required: required) else { return nil }
        if problems.mode == .document, case .string(let s) = value, s == "true" || s == "false" { return s == "true" }
        guard case .bool(let b) = value else {
            problems.add(at(key), "must be true or false, not \(value.typeName)")
            return nil
        }
        return b
    }

    /// A free-form object (plugin values and the like); `{}` when absent.
    public func freeObject(_ key: String) -> [String: JSONValue] {
        guard let value = object[key], !value.isNull else { return [:] }
        guard case .object(let o) = value else {
            problems.add(at(key), "must be an object, not \(value.typeName)")
            return [:]
        }
        return o
    }

    public func array(_ key: String, required: Bool = false) -> [JSONValue]? {
        guard let value = present(key, required: required) else { return nil }
        guard case .array(let a) = value else {
            problems.add(at(key), "must be an array, not \(value.typeName)")
            return nil
        }
        return a
    }

    /// A list member, each item read by `read` at its pointer; `[]` when absent.
    public func list<T>(_ key: String, _ read: (JSONValue, String) -> T?) -> [T] {
        guard let items = array(key) else { return [] }
        var result: [T] = []
        for (i, item) in items.enumerated() {
            if let value = read(item, JSONPointer.join(at(key), i)) { result.append(value) }
        }
        return result
    }

    /// A non-empty id as given, or when the member is absent `generated` or else a new UUID (ids
    /// are generated for what the caller did not name).
    public func idOrGenerated(_ key: String = "id", generated: String? = nil) -> String? {
        guard has(key) else { return generated ?? UUIDText.random() }
        return string(key, nonEmpty: true)
    }

    public func stringArray(_ key: String, maxCount: Int? = nil) -> [String]? {
        guard let items = array(key) else { return nil }
        if let maxCount, items.count > maxCount {
            problems.add(at(key), "may hold at most \(maxCount) entries (got \(items.count))")
            return nil
        }
        var result: [String] = []
        for (i, item) in items.enumerated() {
            if case .string(let s) = item { result.append(s) } else {
                problems.add(JSONPointer.join(at(key), i), "must be a string, not \(item.typeName)")
            }
        }
        return result
    }

    public func uuid(_ key: String, required: Bool = false) -> String? {
        guard let s = string(key, required: required) else { return nil }
        // Documents write "" for no link.
        if s.isEmpty, !required, problems.mode == .document { return nil }
        guard let normalized = UUIDText.normalize(s) else {
            problems.add(at(key), "must be a UUID (got \"\(s)\")")
            return nil
        }
        return normalized
    }
}

/// Screen ids are UUIDs written in lower case, as real documents write them.
public enum UUIDText {
    public static func normalize(_ text: String) -> String? {
        guard text.utf8.count == 36 else { return nil }
        var hasUpper = false
        for (i, b) in text.utf8.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                if b != UInt8(ascii: "-") { return nil }
            } else if (65...70).contains(b) {
                hasUpper = true
            } else if !((48...57).contains(b) || (97...102).contains(b)) {
                return nil
            }
        }
        return hasUpper ? text.lowercased() : text
    }

    public static func random() -> String {
        var g = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &g) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { b -> String in
            let s = String(b, radix: 16)
            return s.count == 1 ? "0" + s : s
        }.joined()
        let h = Array(hex)
        return String(h[0..<8]) + "-" + String(h[8..<12]) + "-" + String(h[12..<16]) + "-" + String(h[16..<20]) + "-" + String(h[20..<32])
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}

/// Identifier alphabets used across the model.
public enum IdentifierRules {
    /// Family and cell style ids: `FAMILY_1`, `GRID_1`.
    public static func isUpperSnake(_ c: Character) -> Bool {
        c.isASCII && (c.isUppercase || c.isNumber || c == "_")
    }
    /// Component ids, layout ids, component types and plugin identifiers.
    public static func isToken(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "_" || c == "-" || c == ".")
    }

    // The same rules on UTF-8 bytes: identifiers are ASCII, and bytes are much cheaper to check.
    public static func isUpperSnake(_ b: UInt8) -> Bool {
        (65...90).contains(b) || (48...57).contains(b) || b == UInt8(ascii: "_")
    }
    public static func isToken(_ b: UInt8) -> Bool {
        (65...90).contains(b) || (97...122).contains(b) || (48...57).contains(b)
            || b == UInt8(ascii: "_") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
    }
}

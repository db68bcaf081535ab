import Foundation

/// Any JSON value. Free-form parts of the model (styles, general, rules, advertising, …) are kept
/// as JSON because real documents put arbitrary plugin values there.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public static let emptyObject = JSONValue.object([:])

    public var objectValue: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }
    public var numberValue: Double? {
        if case .number(let n) = self { return n }
        return nil
    }
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// The JSON type name used in error messages ("object", "string", …).
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

// MARK: - Codable

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let b = try? container.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? container.decode(Double.self) {
            self = .number(n)
        } else if let s = try? container.decode(String.self) {
            self = .string(s)
        } else if let a = try? container.decode([JSONValue].self) {
            self = .array(a)
        } else if let o = try? container.decode([String: JSONValue].self) {
            self = .object(o)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .number(let n):
            if n.rounded() == n, abs(n) < 1e18, let whole = Int64(exactly: n) { try container.encode(whole) } else { try container.encode(n) }
        case .string(let s): try container.encode(s)
        case .array(let a): try container.encode(a)
        case .object(let o): try container.encode(o)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}

// MARK: - Parsing and writing

public struct JSONParseError: Error, Sendable, CustomStringConvertible {
    public var description: String
    /// Set when the text is well-formed JSON but holds a value no document may hold (a number too
    /// large for a Double, a NUL character): where it is, so the answer can be a 422 at that field.
    public var pointer: String?
}

extension JSONValue {
    /// Parses a complete JSON text. Errors give the line and column, in words a user can act on.
    public static func parse(_ data: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        var parser = JSONTextParser(bytes: Array(data))
        JSONWork.count?.parsed(parser.bytes.count)
        return try parser.parseDocument()
    }

    /// Compact JSON with object keys sorted: the same value always gives the same bytes.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(to: &out)
        JSONWork.count?.serialized(out.count)
        return out
    }

    public func serializedString() -> String {
        String(decoding: serialized(), as: UTF8.self)
    }

    public func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): JSONValue.writeNumber(n, to: &out)
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                v.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            for (i, member) in o.sorted(by: { $0.key < $1.key }).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.writeString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                member.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Whole numbers are written without a fraction or an exponent below 1e21 (as JavaScript
    /// writes them: `1e15` is `1000000000000000`, never `1000000000000000.0` or `1e+15`), so
    /// that a client reading an integer reads one; others in the shortest form that reads back
    /// the same. Numbers are IEEE doubles: a whole number beyond 2^53 keeps its nearest double's
    /// digits (12345678901234567891 is written 12345678901234567000), as JavaScript reads it.
    public static func writeNumber(_ n: Double, to out: inout [UInt8]) {
        if n.rounded() == n, abs(n) < 1e15 {
            // Whole numbers digit by digit: no String in between.
            var v = Int64(n)
            if v < 0 { out.append(UInt8(ascii: "-")); v = -v }
            if v < 10 { out.append(48 + UInt8(v)); return }
            var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            var count = 0
            withUnsafeMutableBytes(of: &digits) { buffer in
                while v > 0 {
                    buffer[count] = 48 + UInt8(v % 10)
                    v /= 10
                    count += 1
                }
                for i in stride(from: count - 1, through: 0, by: -1) { out.append(buffer[i]) }
            }
        } else if n.isFinite {
            let text = "\(n)"
            if n.rounded() == n, abs(n) < 1e21, let whole = wholeForm(text) {
                out.append(contentsOf: whole)
            } else {
                out.append(contentsOf: text.utf8)
            }
        } else {
            out.append(contentsOf: "null".utf8)
        }
    }

    /// A whole number's shortest text (`1234567890123456.0`, `1.2345678901234567e+19`) in integer
    /// form (`12345678901234567000`); nil for text of another shape.
    static func wholeForm(_ text: String) -> [UInt8]? {
        var bytes = Array(text.utf8)
        var result: [UInt8] = []
        if bytes.first == UInt8(ascii: "-") {
            result.append(UInt8(ascii: "-"))
            bytes.removeFirst()
        }
        var exponent = 0
        if let e = bytes.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            guard let value = Int(String(decoding: bytes[(e + 1)...], as: UTF8.self)), abs(value) <= 400 else { return nil }
            exponent = value
            bytes.removeSubrange(e...)
        }
        var digits: [UInt8] = []
        var fractionDigits = 0, seenPoint = false
        for byte in bytes {
            if byte == UInt8(ascii: "."), !seenPoint {
                seenPoint = true
                continue
            }
            guard (48...57).contains(byte) else { return nil }
            digits.append(byte)
            if seenPoint { fractionDigits += 1 }
        }
        // The value is digits × 10^(exponent − fractionDigits); a whole one's fraction is zeros.
        var zeros = exponent - fractionDigits
        while zeros < 0, digits.last == UInt8(ascii: "0") {
            digits.removeLast()
            zeros += 1
        }
        guard zeros >= 0, zeros <= 21, !digits.isEmpty else { return nil }
        while digits.count > 1, digits.first == UInt8(ascii: "0") { digits.removeFirst() }
        result.append(contentsOf: digits)
        result.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: zeros))
        return result
    }

    public static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings need no escaping: copy them whole, scanned and copied as the buffer they
        // are (a scan through the UTF-8 view took a tenth of the document writer's time).
        let copied = s.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            for b in bytes where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if copied == true {
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [92, 34])
            case UInt8(ascii: "\\"): out.append(contentsOf: [92, 92])
            case 0x0A: out.append(contentsOf: [92, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [92, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [92, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [92, UInt8(ascii: "u"), 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

// MARK: - JSON merge patch (RFC 7386)

extension JSONValue {
    /// Applies `patch` as a JSON merge patch: objects merge key by key, `null` removes a key,
    /// anything else replaces the target.
    public func mergePatched(with patch: JSONValue) -> JSONValue {
        guard case .object(let patchObject) = patch else { return patch }
        var result = objectValue ?? [:]
        for (key, value) in patchObject {
            if value.isNull {
                result.removeValue(forKey: key)
            } else {
                result[key] = (result[key] ?? .null).mergePatched(with: value)
            }
        }
        return .object(result)
    }
}

/// The members of a JSON merge patch (RFC 7396) of one resource, as a typed read over the
/// resource takes them (`Family.read(mergePatch:onto:)`, `LayoutTemplate.read(mergePatch:…)`).
enum MergePatch {
    /// The patch's members: the id kept (a patch cannot change it: `/id`), the read-only members
    /// dropped, a `null` for a member the model does not have dropped (it removes nothing), and
    /// each object merged onto `kept(key)`, the base's member as JSON (nil: an object merged onto
    /// anything else, that is, onto nothing). Nil, with the problem, when the patch is not an
    /// object or changes the id.
    static func members(
        _ patch: JSONValue, id: String, keys: Set<String>, problems: Problems, kept: (String) -> JSONValue?
    ) -> [String: JSONValue]? {
        guard case .object(var members) = patch else {
            problems.add("", "a merge patch must be a JSON object, not \(patch.typeName)")
            return nil
        }
        if let given = members["id"], !given.isNull, given.stringValue != id {
            problems.add("/id", "cannot be changed (this is \(id))")
            return nil
        }
        members["id"] = .string(id)
        for key in ["revision", "created_at", "updated_at"] { members[key] = nil }
        members = members.filter { !$0.value.isNull || keys.contains($0.key) }
        for (key, value) in members {
            guard case .object = value else { continue }
            members[key] = (kept(key) ?? .object([:])).mergePatched(with: value)
        }
        return members
    }
}

// MARK: - JSON pointers

public enum JSONPointer {
    /// Escapes one reference token (RFC 6901): `~` → `~0`, `/` → `~1`.
    public static func escape(_ token: String) -> String {
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return token }
        return token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    public static func join(_ base: String, _ token: String) -> String {
        base + "/" + escape(token)
    }

    public static func join(_ base: String, _ index: Int) -> String {
        base + "/" + String(index)
    }
}

/// The JSON texts parsed and written in a task, when a test asks (issue 26: a write of a screen
/// parses its body once and writes its stored form once, and a test counts them). Nil, and
/// nothing counted, otherwise.
public enum JSONWork {
    @TaskLocal public static var count: JSONWorkCount?
}

/// Bytes of each text parsed (`JSONValue.parse`) and written (`JSONValue.serialized`), in order.
public final class JSONWorkCount: @unchecked Sendable {
    private let lock = NSLock()
    private var parsedBytes: [Int] = []
    private var writtenBytes: [Int] = []
    private var trees = 0

    public init() {}

    /// How many times a whole screen was made into a tree (`Screen.json`): a write makes none.
    public var screenTrees: Int { lock.withLock { trees } }

    public var parses: [Int] { lock.withLock { parsedBytes } }
    public var serializations: [Int] { lock.withLock { writtenBytes } }

    public func reset() { lock.withLock { parsedBytes = []; writtenBytes = []; trees = 0 } }

    func parsed(_ bytes: Int) { lock.withLock { parsedBytes.append(bytes) } }
    func serialized(_ bytes: Int) { lock.withLock { writtenBytes.append(bytes) } }
    func madeScreenTree() { lock.withLock { trees += 1 } }
}

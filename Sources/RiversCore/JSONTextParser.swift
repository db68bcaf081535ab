/// A strict RFC 8259 parser over bytes. Written by hand so that errors name the line and column
/// and so that numbers and booleans never get confused (Foundation's bridging blurs them on Linux).
/// It refuses what no stored document may hold: invalid UTF-8 and nesting past
/// `Limits.maxJSONDepth` (malformed), and, at their JSON pointer, numbers too large for a Double
/// and NUL characters (PostgreSQL cannot store them).
struct JSONTextParser {
    let bytes: [UInt8]
    var index = 0
    var depth = 0
    static let maxDepth = Limits.maxJSONDepth

    /// Where the parser is, kept only so that a refused value can be named by its pointer.
    enum PathStep {
        case key(String)
        case index(Int)
    }
    var path: [PathStep] = []
    /// Whether the last string read had a `\u0000` escape.
    var stringHadNUL = false

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        if index >= bytes.count { throw error("the body is empty") }
        let value = try parseValue()
        skipWhitespace()
        if index < bytes.count { throw error("unexpected text after the JSON value") }
        return value
    }

    func error(_ message: String) -> JSONParseError {
        var line = 1, column = 1
        for b in bytes[0..<min(index, bytes.count)] {
            if b == 0x0A { line += 1; column = 1 } else { column += 1 }
        }
        return JSONParseError(description: "Invalid JSON at line \(line), column \(column): \(message)")
    }

    /// A well-formed value that is refused, at its pointer (`key` names a refused member name).
    func refused(_ message: String, key: String? = nil) -> JSONParseError {
        var pointer = ""
        for step in path {
            switch step {
            case .key(let k): pointer = JSONPointer.join(pointer, k)
            case .index(let i): pointer = JSONPointer.join(pointer, i)
            }
        }
        if let key { pointer = JSONPointer.join(pointer, key) }
        return JSONParseError(description: message, pointer: pointer)
    }

    mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""):
            let s = try parseString()
            if stringHadNUL { throw refused("must not contain a NUL character (\\u0000)") }
            return .string(s)
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected character '\(Character(Unicode.Scalar(bytes[index])))'")
        }
    }

    /// `true`, `false` or `null` at `index` (compared in place: no arrays made per value).
    mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let count = word.utf8CodeUnitCount
        let start = index
        let matches = word.withUTF8Buffer { w in
            start + count <= bytes.count && (0..<count).allSatisfy { bytes[start + $0] == w[$0] }
        }
        guard matches else { throw error("unexpected character '\(Character(Unicode.Scalar(bytes[index])))'") }
        index += count
    }

    mutating func parseObject() throws(JSONParseError) -> JSONValue {
        depth += 1
        if depth > Self.maxDepth { throw error("nested more than \(Self.maxDepth) levels deep") }
        defer { depth -= 1 }
        index += 1
        var object: [String: JSONValue] = [:]
        object.reserveCapacity(8)
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(object) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a quoted key") }
            let key = try parseString()
            if stringHadNUL { throw refused("a member name must not contain a NUL character (\\u0000)", key: key) }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after a key") }
            index += 1
            skipWhitespace()
            path.append(.key(key))
            let value = try parseValue()
            path.removeLast()
            if object.updateValue(value, forKey: key) != nil { throw error("duplicate key \"\(key)\"") }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(object) }
            throw error("expected ',' or '}' in an object")
        }
    }

    mutating func parseArray() throws(JSONParseError) -> JSONValue {
        depth += 1
        if depth > Self.maxDepth { throw error("nested more than \(Self.maxDepth) levels deep") }
        defer { depth -= 1 }
        index += 1
        var array: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(array) }
        while true {
            skipWhitespace()
            // A long array is sized once for the rest of its elements (counted by a scan of its
            // text), not grown by doubling: at its last doubling, a growing array holds its old
            // buffer and one twice its size, over three times what it needs.
            if array.count == Self.countingFrom { array.reserveCapacity(array.count + elementsAhead()) }
            path.append(.index(array.count))
            array.append(try parseValue())
            path.removeLast()
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(array) }
            throw error("expected ',' or ']' in an array")
        }
    }

    /// Elements an array has when its buffer is sized from a scan of the rest of it.
    static let countingFrom = 1024

    /// How many elements the array being parsed has from `index` (at an element) to its `]`: its
    /// commas at its own level, outside strings, plus one. A scan, no values made; on malformed
    /// text it is only an estimate (the parse then fails), never more than the bytes left.
    func elementsAhead() -> Int {
        var i = index
        var level = 0
        var commas = 0
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "\""):
                i += 1
                while i < bytes.count, bytes[i] != UInt8(ascii: "\"") {
                    if bytes[i] == UInt8(ascii: "\\") { i += 1 }
                    i += 1
                }
            case UInt8(ascii: "["), UInt8(ascii: "{"): level += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                if level == 0 { return commas + 1 }
                level -= 1
            case UInt8(ascii: ","): if level == 0 { commas += 1 }
            default: break
            }
            i += 1
        }
        return commas + 1
    }

    mutating func parseNumber() throws(JSONParseError) -> Double {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
        if bytes[index] == 48 {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = asciiString(start, index)
        guard let value = Double(text) else { throw error("invalid number") }
        guard value.isFinite else { throw refused("\(text) is too large a number") }
        return value
    }

    /// The bytes from `start` to `end` as a string; nil when they are not UTF-8. ASCII (`ascii`:
    /// no byte of 0x80 or above, known from the scan) needs no check. Made from the buffer, not
    /// from a slice of the array: for a slice the runtime looked up generic metadata on every
    /// string (a tenth of the time reading stored screens took).
    func string(_ start: Int, _ end: Int, ascii: Bool) -> String? {
        if ascii { return asciiString(start, end) }
        return bytes.withUnsafeBufferPointer { String(validating: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self) }
    }

    /// Bytes known to be ASCII (a number, a string scanned without a byte of 0x80 or above).
    func asciiString(_ start: Int, _ end: Int) -> String {
        bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self) }
    }

    mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        stringHadNUL = false
        // Most strings have no escapes: find the closing quote and take the bytes whole.
        var end = index
        var ascii = true
        while end < bytes.count {
            let b = bytes[end]
            if b == UInt8(ascii: "\"") {
                guard let text = string(index, end, ascii: ascii) else { throw invalidUTF8(from: index) }
                index = end + 1
                return text
            }
            if b == UInt8(ascii: "\\") || b < 0x20 { break }
            if b >= 0x80 { ascii = false }
            end += 1
        }
        var scalars = String.UnicodeScalarView()
        var runStart = index
        var result = ""
        func flush(_ end: Int) throws(JSONParseError) {
            guard end > runStart else { return }
            guard let run = string(runStart, end, ascii: false) else { throw invalidUTF8(from: runStart) }
            result += run
        }
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                try flush(index)
                index += 1
                return result
            }
            if b < 0x20 { throw error("control character in a string") }
            if b == UInt8(ascii: "\\") {
                try flush(index)
                index += 1
                guard index < bytes.count else { break }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): result += "\""
                case UInt8(ascii: "\\"): result += "\\"
                case UInt8(ascii: "/"): result += "/"
                case UInt8(ascii: "b"): result += "\u{08}"
                case UInt8(ascii: "f"): result += "\u{0C}"
                case UInt8(ascii: "n"): result += "\n"
                case UInt8(ascii: "r"): result += "\r"
                case UInt8(ascii: "t"): result += "\t"
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800...0xDBFF).contains(code) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw error("unpaired surrogate in a string")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in a string") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                    if code == 0 { stringHadNUL = true }
                    scalars.removeAll()
                    scalars.append(scalar)
                    result += String(scalars)
                default: throw error("invalid escape in a string")
                }
                runStart = index
                continue
            }
            index += 1
        }
        throw error("unterminated string")
    }

    /// The string starting at `start` is not UTF-8: said at the string's start, found in one pass.
    mutating func invalidUTF8(from start: Int) -> JSONParseError {
        index = start
        return error("a string is not valid UTF-8")
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("invalid \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let d: UInt32
            switch b {
            case 48...57: d = UInt32(b - 48)
            case 65...70: d = UInt32(b - 55)
            case 97...102: d = UInt32(b - 87)
            default: throw error("invalid \\u escape")
            }
            v = v * 16 + d
            index += 1
        }
        return v
    }
}

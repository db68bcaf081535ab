/// One problem with a request body or a stored document, located by a JSON pointer (RFC 6901)
/// into the document it concerns, e.g. `/ui_components/2/cell_styles/0`.
public struct FieldError: Sendable, Hashable, Codable, CustomStringConvertible {
    public var pointer: String
    public var message: String

    public init(_ pointer: String, _ message: String) {
        self.pointer = pointer
        self.message = message
    }

    public var description: String { "\(pointer.isEmpty ? "/" : pointer): \(message)" }
}

/// Thrown when a document breaks one or more rules; carries every problem found, not just the first.
/// At most `Limits.maxProblems` are carried; `count` is how many were found in all.
public struct ValidationFailure: Error, Sendable, CustomStringConvertible {
    public var errors: [FieldError]
    public var count: Int
    public init(_ errors: [FieldError], count: Int? = nil) {
        self.errors = Array(errors.prefix(Limits.maxProblems))
        self.count = max(count ?? errors.count, self.errors.count)
    }
    public var description: String { errors.map(\.description).joined(separator: "; ") }
}

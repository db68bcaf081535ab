/// A length at a family's reference size: **scalable** (multiplied by the family's factor `m` on a
/// device) unless **fixed** (the same number of points everywhere), as in Plastic's reference-size
/// layouts. JSON: a number is scalable, `{"fixed": 12}` is fixed.
public struct Length: Sendable, Hashable {
    public var value: Double
    public var fixed: Bool

    public init(_ value: Double, fixed: Bool = false) {
        self.value = value
        self.fixed = fixed
    }

    public static func fixed(_ value: Double) -> Length { Length(value, fixed: true) }
    public static let zero = Length(0)

    /// The length on a device whose scale factor is `m`.
    @inline(__always)
    public func resolved(_ m: Double) -> Double { fixed ? value : value * m }

    public var json: JSONValue { fixed ? ["fixed": .number(value)] : .number(value) }
}

extension Length: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    public init(integerLiteral value: Int) { self.init(Double(value)) }
    public init(floatLiteral value: Double) { self.init(value) }
}

extension Length: Codable {
    enum CodingKeys: String, CodingKey { case fixed }

    public init(from decoder: any Decoder) throws {
        if let c = try? decoder.singleValueContainer(), let v = try? c.decode(Double.self) {
            self.init(v)
            return
        }
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(try c.decode(Double.self, forKey: .fixed), fixed: true)
    }

    public func encode(to encoder: any Encoder) throws {
        if fixed {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(value, forKey: .fixed)
        } else {
            var c = encoder.singleValueContainer()
            try c.encode(value)
        }
    }
}

extension ObjectReader {
    /// A length member: a number (scalable) or `{"fixed": n}`, from `minimum` (0 unless given; an
    /// offset passes `-Limits.maxLength`) to `maximum`.
    public func length(
        _ key: String, required: Bool = false, minimum: Double = 0, exclusiveMinimum: Double? = nil,
        maximum: Double = Limits.maxLength
    ) -> Length? {
        guard let value = present(key, required: required) else { return nil }
        if case .object = value {
            guard let inner = ObjectReader(value, at: at(key), problems: problems) else { return nil }
            inner.rejectUnknownKeys(["fixed"])
            guard inner.has("fixed") else {
                problems.add(at(key), "a length is a number (scalable) or {\"fixed\": points}")
                return nil
            }
            return inner.number("fixed", minimum: exclusiveMinimum == nil ? minimum : nil, exclusiveMinimum: exclusiveMinimum, maximum: maximum).map(Length.fixed)
        }
        guard case .number = value else {
            problems.add(at(key), "a length is a number (scalable) or {\"fixed\": points}, not \(value.typeName)")
            return nil
        }
        return number(key, minimum: exclusiveMinimum == nil ? minimum : nil, exclusiveMinimum: exclusiveMinimum, maximum: maximum).map { Length($0) }
    }
}

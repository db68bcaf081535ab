/// What is inside a cell: a small tree of stacks, overlays, images, texts and spacers (a
/// declarative stack layout in the spirit of SwiftUI and ZKit), with lengths at the family's
/// reference size (`Length`: scalable or fixed). The layout engine (RiversLayout) lays it out;
/// `docs/cell-content.md` is the user's reference. Content belongs to the family and is never
/// written into `rivers.json`.
public struct ContentNode: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case stack(Stack)
        case overlay
        case image(Image)
        case text(Text)
        case spacer

        public var name: String {
            switch self {
            case .stack: "stack"
            case .overlay: "overlay"
            case .image: "image"
            case .text: "text"
            case .spacer: "spacer"
            }
        }
    }

    public enum Axis: String, Sendable, Hashable, CaseIterable { case vertical, horizontal }
    /// How a stack's children sit across its axis.
    public enum StackAlignment: String, Sendable, Hashable, CaseIterable { case leading, center, trailing, fill }
    /// How the space along a stack's axis is shared (see docs/cell-content.md).
    public enum Distribution: String, Sendable, Hashable, CaseIterable { case fill, equal, leading }
    /// Where a node sits in the space its parent gives it.
    public enum Alignment: String, Sendable, Hashable, CaseIterable {
        case topLeading = "top_leading", top, topTrailing = "top_trailing"
        case leading, center, trailing
        case bottomLeading = "bottom_leading", bottom, bottomTrailing = "bottom_trailing"

        /// −1 (leading), 0 (centre) or 1 (trailing) across x.
        public var horizontal: Int {
            switch self {
            case .topLeading, .leading, .bottomLeading: -1
            case .top, .center, .bottom: 0
            case .topTrailing, .trailing, .bottomTrailing: 1
            }
        }
        /// −1 (top), 0 (centre) or 1 (bottom) across y.
        public var vertical: Int {
            switch self {
            case .topLeading, .top, .topTrailing: -1
            case .leading, .center, .trailing: 0
            case .bottomLeading, .bottom, .bottomTrailing: 1
            }
        }
    }
    public enum Placeholder: String, Sendable, Hashable, CaseIterable { case image, poster, avatar, logo }
    public enum TextRole: String, Sendable, Hashable, CaseIterable { case title, subtitle, body, caption, badge, label }

    public struct Stack: Sendable, Hashable {
        public var axis: Axis
        public var spacing: Length
        public var alignment: StackAlignment
        public var distribution: Distribution
        public init(axis: Axis, spacing: Length = .zero, alignment: StackAlignment = .fill, distribution: Distribution = .fill) {
            self.axis = axis
            self.spacing = spacing
            self.alignment = alignment
            self.distribution = distribution
        }
    }

    /// Width ÷ height, kept as written: `"16:9"` (exact: height = width × 9 ÷ 16) or a number.
    public struct AspectRatio: Sendable, Hashable {
        public var width: Double
        public var height: Double
        public var asText: Bool
        public init(width: Double, height: Double) {
            self.width = width
            self.height = height
            self.asText = true
        }
        public init(_ ratio: Double) {
            self.width = ratio
            self.height = 1
            self.asText = false
        }
        @inline(__always) public func height(forWidth w: Double) -> Double { height == 1 ? w / width : w * height / width }
        @inline(__always) public func width(forHeight h: Double) -> Double { height == 1 ? h * width : h * width / height }
        public var json: JSONValue {
            asText ? .string("\(JSONValue.number(width).serializedString()):\(JSONValue.number(height).serializedString())") : .number(width)
        }
    }

    public struct Image: Sendable, Hashable {
        public var aspectRatio: AspectRatio?
        public var placeholder: Placeholder
        public init(aspectRatio: AspectRatio? = nil, placeholder: Placeholder = .image) {
            self.aspectRatio = aspectRatio
            self.placeholder = placeholder
        }
    }

    public struct Text: Sendable, Hashable {
        public var role: TextRole
        public var fontSize: Length
        /// nil: 1.2 × the font size.
        public var lineHeight: Length?
        public var maxLines: Int
        public init(role: TextRole = .body, fontSize: Length = 14, lineHeight: Length? = nil, maxLines: Int = 1) {
            self.role = role
            self.fontSize = fontSize
            self.lineHeight = lineHeight
            self.maxLines = maxLines
        }
        public var effectiveLineHeight: Length { lineHeight ?? Length(fontSize.value * 1.2, fixed: fontSize.fixed) }
    }

    /// Space inside a node, edge by edge: the same four lengths as a family's insets.
    public typealias Padding = Insets

    public struct Frame: Sendable, Hashable {
        public var width: Length?, height: Length?
        public var minWidth: Length?, maxWidth: Length?, minHeight: Length?, maxHeight: Length?
        public init(width: Length? = nil, height: Length? = nil, minWidth: Length? = nil, maxWidth: Length? = nil, minHeight: Length? = nil, maxHeight: Length? = nil) {
            self.width = width
            self.height = height
            self.minWidth = minWidth
            self.maxWidth = maxWidth
            self.minHeight = minHeight
            self.maxHeight = maxHeight
        }
        public var isEmpty: Bool { self == Frame() }
    }

    public struct Offset: Sendable, Hashable {
        public var x: Length, y: Length
        public init(x: Length = .zero, y: Length = .zero) {
            self.x = x
            self.y = y
        }
    }

    public var kind: Kind
    public var children: [ContentNode]
    public var padding: Padding
    public var frame: Frame
    public var align: Alignment?
    public var offset: Offset?

    public init(_ kind: Kind, children: [ContentNode] = [], padding: Padding = Padding(), frame: Frame = Frame(), align: Alignment? = nil, offset: Offset? = nil) {
        self.kind = kind
        self.children = children
        self.padding = padding
        self.frame = frame
        self.align = align
        self.offset = offset
    }

    /// Nodes in the tree, this one included.
    public var nodeCount: Int { children.reduce(1) { $0 + $1.nodeCount } }
}

// MARK: - Reading and writing

extension ContentNode {
    /// A content tree is at most this deep (the root is level 1) …
    public static let maxDepth = 8
    /// … and holds at most this many nodes.
    public static let maxNodes = 64
    /// A text node draws at most this many lines.
    public static let maxLines = 20

    static let commonKeys: Set<String> = ["kind", "padding", "frame", "align", "offset"]
    static let keysByKind: [String: Set<String>] = [
        "stack": commonKeys.union(["axis", "spacing", "alignment", "distribution", "children"]),
        "overlay": commonKeys.union(["children"]),
        "image": commonKeys.union(["aspect_ratio", "placeholder"]),
        "text": commonKeys.union(["role", "font_size", "line_height", "max_lines"]),
        "spacer": commonKeys,
    ]

    /// Reads a content tree; every problem goes to `problems` at its pointer.
    public static func read(_ json: JSONValue, at pointer: String, problems: Problems) -> ContentNode? {
        var budget = maxNodes
        let node = read(json, at: pointer, depth: 1, budget: &budget, problems: problems)
        return problems.isEmpty ? node : nil
    }

    static func read(_ json: JSONValue, at pointer: String, depth: Int, budget: inout Int, problems: Problems) -> ContentNode? {
        // Every entry counts against the budget, objects or not, so a long list of anything stops
        // being read at the budget.
        budget -= 1
        if budget < 0 {
            problems.add(pointer, "content holds at most \(maxNodes) nodes")
            return nil
        }
        guard let r = ObjectReader(json, at: pointer, problems: problems) else { return nil }
        if depth > maxDepth {
            problems.add(pointer, "content is at most \(maxDepth) levels deep")
            return nil
        }
        guard let kindName = r.string("kind", required: true, maxLength: 100) else { return nil }
        guard let keys = keysByKind[kindName] else {
            problems.add(r.at("kind"), "\"\(kindName.prefix(100))\" is not a kind of node; the kinds are stack, overlay, image, text and spacer")
            return nil
        }
        r.rejectUnknownKeys(keys)

        func choice<T: RawRepresentable & CaseIterable>(_ key: String, _ type: T.Type) -> T? where T.RawValue == String {
            guard let text = r.string(key, maxLength: 100) else { return nil }
            guard let value = T(rawValue: text) else {
                problems.add(r.at(key), "is one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
                return nil
            }
            return value
        }

        let kind: Kind
        switch kindName {
        case "stack":
            let axis = choice("axis", Axis.self)
            if !r.has("axis") { problems.add(r.at("axis"), "is required: vertical or horizontal") }
            kind = .stack(Stack(
                axis: axis ?? .vertical, spacing: r.length("spacing") ?? .zero,
                alignment: choice("alignment", StackAlignment.self) ?? .fill,
                distribution: choice("distribution", Distribution.self) ?? .fill))
        case "overlay": kind = .overlay
        case "image":
            var ratio: AspectRatio?
            if let value = r.object["aspect_ratio"], !value.isNull {
                ratio = readAspectRatio(value, at: r.at("aspect_ratio"), problems: problems)
            }
            if !r.has("aspect_ratio") && !(r.object["frame"]?.objectValue?["height"].map { !$0.isNull } ?? false) {
                problems.add(pointer, "an image needs an aspect_ratio or a frame height")
            }
            kind = .image(Image(aspectRatio: ratio, placeholder: choice("placeholder", Placeholder.self) ?? .image))
        case "text":
            kind = .text(Text(
                role: choice("role", TextRole.self) ?? .body,
                fontSize: r.length("font_size", exclusiveMinimum: 0, maximum: 1000) ?? 14,
                lineHeight: r.length("line_height", exclusiveMinimum: 0, maximum: 1000),
                maxLines: r.integer("max_lines", minimum: 1, maximum: maxLines) ?? 1))
        default: kind = .spacer
        }

        var padding = Padding()
        if let value = r.object["padding"], !value.isNull {
            // `{"fixed": 8}` is one fixed length for all sides; other objects give the sides.
            if case .object(let o) = value, o["fixed"] == nil, let p = ObjectReader(value, at: r.at("padding"), problems: problems) {
                p.rejectUnknownKeys(["top", "left", "bottom", "right"])
                padding = Padding(top: p.length("top") ?? .zero, left: p.length("left") ?? .zero, bottom: p.length("bottom") ?? .zero, right: p.length("right") ?? .zero)
            } else if let all = r.length("padding") {
                padding = Padding(all: all)
            }
        }
        var frame = Frame()
        if let f = ObjectReader(r.object["frame"], at: r.at("frame"), problems: problems, required: false) {
            f.rejectUnknownKeys(["width", "height", "min_width", "max_width", "min_height", "max_height"])
            frame = Frame(
                width: f.length("width"), height: f.length("height"), minWidth: f.length("min_width"),
                maxWidth: f.length("max_width"), minHeight: f.length("min_height"), maxHeight: f.length("max_height"))
            if let lo = frame.minWidth, let hi = frame.maxWidth, lo.value > hi.value, lo.fixed == hi.fixed {
                problems.add(f.at("max_width"), "is less than min_width")
            }
            if let lo = frame.minHeight, let hi = frame.maxHeight, lo.value > hi.value, lo.fixed == hi.fixed {
                problems.add(f.at("max_height"), "is less than min_height")
            }
        }
        var offset: Offset?
        if let o = ObjectReader(r.object["offset"], at: r.at("offset"), problems: problems, required: false) {
            o.rejectUnknownKeys(["x", "y"])
            offset = Offset(x: o.length("x", minimum: -Limits.maxLength) ?? .zero, y: o.length("y", minimum: -Limits.maxLength) ?? .zero)
        }

        var children: [ContentNode] = []
        if keys.contains("children") {
            let list = r.array("children") ?? []
            for (index, child) in list.enumerated() {
                if budget <= 0 {
                    problems.add(JSONPointer.join(r.at("children"), index), "content holds at most \(maxNodes) nodes")
                    break
                }
                if let node = read(child, at: JSONPointer.join(r.at("children"), index), depth: depth + 1, budget: &budget, problems: problems) {
                    children.append(node)
                }
            }
        }
        return ContentNode(kind, children: children, padding: padding, frame: frame, align: choice("align", Alignment.self), offset: offset)
    }

    /// `"16:9"` or a number (width ÷ height), within `Limits.aspectRatioRange`.
    static func readAspectRatio(_ value: JSONValue, at pointer: String, problems: Problems) -> AspectRatio? {
        let range = Limits.aspectRatioRange
        let describe = "an aspect ratio is width ÷ height: a number from \(fmt(range.lowerBound)) to \(fmt(range.upperBound)) or a text like \"16:9\""
        switch value {
        case .number(let n) where n.isFinite && range.contains(n):
            return AspectRatio(n)
        case .string(let s):
            let parts = s.split(separator: ":", omittingEmptySubsequences: false)
            if parts.count == 2, s.count <= 40, let w = Double(parts[0]), let h = Double(parts[1]), w.isFinite, h.isFinite, w > 0, h > 0,
                w <= Limits.maxLength, h <= Limits.maxLength, range.contains(w / h)
            {
                return AspectRatio(width: w, height: h)
            }
        default: break
        }
        problems.add(pointer, describe)
        return nil
    }

    /// The tree as the API shows it and stores it.
    public var json: JSONValue {
        var o: [String: JSONValue] = ["kind": .string(kind.name)]
        switch kind {
        case .stack(let s):
            o["axis"] = .string(s.axis.rawValue)
            o["spacing"] = s.spacing.json
            o["alignment"] = .string(s.alignment.rawValue)
            o["distribution"] = .string(s.distribution.rawValue)
        case .overlay: break
        case .image(let i):
            if let ratio = i.aspectRatio { o["aspect_ratio"] = ratio.json }
            o["placeholder"] = .string(i.placeholder.rawValue)
        case .text(let t):
            o["role"] = .string(t.role.rawValue)
            o["font_size"] = t.fontSize.json
            if let lh = t.lineHeight { o["line_height"] = lh.json }
            o["max_lines"] = .number(Double(t.maxLines))
        case .spacer: break
        }
        if case .stack = kind { o["children"] = .array(children.map(\.json)) }
        if case .overlay = kind { o["children"] = .array(children.map(\.json)) }
        if !padding.isZero {
            let p = padding
            o["padding"] = p.top == p.left && p.left == p.bottom && p.bottom == p.right
                ? p.top.json
                : ["top": p.top.json, "left": p.left.json, "bottom": p.bottom.json, "right": p.right.json]
        }
        if !frame.isEmpty {
            var f: [String: JSONValue] = [:]
            f["width"] = frame.width?.json
            f["height"] = frame.height?.json
            f["min_width"] = frame.minWidth?.json
            f["max_width"] = frame.maxWidth?.json
            f["min_height"] = frame.minHeight?.json
            f["max_height"] = frame.maxHeight?.json
            o["frame"] = .object(f)
        }
        if let align { o["align"] = .string(align.rawValue) }
        if let offset { o["offset"] = ["x": offset.x.json, "y": offset.y.json] }
        return .object(o)
    }
}

extension ContentNode: Codable {
    public init(from decoder: any Decoder) throws {
        let json = try JSONValue(from: decoder)
        let problems = Problems()
        guard let node = ContentNode.read(json, at: "", problems: problems) else {
            let first = problems.errors.first.map { "\($0.pointer): \($0.message)" } ?? "not a content node"
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: first))
        }
        self = node
    }

    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}

import RiversCore

// The result of a layout: frames in points, in the screen's coordinate space (origin at the top left
// of the scrollable content, y downwards). Encodes to JSON with exactly these snake_case keys;
// optional frames are written as `null`, never left out.

/// A rectangle in points. In a layout's output its edges are multiples of 1/scale (the engine's
/// frames before `PixelGrid`, and a content plan's, are not rounded yet).
public struct LayoutFrame: Sendable, Hashable, Codable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
}

/// A size in points: the domain's own (`{"width", "height"}` in JSON).
public typealias LayoutSize = Size

/// Something the preview wants the editor to know; never an error.
public struct LayoutWarning: Sendable, Hashable, Codable {
    /// Where the component concerned is: the indices from the screen's top level down, through
    /// the groups it is in (`[2, 0]`: the first child of the third component), so that a warning
    /// about a group's child is not taken for one about the top-level component of the same
    /// index; nil (JSON `null`) for the screen as a whole.
    public var componentPath: [Int]?
    public var message: String

    /// The component's index among its siblings (a group's children are numbered from 0 in the
    /// group, as their sections are): the last of its path.
    public var componentIndex: Int? { componentPath?.last }

    /// `componentPath` defaults to a top-level component's (`[componentIndex]`).
    public init(componentIndex: Int?, componentPath: [Int]? = nil, message: String) {
        self.componentPath = componentPath ?? componentIndex.map { [$0] }
        self.message = message
    }

    enum CodingKeys: String, CodingKey {
        case componentIndex = "component_index"
        case componentPath = "component_path"
        case message
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        componentPath = try c.decodeIfPresent([Int].self, forKey: .componentPath)
            ?? c.decodeIfPresent(Int.self, forKey: .componentIndex).map { [$0] }
        message = try c.decode(String.self, forKey: .message)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(componentIndex, forKey: .componentIndex)  // null for the screen
        try c.encode(componentPath, forKey: .componentPath)
        try c.encode(message, forKey: .message)
    }
}

/// One cell.
public struct ItemLayout: Sendable, Hashable {
    /// The item's index in its component.
    public var index: Int
    /// The id of the cell style it uses.
    public var cellStyle: String
    public var frame: LayoutFrame
    /// What its style's content nodes are (shared by every cell of the style); nil without content.
    public var contentNodes: ContentNodeList?
    /// Where its content's frames start in its section's `contentFrames` (one per node).
    public var contentStart: Int

    public init(index: Int, cellStyle: String, frame: LayoutFrame, contentNodes: ContentNodeList? = nil, contentStart: Int = 0) {
        self.index = index
        self.cellStyle = cellStyle
        self.frame = frame
        self.contentNodes = contentNodes
        self.contentStart = contentStart
    }

    /// The range of its content's frames in its section's `contentFrames`.
    public var contentRange: Range<Int> { contentStart..<(contentStart + (contentNodes?.nodes.count ?? 0)) }

    enum CodingKeys: String, CodingKey {
        case index
        case cellStyle = "cell_style"
        case frame
        case content
    }
}

/// A cell as JSON: its members and, when its style has content, `content` (the nodes with their
/// frames). Its section writes and reads it, since the frames live in the section's buffer.
struct ItemJSON: Codable {
    var index: Int
    var cellStyle: String
    var frame: LayoutFrame
    var content: [ContentNodeLayout]

    init(_ item: ItemLayout, in section: SectionLayout) {
        index = item.index
        cellStyle = item.cellStyle
        frame = item.frame
        content = section.content(of: item)
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: ItemLayout.CodingKeys.self)
        index = try c.decode(Int.self, forKey: .index)
        cellStyle = try c.decode(String.self, forKey: .cellStyle)
        frame = try c.decode(LayoutFrame.self, forKey: .frame)
        content = try c.decodeIfPresent([ContentNodeLayout].self, forKey: .content) ?? []
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: ItemLayout.CodingKeys.self)
        try c.encode(index, forKey: .index)
        try c.encode(cellStyle, forKey: .cellStyle)
        try c.encode(frame, forKey: .frame)
        if !content.isEmpty { try c.encode(content, forKey: .content) }
    }
}

/// The content nodes of a cell style, as laid out: one list shared by every cell of the style.
public final class ContentNodeList: Sendable, Hashable {
    public let nodes: [ContentNodeInfo]
    /// Which nodes are texts (the pixel grid never makes a text smaller), read once per style.
    let isText: [Bool]
    public init(_ nodes: [ContentNodeInfo]) {
        self.nodes = nodes
        self.isText = nodes.map { $0.kind == .text }
    }
    public static func == (a: ContentNodeList, b: ContentNodeList) -> Bool { a === b || a.nodes == b.nodes }
    public func hash(into hasher: inout Hasher) { hasher.combine(nodes) }
}

/// One node of a cell's content: JSON `{"node": 1, "kind": "image", "placeholder": "poster", "frame": …}`
/// (a text has `role` and `lines`). `node` is its index in tree order, depth first.
public struct ContentNodeLayout: Sendable, Hashable, Codable {
    public var node: Int
    public var info: ContentNodeInfo
    public var frame: LayoutFrame

    public init(node: Int, info: ContentNodeInfo, frame: LayoutFrame) {
        self.node = node
        self.info = info
        self.frame = frame
    }

    enum CodingKeys: String, CodingKey { case node, kind, pointer, role, lines, placeholder, frame }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        node = try c.decode(Int.self, forKey: .node)
        info = ContentNodeInfo(
            kind: try c.decode(ContentNodeInfo.Kind.self, forKey: .kind),
            pointer: try c.decodeIfPresent(String.self, forKey: .pointer) ?? "",
            role: try c.decodeIfPresent(String.self, forKey: .role).flatMap(ContentNode.TextRole.init(rawValue:)),
            lines: try c.decodeIfPresent(Int.self, forKey: .lines),
            placeholder: try c.decodeIfPresent(String.self, forKey: .placeholder).flatMap(ContentNode.Placeholder.init(rawValue:)))
        frame = try c.decode(LayoutFrame.self, forKey: .frame)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(node, forKey: .node)
        try c.encode(info.kind, forKey: .kind)
        if let role = info.role { try c.encode(role.rawValue, forKey: .role) }
        if let lines = info.lines { try c.encode(lines, forKey: .lines) }
        if let placeholder = info.placeholder { try c.encode(placeholder.rawValue, forKey: .placeholder) }
        try c.encode(frame, forKey: .frame)
    }
}

/// One component's section.
public struct SectionLayout: Sendable, Hashable, Codable {
    public var componentIndex: Int
    public var componentType: String
    /// The section's box on the screen (full container width; for a horizontal section, the visible part).
    public var frame: LayoutFrame
    public var header: LayoutFrame?
    public var footer: LayoutFrame?
    /// The scrollable size of the section: wider than `frame` when a horizontal section overflows.
    public var contentSize: LayoutSize
    public var items: [ItemLayout]
    /// The frames of every cell's content, cell after cell, in tree order (`ItemLayout.contentRange`).
    public var contentFrames: [LayoutFrame]
    /// The child sections of a group; empty otherwise.
    public var sections: [SectionLayout]

    public init(
        componentIndex: Int, componentType: String, frame: LayoutFrame, header: LayoutFrame? = nil,
        footer: LayoutFrame? = nil, contentSize: LayoutSize, items: [ItemLayout] = [], contentFrames: [LayoutFrame] = [],
        sections: [SectionLayout] = []
    ) {
        self.contentFrames = contentFrames
        self.componentIndex = componentIndex
        self.componentType = componentType
        self.frame = frame
        self.header = header
        self.footer = footer
        self.contentSize = contentSize
        self.items = items
        self.sections = sections
    }

    /// The content nodes of one of its cells with their frames, in tree order.
    public func content(of item: ItemLayout) -> [ContentNodeLayout] {
        guard let nodes = item.contentNodes?.nodes else { return [] }
        let range = item.contentRange
        guard range.upperBound <= contentFrames.count else { return [] }
        return nodes.enumerated().map { ContentNodeLayout(node: $0, info: $1, frame: contentFrames[range.lowerBound + $0]) }
    }

    enum CodingKeys: String, CodingKey {
        case componentIndex = "component_index"
        case componentType = "component_type"
        case frame, header, footer
        case contentSize = "content_size"
        case items, sections
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        componentIndex = try c.decode(Int.self, forKey: .componentIndex)
        componentType = try c.decode(String.self, forKey: .componentType)
        frame = try c.decode(LayoutFrame.self, forKey: .frame)
        header = try c.decodeIfPresent(LayoutFrame.self, forKey: .header)
        footer = try c.decodeIfPresent(LayoutFrame.self, forKey: .footer)
        contentSize = try c.decode(LayoutSize.self, forKey: .contentSize)
        var items: [ItemLayout] = []
        var contentFrames: [LayoutFrame] = []
        for item in try c.decodeIfPresent([ItemJSON].self, forKey: .items) ?? [] {
            items.append(ItemLayout(
                index: item.index, cellStyle: item.cellStyle, frame: item.frame,
                contentNodes: item.content.isEmpty ? nil : ContentNodeList(item.content.map(\.info)), contentStart: contentFrames.count))
            contentFrames += item.content.map(\.frame)
        }
        self.items = items
        self.contentFrames = contentFrames
        sections = try c.decodeIfPresent([SectionLayout].self, forKey: .sections) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(componentIndex, forKey: .componentIndex)
        try c.encode(componentType, forKey: .componentType)
        try c.encode(frame, forKey: .frame)
        try c.encode(header, forKey: .header)  // null when absent
        try c.encode(footer, forKey: .footer)
        try c.encode(contentSize, forKey: .contentSize)
        try c.encode(items.map { ItemJSON($0, in: self) }, forKey: .items)
        try c.encode(sections, forKey: .sections)
    }
}

/// The whole screen.
public struct ScreenLayout: Sendable, Hashable, Codable {
    public var device: Device
    /// Device width × the bottom of the last section.
    public var contentSize: LayoutSize
    public var warnings: [LayoutWarning]
    public var sections: [SectionLayout]

    public init(device: Device, contentSize: LayoutSize, warnings: [LayoutWarning] = [], sections: [SectionLayout] = []) {
        self.device = device
        self.contentSize = contentSize
        self.warnings = warnings
        self.sections = sections
    }

    enum CodingKeys: String, CodingKey {
        case device
        case contentSize = "content_size"
        case warnings, sections
    }
}

// MARK: - JSON, written directly

extension ScreenLayout {
    /// The layout as JSON, the same document `JSONEncoder` (with sorted keys) gives, written byte
    /// by byte: a preview of 1,000 cells is about 100 KB, and this is the preview's hot path.
    public func jsonBytes() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256 + 120 * Self.cellCount(sections))
        var w = LayoutJSONWriter(out: out)
        w.raw("{\"content_size\":")
        w.size(contentSize)
        w.raw(",\"device\":{\"height\":")
        w.number(device.height)
        w.raw(",\"scale\":")
        w.number(device.scale)
        w.raw(",\"width\":")
        w.number(device.width)
        w.raw("},\"sections\":[")
        for (i, section) in sections.enumerated() {
            if i > 0 { w.raw(",") }
            w.section(section)
        }
        w.raw("],\"warnings\":[")
        for (i, warning) in warnings.enumerated() {
            if i > 0 { w.raw(",") }
            w.raw("{\"component_index\":")
            if let index = warning.componentIndex { w.number(Double(index)) } else { w.raw("null") }
            w.raw(",\"component_path\":")
            if let path = warning.componentPath {
                w.raw("[")
                for (k, index) in path.enumerated() {
                    if k > 0 { w.raw(",") }
                    w.number(Double(index))
                }
                w.raw("]")
            } else {
                w.raw("null")
            }
            w.raw(",\"message\":")
            w.string(warning.message)
            w.raw("}")
        }
        w.raw("]}")
        return w.out
    }

    static func cellCount(_ sections: [SectionLayout]) -> Int {
        sections.reduce(0) { $0 + $1.items.count + cellCount($1.sections) }
    }
}

struct LayoutJSONWriter {
    var out: [UInt8]

    mutating func raw(_ s: StaticString) {
        s.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    mutating func number(_ n: Double) { JSONValue.writeNumber(n, to: &out) }
    mutating func string(_ s: String) { JSONValue.writeString(s, to: &out) }

    mutating func size(_ s: LayoutSize) {
        raw("{\"height\":")
        number(s.height)
        raw(",\"width\":")
        number(s.width)
        raw("}")
    }

    mutating func frame(_ f: LayoutFrame) {
        raw("{\"height\":")
        number(f.height)
        raw(",\"width\":")
        number(f.width)
        raw(",\"x\":")
        number(f.x)
        raw(",\"y\":")
        number(f.y)
        raw("}")
    }

    mutating func optionalFrame(_ f: LayoutFrame?) {
        if let f { frame(f) } else { raw("null") }
    }

    mutating func section(_ s: SectionLayout) {
        raw("{\"component_index\":")
        number(Double(s.componentIndex))
        raw(",\"component_type\":")
        string(s.componentType)
        raw(",\"content_size\":")
        size(s.contentSize)
        raw(",\"footer\":")
        optionalFrame(s.footer)
        raw(",\"frame\":")
        frame(s.frame)
        raw(",\"header\":")
        optionalFrame(s.header)
        raw(",\"items\":[")
        for (i, item) in s.items.enumerated() {
            if i > 0 { raw(",") }
            raw("{\"cell_style\":")
            string(item.cellStyle)
            if let nodes = item.contentNodes?.nodes, item.contentRange.upperBound <= s.contentFrames.count {
                raw(",\"content\":[")
                for (n, info) in nodes.enumerated() {
                    if n > 0 { raw(",") }
                    raw("{\"frame\":")
                    frame(s.contentFrames[item.contentStart + n])
                    raw(",\"kind\":")
                    string(info.kind.rawValue)
                    if let lines = info.lines {
                        raw(",\"lines\":")
                        number(Double(lines))
                    }
                    raw(",\"node\":")
                    number(Double(n))
                    if let placeholder = info.placeholder {
                        raw(",\"placeholder\":")
                        string(placeholder.rawValue)
                    }
                    if let role = info.role {
                        raw(",\"role\":")
                        string(role.rawValue)
                    }
                    raw("}")
                }
                raw("]")
            }
            raw(",\"frame\":")
            frame(item.frame)
            raw(",\"index\":")
            number(Double(item.index))
            raw("}")
        }
        raw("],\"sections\":[")
        for (i, child) in s.sections.enumerated() {
            if i > 0 { raw(",") }
            section(child)
        }
        raw("]}")
    }
}

// The result of a layout: frames in points, in the screen's coordinate space (origin at the top left
// of the scrollable content, y downwards). Encodes to JSON with exactly these snake_case keys;
// optional frames are written as `null`, never left out.

/// A rectangle in points. Edges are multiples of 1/scale.
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

public struct LayoutSize: Sendable, Hashable, Codable {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// Something the preview wants the editor to know; never an error.
public struct LayoutWarning: Sendable, Hashable, Codable {
    /// The component concerned; nil (JSON `null`) for the screen as a whole.
    public var componentIndex: Int?
    public var message: String

    public init(componentIndex: Int?, message: String) {
        self.componentIndex = componentIndex
        self.message = message
    }

    enum CodingKeys: String, CodingKey {
        case componentIndex = "component_index"
        case message
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        componentIndex = try c.decodeIfPresent(Int.self, forKey: .componentIndex)
        message = try c.decode(String.self, forKey: .message)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(componentIndex, forKey: .componentIndex)  // null for the screen
        try c.encode(message, forKey: .message)
    }
}

/// One cell.
public struct ItemLayout: Sendable, Hashable, Codable {
    /// The item's index in its component.
    public var index: Int
    /// The id of the cell style it uses.
    public var cellStyle: String
    public var frame: LayoutFrame

    public init(index: Int, cellStyle: String, frame: LayoutFrame) {
        self.index = index
        self.cellStyle = cellStyle
        self.frame = frame
    }

    enum CodingKeys: String, CodingKey {
        case index
        case cellStyle = "cell_style"
        case frame
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
    /// The child sections of a group; empty otherwise.
    public var sections: [SectionLayout]

    public init(
        componentIndex: Int, componentType: String, frame: LayoutFrame, header: LayoutFrame? = nil,
        footer: LayoutFrame? = nil, contentSize: LayoutSize, items: [ItemLayout] = [], sections: [SectionLayout] = []
    ) {
        self.componentIndex = componentIndex
        self.componentType = componentType
        self.frame = frame
        self.header = header
        self.footer = footer
        self.contentSize = contentSize
        self.items = items
        self.sections = sections
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
        items = try c.decodeIfPresent([ItemLayout].self, forKey: .items) ?? []
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
        try c.encode(items, forKey: .items)
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

// Inputs of the layout engine. Plain values (sharing only the domain's `Insets`): the caller
// (the preview endpoint) translates a screen, its family and its cell styles into a `LayoutRequest`.
//
// Every type is Codable with snake_case keys (explicit `CodingKeys`, so no key strategy is needed;
// do not decode with `.convertFromSnakeCase`, which would rewrite the keys before they are matched).

import RiversCore

/// The device the screen is laid out for: size in points, `scale` = device pixels per point.
public struct Device: Sendable, Hashable, Codable {
    public var width: Double
    public var height: Double
    public var scale: Double

    public init(width: Double, height: Double, scale: Double) {
        self.width = width
        self.height = height
        self.scale = scale
    }
}

/// Section insets in points (at the family's reference size when part of `FamilyMetrics`): the
/// domain's own insets, with the same keys.
public typealias LayoutInsets = Insets

/// The flow-layout values of a family, all at the reference size; scalable lengths scale with the
/// device by `m = min(W / referenceWidth, H / referenceHeight)`, fixed ones do not.
public struct FamilyMetrics: Sendable, Hashable, Codable {
    public var referenceWidth: Double
    public var referenceHeight: Double
    public var insets: LayoutInsets
    /// `s`: the minimum space between items of a line.
    public var interitemSpacing: Length
    /// `l`: the space between lines.
    public var lineSpacing: Length

    public init(
        referenceWidth: Double, referenceHeight: Double, insets: LayoutInsets = LayoutInsets(),
        interitemSpacing: Length = .zero, lineSpacing: Length = .zero
    ) {
        self.referenceWidth = referenceWidth
        self.referenceHeight = referenceHeight
        self.insets = insets
        self.interitemSpacing = interitemSpacing
        self.lineSpacing = lineSpacing
    }

    enum CodingKeys: String, CodingKey {
        case referenceWidth = "reference_width"
        case referenceHeight = "reference_height"
        case insets
        case interitemSpacing = "interitem_spacing"
        case lineSpacing = "line_spacing"
    }
}

/// A cell style's size rules. JSON: `{"id": "GRID_1", "width": {"columns": 2}, "height": {"points": 100}}`,
/// `"height": {"aspect_ratio": 1.7778}` or `"height": {"fit": true}` (with `content`). Points are
/// lengths: a number (scalable) or `{"fixed": n}`.
public struct CellStyleSpec: Sendable, Hashable, Codable {
    public enum Width: Sendable, Hashable, Codable {
        /// `n` items per line: `(W − left·m − right·m − (n−1)·s·m) / n`.
        case columns(Int)
        /// A width at the reference size (scaled by `m` unless fixed).
        case points(Length)
    }

    public enum Height: Sendable, Hashable, Codable {
        /// A height at the reference size (scaled by `m` unless fixed).
        case points(Length)
        /// Width ÷ height (16:9 → 1.7778): height = width / ratio.
        case aspectRatio(Double)
        /// What `content` needs at the cell's width.
        case fit
    }

    public var id: String
    public var width: Width
    public var height: Height
    /// What is inside the cell; nil = an empty cell.
    public var content: ContentNode?

    public init(id: String, width: Width, height: Height, content: ContentNode? = nil) {
        self.id = id
        self.width = width
        self.height = height
        self.content = content
    }
}

extension CellStyleSpec.Width {
    enum CodingKeys: String, CodingKey { case columns, points }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let n = try c.decodeIfPresent(Int.self, forKey: .columns) {
            self = .columns(n)
        } else if let w = try c.decodeIfPresent(Length.self, forKey: .points) {
            self = .points(w)
        } else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath, debugDescription: "a cell width needs `columns` or `points`"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .columns(let n): try c.encode(n, forKey: .columns)
        case .points(let w): try c.encode(w, forKey: .points)
        }
    }
}

extension CellStyleSpec.Height {
    enum CodingKeys: String, CodingKey {
        case points
        case aspectRatio = "aspect_ratio"
        case fit
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let h = try c.decodeIfPresent(Length.self, forKey: .points) {
            self = .points(h)
        } else if let r = try c.decodeIfPresent(Double.self, forKey: .aspectRatio) {
            self = .aspectRatio(r)
        } else if try c.decodeIfPresent(Bool.self, forKey: .fit) == true {
            self = .fit
        } else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath, debugDescription: "a cell height needs `points`, `aspect_ratio` or `fit`"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .points(let h): try c.encode(h, forKey: .points)
        case .aspectRatio(let r): try c.encode(r, forKey: .aspectRatio)
        case .fit: try c.encode(true, forKey: .fit)
        }
    }
}

/// One component of the screen: one section of the flow layout.
public struct SectionSpec: Sendable, Hashable, Codable {
    public enum Axis: String, Sendable, Hashable, Codable {
        /// Lines broken greedily and stacked downwards (list, grid, vertical hero).
        case vertical
        /// One line scrolling sideways (horizontal_list, carousels, tab bars).
        case horizontal
        /// A container: its `children` stack vertically inside it; it has no cells of its own.
        case group
    }

    /// The component's position in the screen (reported back in the layout and in warnings).
    public var componentIndex: Int
    public var componentType: String
    public var axis: Axis
    /// Item *i* uses `cellStyles[i]`; the last style repeats for the rest.
    public var cellStyles: [CellStyleSpec]
    /// Header height at the reference size; nil = no header.
    public var header: Length?
    /// Footer height at the reference size; nil = no footer.
    public var footer: Length?
    /// The component's item limit (`rules.item_limit`); nil = none.
    public var itemLimit: Int?
    /// Nested components of a group (ignored, with a warning, on other axes).
    public var children: [SectionSpec]

    public init(
        componentIndex: Int, componentType: String, axis: Axis, cellStyles: [CellStyleSpec] = [],
        header: Length? = nil, footer: Length? = nil, itemLimit: Int? = nil, children: [SectionSpec] = []
    ) {
        self.componentIndex = componentIndex
        self.componentType = componentType
        self.axis = axis
        self.cellStyles = cellStyles
        self.header = header
        self.footer = footer
        self.itemLimit = itemLimit
        self.children = children
    }

    enum CodingKeys: String, CodingKey {
        case componentIndex = "component_index"
        case componentType = "component_type"
        case axis
        case cellStyles = "cell_styles"
        case header, footer
        case itemLimit = "item_limit"
        case children
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        componentIndex = try c.decode(Int.self, forKey: .componentIndex)
        componentType = try c.decode(String.self, forKey: .componentType)
        axis = try c.decode(Axis.self, forKey: .axis)
        cellStyles = try c.decodeIfPresent([CellStyleSpec].self, forKey: .cellStyles) ?? []
        header = try c.decodeIfPresent(Length.self, forKey: .header)
        footer = try c.decodeIfPresent(Length.self, forKey: .footer)
        itemLimit = try c.decodeIfPresent(Int.self, forKey: .itemLimit)
        children = try c.decodeIfPresent([SectionSpec].self, forKey: .children) ?? []
    }
}

/// Sample data for the preview.
/// JSON: `{"counts": {"0": 12, "2": 3}}` or `{"children": [12, 0, 4]}`.
public enum Sample: Sendable, Hashable, Codable {
    /// Items available per component, by `componentIndex` (a component not listed has no sample).
    case counts([Int: Int])
    /// A connected screen's sample sender: child *i* has `children[i]` items and fills the *i*-th
    /// component (non-group components in display order, depth first). Used only when the request is
    /// `connected`.
    case children([Int])

    enum CodingKeys: String, CodingKey { case counts, children }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let counts = try c.decodeIfPresent([Int: Int].self, forKey: .counts) {
            self = .counts(counts)
        } else if let children = try c.decodeIfPresent([Int].self, forKey: .children) {
            self = .children(children)
        } else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath, debugDescription: "a sample needs `counts` or `children`"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .counts(let counts): try c.encode(counts, forKey: .counts)
        case .children(let children): try c.encode(children, forKey: .children)
        }
    }
}

/// Everything the engine needs to lay out one screen.
public struct LayoutRequest: Sendable, Hashable, Codable {
    public var device: Device
    public var family: FamilyMetrics
    /// The screen's components in display order.
    public var sections: [SectionSpec]
    /// A connected screen: its components are filled by the children of the sender (`Sample.children`).
    public var connected: Bool
    public var sample: Sample?

    public init(
        device: Device, family: FamilyMetrics, sections: [SectionSpec], connected: Bool = false,
        sample: Sample? = nil
    ) {
        self.device = device
        self.family = family
        self.sections = sections
        self.connected = connected
        self.sample = sample
    }

    enum CodingKeys: String, CodingKey { case device, family, sections, connected, sample }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        device = try c.decode(Device.self, forKey: .device)
        family = try c.decode(FamilyMetrics.self, forKey: .family)
        sections = try c.decode([SectionSpec].self, forKey: .sections)
        connected = try c.decodeIfPresent(Bool.self, forKey: .connected) ?? false
        sample = try c.decodeIfPresent(Sample.self, forKey: .sample)
    }
}

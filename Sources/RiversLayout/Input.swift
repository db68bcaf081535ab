// Inputs of the layout engine: the domain's own values (`Family`, `CellStyle`, `Component`), no
// look-alike engine types, plus the device and the preview's sample data. `Device` and `Sample`
// are Codable with snake_case keys (explicit `CodingKeys`; do not decode with
// `.convertFromSnakeCase`, which would rewrite the keys before they are matched).

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

/// Sample data for the preview.
/// JSON: `{"counts": {"0": 12, "2": 3, "2.0": 5}}` or `{"children": [12, 0, 4]}`.
public enum Sample: Sendable, Hashable, Codable {
    /// Items available per component, by its path from the top (`[2]`, the third component;
    /// `[2, 0]`, the first child of that group: `LayoutWarning.componentPath`); a component not
    /// listed has no sample. In JSON a path is its indices joined by dots.
    case counts([[Int]: Int])
    /// A connected screen's sample sender: child *i* has `children[i]` items and fills the *i*-th
    /// component (non-group components in display order, depth first). Used only when the request is
    /// `connected`.
    case children([Int])

    enum CodingKeys: String, CodingKey { case counts, children }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let counts = try c.decodeIfPresent([String: Int].self, forKey: .counts) {
            var paths: [[Int]: Int] = [:]
            for (key, count) in counts {
                guard let path = Self.path(key) else {
                    throw DecodingError.dataCorrupted(.init(
                        codingPath: decoder.codingPath, debugDescription: "a count's key is a component path (0, 2.0, …)"))
                }
                paths[path] = count
            }
            self = .counts(paths)
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
        case .counts(let counts):
            try c.encode(Dictionary(uniqueKeysWithValues: counts.map { (Self.key($0.key), $0.value) }), forKey: .counts)
        case .children(let children): try c.encode(children, forKey: .children)
        }
    }

    /// The longest path a count may name.
    public static let maxPathDepth = 16

    /// `"2.0"` as `[2, 0]`: indices of at most 9 digits, at most `maxPathDepth` of them; nil otherwise.
    public static func path(_ key: String) -> [Int]? {
        // Length first: a key is the caller's, and splitting a long one would cost its size.
        guard key.utf8.count <= maxPathDepth * 10 else { return nil }
        let parts = key.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...maxPathDepth).contains(parts.count) else { return nil }
        var path: [Int] = []
        for part in parts {
            guard (1...9).contains(part.utf8.count), part.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                let index = Int(part)
            else { return nil }
            path.append(index)
        }
        return path
    }

    /// `[2, 0]` as `"2.0"`.
    public static func key(_ path: [Int]) -> String { path.map(String.init).joined(separator: ".") }
}

/// Everything the engine needs to lay out one screen, in the domain's own terms: the family's
/// flow-layout rules and cell styles, the screen's components (a group's children nested in it),
/// and the catalog that says which way each component type flows.
public struct LayoutRequest: Sendable {
    public var device: Device
    public var family: Family
    /// The screen's components in display order.
    public var components: [Component]
    public var catalog: ComponentCatalog
    /// A connected screen: its components are filled by the children of the sender (`Sample.children`).
    public var connected: Bool
    public var sample: Sample?

    public init(
        device: Device, family: Family, components: [Component], catalog: ComponentCatalog = .builtIn,
        connected: Bool = false, sample: Sample? = nil
    ) {
        self.device = device
        self.family = family
        self.components = components
        self.catalog = catalog
        self.connected = connected
        self.sample = sample
    }

    /// A screen of the app.
    public init(screen: Screen, family: Family, catalog: ComponentCatalog, device: Device, sample: Sample? = nil) {
        self.init(device: device, family: family, components: screen.uiComponents, catalog: catalog, connected: screen.connected, sample: sample)
    }

    /// One cell of `style` (a cell style of `family`): how the cell designer lays out a single cell.
    public static func cell(_ style: CellStyle, family: Family, device: Device) -> LayoutRequest {
        LayoutRequest(device: device, family: family, components: [Component(id: "cell", componentType: "cell", cellStyles: [style.id], itemLimit: 1)])
    }
}

extension Family {
    /// The size of a cell of `style` at the reference size (where `m` = 1), a `fit` height
    /// measured from its content.
    public func referenceCellSize(_ style: CellStyle) -> Size {
        let width = width(of: style)
        let height: Double
        switch style.height {
        case .points(let h): height = h.value
        case .aspectRatio(let r): height = width / r
        case .fit: height = style.content.map { ContentLayout.fitHeight($0, width: width, m: 1) } ?? 0
        }
        return Size(width: width, height: height)
    }

    /// The family as it is stored and shown, with each cell style's `computed` size at the
    /// reference size.
    public var json: JSONValue { json(computed: referenceCellSize) }
}

/// Devices the editor offers, in points.
public struct DevicePreset: Sendable, Hashable, Codable {
    public var id: String
    public var name: String
    public var kind: String
    public var device: Device

    public static let all: [DevicePreset] = [
        DevicePreset(id: "phone-320x568", name: "Small phone (320×568)", kind: "phone", device: Device(width: 320, height: 568, scale: 2)),
        DevicePreset(id: "phone-375x667", name: "Phone (375×667)", kind: "phone", device: Device(width: 375, height: 667, scale: 2)),
        DevicePreset(id: "phone-390x844", name: "Large phone (390×844)", kind: "phone", device: Device(width: 390, height: 844, scale: 3)),
        DevicePreset(id: "tablet-768x1024", name: "Tablet, portrait (768×1024)", kind: "tablet", device: Device(width: 768, height: 1024, scale: 2)),
        DevicePreset(id: "tablet-1024x768", name: "Tablet, landscape (1024×768)", kind: "tablet", device: Device(width: 1024, height: 768, scale: 2)),
        DevicePreset(id: "tv-1920x1080", name: "TV (1920×1080)", kind: "tv", device: Device(width: 1920, height: 1080, scale: 1)),
    ]
}

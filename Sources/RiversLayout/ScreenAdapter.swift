import RiversCore

/// Turns a screen of the domain model into the engine's input: one section per component, cell
/// sizes from the screen's family, headers from their styles.
public enum ScreenLayoutInput {
    /// Header and footer height (at the reference size) when their style names no cell style of
    /// the family.
    public static let defaultDecorationHeight = 44.0

    public static func request(screen: Screen, family: Family, catalog: ComponentCatalog, device: Device, sample: Sample? = nil) -> LayoutRequest {
        LayoutRequest(
            device: device,
            family: metrics(family),
            sections: screen.uiComponents.enumerated().map { index, component in
                section(component, index: index, family: family, catalog: catalog)
            },
            connected: screen.connected,
            sample: sample)
    }

    /// The family's flow-layout values.
    public static func metrics(_ family: Family) -> FamilyMetrics {
        FamilyMetrics(
            referenceWidth: family.referenceSize.width, referenceHeight: family.referenceSize.height,
            insets: family.insets, interitemSpacing: family.interitemSpacing, lineSpacing: family.lineSpacing)
    }

    public static func cellStyleSpec(_ style: CellStyle) -> CellStyleSpec {
        let width: CellStyleSpec.Width
        switch style.width {
        case .columns(let n): width = .columns(n)
        case .points(let w): width = .points(w)
        }
        let height: CellStyleSpec.Height
        switch style.height {
        case .points(let h): height = .points(h)
        case .aspectRatio(let r): height = .aspectRatio(r)
        case .fit: height = .fit
        }
        return CellStyleSpec(id: style.id, width: width, height: height, content: style.content)
    }

    /// A section of one cell of `style`: how the cell designer lays out a single cell.
    public static func cellSection(_ style: CellStyle) -> SectionSpec {
        SectionSpec(componentIndex: 0, componentType: "cell", axis: .vertical, cellStyles: [cellStyleSpec(style)], itemLimit: 1)
    }

    static func section(_ component: Component, index: Int, family: Family, catalog: ComponentCatalog) -> SectionSpec {
        let type = catalog.types[component.componentType]
        let axis: SectionSpec.Axis = type?.holdsChildren == true ? .group : (type?.axis == .horizontal ? .horizontal : .vertical)
        let styles = component.cellStyles.compactMap { family.cellStyle($0) }.map(cellStyleSpec)
        return SectionSpec(
            componentIndex: index, componentType: component.componentType, axis: axis, cellStyles: styles,
            header: decorationHeight(component.header, family: family), footer: decorationHeight(component.footer, family: family),
            itemLimit: component.itemLimit,
            children: component.uiComponents.enumerated().map { i, child in section(child, index: i, family: family, catalog: catalog) })
    }

    /// A visible header whose style is a cell style of the family takes that style's height (a
    /// points height keeps being scalable or fixed; others are measured at the reference size).
    static func decorationHeight(_ decoration: SectionDecoration, family: Family) -> Length? {
        guard decoration.visible else { return nil }
        if let id = decoration.style, let style = family.cellStyle(id) {
            if case .points(let h) = style.height { return h }
            return Length(family.referenceCellSize(style).height)
        }
        return Length(defaultDecorationHeight)
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

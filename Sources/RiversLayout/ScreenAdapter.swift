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
            family: FamilyMetrics(
                referenceWidth: family.referenceSize.width, referenceHeight: family.referenceSize.height,
                insets: family.insets,
                interitemSpacing: family.interitemSpacing, lineSpacing: family.lineSpacing),
            sections: screen.uiComponents.enumerated().map { index, component in
                section(component, index: index, family: family, catalog: catalog)
            },
            connected: screen.connected,
            sample: sample)
    }

    static func section(_ component: Component, index: Int, family: Family, catalog: ComponentCatalog) -> SectionSpec {
        let type = catalog.types[component.componentType]
        let axis: SectionSpec.Axis = type?.holdsChildren == true ? .group : (type?.axis == .horizontal ? .horizontal : .vertical)
        let styles = component.cellStyles.compactMap { family.cellStyle($0) }.map { style -> CellStyleSpec in
            let width: CellStyleSpec.Width
            switch style.width {
            case .columns(let n): width = .columns(n)
            case .points(let w): width = .points(w)
            }
            let height: CellStyleSpec.Height
            switch style.height {
            case .points(let h): height = .points(h)
            case .aspectRatio(let r): height = .aspectRatio(r)
            }
            return CellStyleSpec(id: style.id, width: width, height: height)
        }
        return SectionSpec(
            componentIndex: index, componentType: component.componentType, axis: axis, cellStyles: styles,
            header: decorationHeight(component.header, family: family), footer: decorationHeight(component.footer, family: family),
            itemLimit: component.itemLimit,
            children: component.uiComponents.enumerated().map { i, child in section(child, index: i, family: family, catalog: catalog) })
    }

    /// A visible header whose style is a cell style of the family takes that style's height.
    static func decorationHeight(_ decoration: SectionDecoration, family: Family) -> Double? {
        guard decoration.visible else { return nil }
        if let id = decoration.style, let style = family.cellStyle(id) { return family.size(of: style).height }
        return defaultDecorationHeight
    }
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

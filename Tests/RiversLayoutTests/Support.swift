import RiversCore
import RiversLayout

/// The family of the worked example: 320×568, insets 10 all round, spacing 10, line spacing 10.
/// The cell styles come from the sections a test lays out (`layout` adds them).
func referenceFamily(
    insets: Insets = Insets(top: 10, left: 10, bottom: 10, right: 10), spacing: Length = 10,
    lineSpacing: Length = 10, referenceSize: Size = Size(width: 320, height: 568)
) -> Family {
    Family(id: "FAMILY_1", name: "Test", referenceSize: referenceSize, insets: insets, interitemSpacing: spacing, lineSpacing: lineSpacing)
}

let referenceDevice = Device(width: 320, height: 568, scale: 2)

func style(_ id: String, columns: Int, height: Length) -> CellStyle {
    CellStyle(id: id, width: .columns(columns), height: .points(height))
}

func style(_ id: String, width: Length, height: Length) -> CellStyle {
    CellStyle(id: id, width: .points(width), height: .points(height))
}

/// A component as a test writes it, with the cell styles it needs in its family (its own, and
/// one per header or footer height).
struct TestSection {
    var component: Component
    var styles: [CellStyle]
}

/// A header or footer `height` tall: shown, with a style of that height.
private func decoration(_ height: Length?, _ kind: String) -> (SectionDecoration, CellStyle?) {
    guard let height else { return (SectionDecoration(), nil) }
    let id = "\(kind)_\(height.value)\(height.fixed ? "_FIXED" : "")"
    return (SectionDecoration(visible: true, style: id), CellStyle(id: id, width: .columns(1), height: .points(height)))
}

/// A section of `type` (whose axis the built-in catalog gives: `grid` and `list` vertical,
/// `horizontal_list` horizontal, `group` a group).
func section(
    type: String, _ styles: [CellStyle], header: Length? = nil, footer: Length? = nil, limit: Int? = nil, children: [TestSection] = []
) -> TestSection {
    let (h, headerStyle) = decoration(header, "HEADER")
    let (f, footerStyle) = decoration(footer, "FOOTER")
    let component = Component(
        id: "", componentType: type, cellStyles: styles.map(\.id), header: h, footer: f, itemLimit: limit,
        uiComponents: children.map(\.component))
    return TestSection(component: component, styles: styles + [headerStyle, footerStyle].compactMap { $0 } + children.flatMap(\.styles))
}

func vertical(type: String = "grid", _ styles: [CellStyle], header: Length? = nil, footer: Length? = nil, limit: Int? = nil) -> TestSection {
    section(type: type, styles, header: header, footer: footer, limit: limit)
}

func horizontal(type: String = "horizontal_list", _ styles: [CellStyle], header: Length? = nil, limit: Int? = nil) -> TestSection {
    section(type: type, styles, header: header, limit: limit)
}

func group(_ children: [TestSection], header: Length? = nil, footer: Length? = nil) -> TestSection {
    section(type: "group", [], header: header, footer: footer, children: children)
}

/// `family` with the cell styles of `sections` (a style id names one style).
func family(_ family: Family, with sections: [TestSection]) -> Family {
    var family = family
    for style in sections.flatMap(\.styles) {
        if let known = family.cellStyle(style.id) {
            precondition(known == style, "two cell styles named \(style.id)")
        } else {
            family.cellStyles.append(style)
        }
    }
    return family
}

func request(
    _ sections: [TestSection], device: Device = referenceDevice, family base: Family = referenceFamily(),
    connected: Bool = false, sample: Sample? = nil
) -> LayoutRequest {
    LayoutRequest(
        device: device, family: family(base, with: sections), components: sections.map(\.component), connected: connected,
        sample: sample)
}

func layout(
    _ sections: [TestSection], device: Device = referenceDevice, family: Family = referenceFamily(),
    connected: Bool = false, sample: Sample? = nil
) -> ScreenLayout {
    LayoutEngine.layout(request(sections, device: device, family: family, connected: connected, sample: sample))
}

func frame(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> LayoutFrame {
    LayoutFrame(x: x, y: y, width: w, height: h)
}

/// A coordinate on the pixel grid of `scale`, as the rules define it.
func px(_ v: Double, _ scale: Double) -> Double { (v * scale).rounded() / scale }

func close(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9) -> Bool { abs(a - b) <= tolerance }

func onGrid(_ v: Double, _ scale: Double) -> Bool {
    let p = v * scale
    return abs(p - p.rounded()) < 1e-6
}

/// Every section of a layout, children of groups included, depth first.
func allSections(_ sections: [SectionLayout]) -> [SectionLayout] {
    sections.flatMap { [$0] + allSections($0.sections) }
}

/// SplitMix64: a small seeded generator, so the property tests are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

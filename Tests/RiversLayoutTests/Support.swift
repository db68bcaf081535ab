import RiversCore
import RiversLayout

/// The family of the worked example: 320×568, insets 10 all round, spacing 10, line spacing 10.
func referenceFamily(
    insets: LayoutInsets = LayoutInsets(top: 10, left: 10, bottom: 10, right: 10), spacing: Length = 10,
    lineSpacing: Length = 10
) -> FamilyMetrics {
    FamilyMetrics(referenceWidth: 320, referenceHeight: 568, insets: insets, interitemSpacing: spacing, lineSpacing: lineSpacing)
}

let referenceDevice = Device(width: 320, height: 568, scale: 2)

func style(_ id: String, columns: Int, height: Length) -> CellStyleSpec {
    CellStyleSpec(id: id, width: .columns(columns), height: .points(height))
}

func style(_ id: String, width: Length, height: Length) -> CellStyleSpec {
    CellStyleSpec(id: id, width: .points(width), height: .points(height))
}

func vertical(
    _ index: Int = 0, type: String = "grid", _ styles: [CellStyleSpec], header: Length? = nil, footer: Length? = nil,
    limit: Int? = nil
) -> SectionSpec {
    SectionSpec(componentIndex: index, componentType: type, axis: .vertical, cellStyles: styles, header: header, footer: footer, itemLimit: limit)
}

func horizontal(
    _ index: Int = 0, type: String = "horizontal_list", _ styles: [CellStyleSpec], header: Length? = nil, limit: Int? = nil
) -> SectionSpec {
    SectionSpec(componentIndex: index, componentType: type, axis: .horizontal, cellStyles: styles, header: header, itemLimit: limit)
}

func layout(
    _ sections: [SectionSpec], device: Device = referenceDevice, family: FamilyMetrics = referenceFamily(),
    connected: Bool = false, sample: Sample? = nil
) -> ScreenLayout {
    LayoutEngine.layout(LayoutRequest(device: device, family: family, sections: sections, connected: connected, sample: sample))
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

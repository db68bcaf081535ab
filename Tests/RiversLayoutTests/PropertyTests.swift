import Testing
import RiversCore
import RiversLayout

/// Random but reproducible screens: devices, families, styles (some too wide), headers, footers,
/// item limits, samples, horizontal sections and groups.
struct ScreenGenerator {
    var rng: SeededGenerator

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func double(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &rng) }
    mutating func chance(_ p: Double) -> Bool { double(0...1) < p }
    /// Lengths on a quarter-point grid, as families usually give them, sometimes arbitrary.
    /// Scalable mostly, fixed (not scaled) one time in five.
    mutating func length(_ range: ClosedRange<Double>) -> Length {
        let value = chance(0.8) ? (double(range) * 4).rounded() / 4 : double(range)
        return Length(value, fixed: chance(0.2))
    }

    mutating func request() -> LayoutRequest {
        let devices = [(320.0, 568.0), (375, 667), (390, 844), (414, 896), (768, 1024), (1024, 1366), (360, 640), (280, 653)]
        let (w, h) = devices[int(0...devices.count - 1)]
        let landscape = chance(0.2)
        let scale = [1.0, 2, 3, 2.625, 1.5][int(0...4)]
        let device = Device(width: landscape ? h : w, height: landscape ? w : h, scale: scale)
        let references = [(320.0, 568.0), (375, 667), (768, 1024)]
        let (rw, rh) = references[int(0...2)]
        let base = referenceFamily(
            insets: Insets(top: length(0...20), left: length(0...24), bottom: length(0...20), right: length(0...24)),
            spacing: chance(0.15) ? 0 : length(0...16), lineSpacing: chance(0.15) ? 0 : length(0...16),
            referenceSize: Size(width: rw, height: rh))
        var index = 0
        var sections: [TestSection] = []
        for _ in 0..<int(1...8) { sections.append(section(&index, depth: 0)) }
        // Sample counts by path: top-level components, and the first children of groups among them.
        let sample: Sample? =
            chance(0.3) ? .counts(Dictionary(uniqueKeysWithValues: (0..<8).map { ([$0], int(0...30)) } + (0..<8).map { ([$0, 0], int(0...30)) })) : nil
        return RiversLayoutTests.request(sections, device: device, family: base, sample: sample)
    }

    /// `index` numbers every section made, so each has cell styles of its own.
    mutating func section(_ index: inout Int, depth: Int) -> TestSection {
        let i = index
        index += 1
        let header: Length? = chance(0.3) ? length(0...60) : nil
        let footer: Length? = chance(0.2) ? length(0...40) : nil
        let roll = double(0...1)
        if roll < 0.12 && depth < 2 {
            var children: [TestSection] = []
            for _ in 0..<int(0...3) { children.append(section(&index, depth: depth + 1)) }
            return group(children, header: header, footer: footer)
        }
        var styles: [CellStyle] = []
        for s in 0..<int(1...4) {
            let width: CellWidth = chance(0.5) ? .columns(int(1...5)) : .points(length(10...420))
            let height: CellHeight = chance(0.6) ? .points(length(5...220)) : .aspectRatio(double(0.4...3))
            styles.append(CellStyle(id: "S\(i)_\(s)", width: width, height: height))
        }
        return RiversLayoutTests.section(
            type: roll < 0.4 ? "horizontal_list" : "grid", styles, header: header, footer: footer, limit: chance(0.8) ? int(0...40) : nil)
    }
}

/// The problems of one layout with respect to the invariants; empty when all hold.
func invariantViolations(_ request: LayoutRequest, _ screen: ScreenLayout) -> [String] {
    var problems: [String] = []
    let w = request.device.width
    let scale = request.device.scale
    let eps = 1e-9

    func checkStack(_ sections: [SectionLayout], top: Double, path: String) {
        var y = top
        for (n, s) in sections.enumerated() {
            if abs(s.frame.y - y) > eps { problems.append("\(path)/\(n): starts at \(s.frame.y), previous ends at \(y)") }
            y = s.frame.maxY
            checkSection(s, path: "\(path)/\(n)")
        }
    }

    func checkSection(_ s: SectionLayout, path: String) {
        for f in [s.frame] + s.items.map(\.frame) + [s.header, s.footer].compactMap({ $0 }) {
            if !(onGrid(f.x, scale) && onGrid(f.y, scale) && onGrid(f.maxX, scale) && onGrid(f.maxY, scale)) {
                problems.append("\(path): \(f) is off the pixel grid")
            }
            if f.width < 0 || f.height < 0 { problems.append("\(path): negative size \(f)") }
        }
        let items = s.items
        for a in 0..<items.count {
            let fa = items[a].frame
            if items[a].index != a { problems.append("\(path): item \(a) has index \(items[a].index)") }
            // Inside the section vertically; vertical sections inside the screen width too.
            if fa.y < s.frame.y - eps || fa.maxY > s.frame.maxY + eps { problems.append("\(path): item \(a) \(fa) outside \(s.frame)") }
            if s.contentSize.width <= s.frame.width + eps {
                if fa.x < s.frame.x - eps || fa.maxX > s.frame.maxX + eps { problems.append("\(path): item \(a) \(fa) outside \(s.frame)") }
            }
            // A device width off the pixel grid (390 points at 2.625×) lets an edge that touches it
            // round past it by up to half a pixel.
            if fa.x < -eps || (s.contentSize.width <= s.frame.width + eps && fa.maxX > w + 0.5 / scale + eps) {
                problems.append("\(path): item \(a) \(fa) outside the screen width \(w)")
            }
            for b in (a + 1)..<max(a + 1, items.count) {
                let fb = items[b].frame
                let ox = min(fa.maxX, fb.maxX) - max(fa.x, fb.x)
                let oy = min(fa.maxY, fb.maxY) - max(fa.y, fb.y)
                if ox > eps && oy > eps { problems.append("\(path): items \(a) \(fa) and \(b) \(fb) overlap") }
            }
        }
        if let first = s.sections.first {
            checkStack(s.sections, top: first.frame.y, path: path)
            if let last = s.sections.last, last.frame.maxY > s.frame.maxY + eps { problems.append("\(path): children overflow") }
        }
    }

    checkStack(screen.sections, top: 0, path: "")
    if let last = screen.sections.last {
        if abs(screen.contentSize.height - last.frame.maxY) > eps {
            problems.append("content height \(screen.contentSize.height) ≠ last maxY \(last.frame.maxY)")
        }
    }
    return problems
}

@Suite("Properties")
struct PropertyTests {
    @Test(arguments: 0..<4)
    func randomScreensKeepTheInvariants(batch: Int) {
        var generator = ScreenGenerator(rng: SeededGenerator(seed: 0x5EED_0000 + UInt64(batch)))
        var itemsSeen = 0
        var horizontalOverflows = 0
        for n in 0..<100 {
            let request = generator.request()
            let screen = LayoutEngine.layout(request)
            let problems = invariantViolations(request, screen)
            let holds = problems.isEmpty
            #expect(holds, "screen \(n) of batch \(batch): \(problems.prefix(3))")
            // Vertical sections: every line but the last is justified to the right inset.
            for s in allSections(screen.sections) { itemsSeen += s.items.count }
            horizontalOverflows += allSections(screen.sections).filter { $0.contentSize.width > $0.frame.width }.count
            #expect(screen.sections.count == request.components.count)
        }
        // The generator does exercise the engine.
        #expect(itemsSeen > 1_000)
        #expect(horizontalOverflows > 10)
    }

    @Test func fullLinesReachTheRightInset() {
        var generator = ScreenGenerator(rng: SeededGenerator(seed: 42))
        var lines = 0
        for _ in 0..<200 {
            let request = generator.request()
            let screen = LayoutEngine.layout(request)
            let m = LayoutEngine.scaleFactor(device: request.device, family: request.family)
            let scale = request.device.scale
            for (component, section) in zip(request.components, screen.sections) where component.componentType == "grid" {
                let right = section.frame.maxX - request.family.insets.right.resolved(m)
                // Group the items into lines by their line's top: items of a line share one line box,
                // so a new line starts where an item begins left of its predecessor.
                var line: [LayoutFrame] = []
                var fullLines: [[LayoutFrame]] = []
                for item in section.items {
                    if let last = line.last, item.frame.x < last.maxX - 1e-6 {
                        fullLines.append(line)
                        line = []
                    }
                    line.append(item.frame)
                }
                for full in fullLines where full.count > 1 {
                    lines += 1
                    #expect(abs(full.last!.maxX - px(right, scale)) <= 1 / scale + 1e-9, "line ending at \(full.last!.maxX), inset at \(right)")
                }
            }
        }
        #expect(lines > 50)
    }

    @Test func largeSectionIsDeterministicAndConsistent() {
        let request = RiversLayoutTests.request(
            [vertical([style("A", columns: 3, height: 50), style("B", width: 77, height: 60)], limit: 3_000)],
            device: Device(width: 375, height: 667, scale: 3))
        let a = LayoutEngine.layout(request)
        let b = LayoutEngine.layout(request)
        #expect(a == b)
        #expect(a.sections[0].items.count == 3_000)
        #expect(invariantViolations(request, a).isEmpty)
    }
}

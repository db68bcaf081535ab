// Layout engine benchmark: cells per second, and how the cost per cell grows with the section size.
//
//   swift build -c release --product RiversLayoutBench && .build/release/RiversLayoutBench
//
// (a) a screen of 20 sections × 50 cells (lists, grids, horizontal lists, mixed styles, headers);
// (b) one vertical section of 100,000 cells;
// (c) cell content: the screen of (a) with every cell holding a 5-node content tree (a vertical
//     stack of an image, a title, a spacer and a subtitle), in content nodes per second (target:
//     10 million on one core), and its linearity from 1,000 to 100,000 cells;
// linearity = time per cell of (b) ÷ time per cell of a 1,000-cell section of the same kind
// (≈ 1.0 means linear). Each figure is the best of several interleaved rounds; the median of the
// per-round ratios is printed too.

import RiversCore
import RiversLayout

let device = Device(width: 375, height: 667, scale: 3)

let list = CellStyle(id: "LIST_1", width: .columns(1), height: .points(80))
let grid2 = CellStyle(id: "GRID_2", width: .columns(2), height: .aspectRatio(16.0 / 9.0))
let grid3 = CellStyle(id: "GRID_3", width: .columns(3), height: .aspectRatio(2.0 / 3.0))
let hero = CellStyle(id: "HERO_1", width: .columns(1), height: .aspectRatio(16.0 / 9.0))
let card = CellStyle(id: "CARD_1", width: .points(140), height: .points(120))
let chip = CellStyle(id: "CHIP_1", width: .points(90), height: .points(40))
// Headers 30 points tall, footers 20.
let header = CellStyle(id: "HEADER_1", width: .columns(1), height: .points(30))
let footer = CellStyle(id: "FOOTER_1", width: .columns(1), height: .points(20))

func family(content: ContentNode? = nil) -> Family {
    Family(
        id: "FAMILY_1", name: "Phones", referenceSize: Size(width: 320, height: 568), insets: Insets(all: 10),
        interitemSpacing: 10, lineSpacing: 10,
        cellStyles: [list, grid2, grid3, hero, card, chip].map { style in
            var style = style
            style.content = content
            return style
        } + [header, footer])
}

/// Five nodes: a poster with a title, a spacer and a subtitle under it.
let content = ContentNode(
    .stack(.init(axis: .vertical, spacing: 4, alignment: .fill)),
    children: [
        ContentNode(.image(.init(aspectRatio: .init(width: 16, height: 9), placeholder: .poster))),
        ContentNode(.text(.init(role: .title, lineHeight: 17))),
        ContentNode(.spacer),
        ContentNode(.text(.init(role: .subtitle, lineHeight: 14)), padding: .init(left: .fixed(2))),
    ],
    padding: .init(all: 8))
let contentNodes = content.nodeCount

/// The same screen with every cell holding `content`.
func withContent(_ request: LayoutRequest) -> LayoutRequest {
    var request = request
    request.family = family(content: content)
    return request
}

func component(_ type: String, _ styles: [CellStyle], header: Bool = false, footer: Bool = false, cells: Int) -> Component {
    Component(
        id: "", componentType: type, cellStyles: styles.map(\.id),
        header: SectionDecoration(visible: header, style: "HEADER_1"), footer: SectionDecoration(visible: footer, style: "FOOTER_1"),
        itemLimit: cells)
}

func screen(sections: Int, cells: Int) -> LayoutRequest {
    let components = (0..<sections).map { i in
        switch i % 5 {
        case 0: component("list", [hero, grid2], header: true, cells: cells)
        case 1: component("grid", [grid3], header: true, cells: cells)
        case 2: component("horizontal_list", [card], header: true, cells: cells)
        case 3: component("list", [list], footer: true, cells: cells)
        default: component("grid", [card, chip, grid2], cells: cells)
        }
    }
    return LayoutRequest(device: device, family: family(), components: components)
}

/// One big vertical section: a hero, then a 3-column grid with a mixed-width style now and then.
func bigSection(cells: Int) -> LayoutRequest {
    LayoutRequest(device: device, family: family(), components: [component("grid", [hero, grid3], header: true, cells: cells)])
}

func seconds(_ d: Duration) -> Double {
    let c = d.components
    return Double(c.seconds) + Double(c.attoseconds) * 1e-18
}

nonisolated(unsafe) var sink = 0.0

/// Time for one layout of `request`, averaged over `repetitions` layouts.
func timeOne(_ request: LayoutRequest, repetitions: Int) -> Double {
    let clock = ContinuousClock()
    var acc = 0.0
    let d = clock.measure {
        for _ in 0..<repetitions {
            let layout = LayoutEngine.layout(request)
            acc += layout.contentSize.height + Double(layout.sections[0].items.count)
        }
    }
    sink += acc
    return seconds(d) / Double(repetitions)
}

func cellCount(_ request: LayoutRequest) -> Int {
    func count(_ s: [SectionLayout]) -> Int { s.reduce(0) { $0 + $1.items.count + count($1.sections) } }
    return count(LayoutEngine.layout(request).sections)
}

func format(_ v: Double, _ decimals: Int) -> String {
    var p = 1.0
    for _ in 0..<decimals { p *= 10 }
    let r = (v * p).rounded() / p
    var s = String(r)
    if let dot = s.firstIndex(of: "."), s.distance(from: dot, to: s.endIndex) - 1 < decimals {
        s += String(repeating: "0", count: decimals - (s.distance(from: dot, to: s.endIndex) - 1))
    }
    return s
}

func millions(_ perSecond: Double) -> String { format(perSecond / 1e6, 2) + " M cells/s" }

let screenRequest = screen(sections: 20, cells: 50)
let bigRequest = bigSection(cells: 100_000)
let smallRequest = bigSection(cells: 1_000)
let contentRequest = withContent(screenRequest)
let bigContentRequest = withContent(bigRequest)
let smallContentRequest = withContent(smallRequest)
let screenCells = cellCount(screenRequest)
let bigCells = cellCount(bigRequest)
let smallCells = cellCount(smallRequest)

// Warm up.
_ = timeOne(screenRequest, repetitions: 200)
_ = timeOne(bigRequest, repetitions: 2)
_ = timeOne(smallRequest, repetitions: 200)
_ = timeOne(contentRequest, repetitions: 100)

// Rounds interleave the three cases so that they see the same machine (this runs on shared, noisy
// cores); each figure is the best round, each round about 30 ms per case.
let rounds = 15
var screenTime = Double.infinity
var bigTime = Double.infinity
var smallTime = Double.infinity
var ratios: [Double] = []
var contentTime = Double.infinity
var bigContentTime = Double.infinity
var smallContentTime = Double.infinity
var contentRatios: [Double] = []
/// One round of the big and the small section: each one's best time so far, and the round's
/// ratio of their times per cell.
func sections(_ big: LayoutRequest, _ small: LayoutRequest, bigRepetitions: Int, smallRepetitions: Int,
              best: inout (big: Double, small: Double), ratios: inout [Double]) {
    let bigTime = timeOne(big, repetitions: bigRepetitions)
    let smallTime = timeOne(small, repetitions: smallRepetitions)
    best = (min(best.big, bigTime), min(best.small, smallTime))
    ratios.append((bigTime / Double(bigCells)) / (smallTime / Double(smallCells)))
}
for _ in 0..<rounds {
    contentTime = min(contentTime, timeOne(contentRequest, repetitions: 200))
    var contentBest = (big: bigContentTime, small: smallContentTime)
    sections(bigContentRequest, smallContentRequest, bigRepetitions: 2, smallRepetitions: 200, best: &contentBest, ratios: &contentRatios)
    (bigContentTime, smallContentTime) = contentBest
    screenTime = min(screenTime, timeOne(screenRequest, repetitions: 1_000))
    var best = (big: bigTime, small: smallTime)
    sections(bigRequest, smallRequest, bigRepetitions: 10, smallRepetitions: 1_000, best: &best, ratios: &ratios)
    (bigTime, smallTime) = best
}
ratios.sort()
contentRatios.sort()

let screenRate = Double(screenCells) / screenTime
let bigRate = Double(bigCells) / bigTime
let smallRate = Double(smallCells) / smallTime
let linearity = (bigTime / Double(bigCells)) / (smallTime / Double(smallCells))

print("RiversLayout benchmark (best of \(rounds) rounds, one core, device 375×667 @3x)")
print("(a) screen, 20 sections × 50 cells (\(screenCells) cells): \(format(screenTime * 1e6, 1)) µs per layout, \(millions(screenRate))")
print("(b) one section of \(bigCells) cells: \(format(bigTime * 1e3, 2)) ms per layout, \(millions(bigRate))")
print("    one section of \(smallCells) cells: \(format(smallTime * 1e6, 1)) µs per layout, \(millions(smallRate))")
print("linearity (time per cell, \(bigCells) ÷ \(smallCells) cells): \(format(linearity, 2)) best ÷ best, \(format(ratios[ratios.count / 2], 2)) median of rounds")
let nodeRate = Double(screenCells * contentNodes) / contentTime
print("(c) the screen of (a) with a \(contentNodes)-node content tree in every cell: \(format(contentTime * 1e6, 1)) µs per layout, \(format(nodeRate / 1e6, 2)) M content nodes/s (target ≥ 10 M: \(format(nodeRate / 10e6, 2))× the target), cells and content")
print("    one section of \(bigCells) cells with content: \(format(bigContentTime * 1e3, 2)) ms, \(format(Double(bigCells * contentNodes) / bigContentTime / 1e6, 2)) M nodes/s; linearity \(format((bigContentTime / Double(bigCells)) / (smallContentTime / Double(smallCells)), 2)) best ÷ best, \(format(contentRatios[contentRatios.count / 2], 2)) median")
if sink == 42 { print("") }  // keeps the results alive

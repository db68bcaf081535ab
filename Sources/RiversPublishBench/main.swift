import Foundation
import RiversCore

// Publishing benchmark: time to generate the document of an app with 200 screens × 20 components
// (reading the stored screens, building the document, serialising it), best of several runs.
// `--emit-document FILE --screens N [--grid]`: writes such a document (for the serving benchmark)
// instead; `--grid` makes every component a grid with a visible header (the shape issue 13 measures).

func makeScreens(count: Int, components: Int, allGrids: Bool = false) -> [Screen] {
    (0..<count).map { s in
        Screen(
            id: UUIDText.random(), name: "Screen \(s)", screenType: "screen_\(s + 1)", home: s == 0, family: "FAMILY_1",
            styles: ["presentation": "push"],
            uiComponents: (0..<components).map { c in
                Component(
                    componentType: allGrids ? "grid" : ["list", "grid", "hero", "horizontal_list"][c % 4],
                    cellStyles: [allGrids || c % 2 == 1 ? "GRID_1" : "LIST_1"],
                    header: SectionDecoration(visible: allGrids || c % 3 == 0, style: "HEADER_1"), itemLimit: 6 + c % 5,
                    data: ComponentData(source: "feed-\(s)-\(c)", type: "APPLICASTER_COLLECTION"),
                    styles: ["cell_body_component_type": "list"])
            })
    }
}

let family = Family(
    id: "FAMILY_1", name: "Phones", referenceSize: Size(width: 320, height: 568),
    insets: Insets(top: 10, left: 10, bottom: 10, right: 10), interitemSpacing: 10, lineSpacing: 10,
    cellStyles: [CellStyle(id: "LIST_1", width: .columns(1), height: .points(80)), CellStyle(id: "GRID_1", width: .columns(2), height: .aspectRatio(1.5))])

let arguments = CommandLine.arguments
if let i = arguments.firstIndex(of: "--emit-document"), i + 1 < arguments.count {
    let count = arguments.firstIndex(of: "--screens").flatMap { Int(arguments[$0 + 1]) } ?? 12
    let allGrids = arguments.contains("--grid")
    let bytes = RiversDocument.bytes(screens: makeScreens(count: count, components: 10, allGrids: allGrids), screenPlugins: [:])
    FileManager.default.createFile(atPath: arguments[i + 1], contents: Data(bytes))
    print("wrote \(bytes.count) bytes (\(count) screens × 10 \(allGrids ? "grids with headers" : "components")) to \(arguments[i + 1])")
    exit(0)
}

let screens = makeScreens(count: 200, components: 20)
// What the store keeps: each screen's JSON. Reading it back is part of generating the document.
let stored = screens.map { $0.json.serialized() }
let options = Screen.ReadOptions()

// `--profile-read`: only parse and read the stored screens, over and over, on one thread (for
// `perf record`: the part of a publish from nothing that costs the most).
if arguments.contains("--profile-read") {
    var screensRead = 0
    for _ in 0..<40 {
        for text in stored { if Screen.read(try! JSONValue.parse(text), options: options, problems: Problems()) != nil { screensRead += 1 } }
    }
    print("read \(screensRead) screens")
    exit(0)
}
// `--profile-straight`: the same, decoded straight into types.
if arguments.contains("--profile-straight") {
    var screensRead = 0
    for _ in 0..<40 {
        for text in stored where StoredScreenDecoder.decode(text, options: options) != nil { screensRead += 1 }
    }
    print("decoded \(screensRead) screens")
    exit(0)
}
// `--profile-write`: only write the document of the screens read, over and over, on one thread.
if arguments.contains("--profile-write") {
    let screensRead = stored.map { Screen.read(try! JSONValue.parse($0), options: options, problems: Problems())! }
    var bytes = 0
    for _ in 0..<60 { bytes += RiversDocument.bytes(screens: screensRead, screenPlugins: [:]).count }
    print("wrote \(bytes) bytes")
    exit(0)
}

func generate() async -> [UInt8] {
    let read = await StoredScreens.read(stored, options: options).map { try! $0.get() }
    let problems = PublishCheck.problems(screens: read, families: ["FAMILY_1": family], knownScreenTypes: Screen.builtInTypes, catalog: .builtIn)
    precondition(problems.isEmpty, "\(problems.prefix(3))")
    return RiversDocument.bytes(screens: read, screenPlugins: [:])
}

func time(_ body: () -> Void) -> Double {
    let start = ContinuousClock.now
    body()
    let d = ContinuousClock.now - start
    return Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
}

var size = 0
_ = await generate()  // warm up
var best = Double.infinity
for _ in 0..<7 {
    let start = ContinuousClock.now
    size = await generate().count
    let d = ContinuousClock.now - start
    best = min(best, Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15)
}
let read = stored.map { Screen.read(try! JSONValue.parse($0), options: options, problems: Problems())! }

var parsed: [JSONValue] = []
let bestParse = (0..<5).map { _ in time { parsed = stored.map { try! JSONValue.parse($0) } } }.min()!
let bestRead = (0..<5).map { _ in time { _ = parsed.map { Screen.read($0, options: options, problems: Problems())! } } }.min()!
// Issue 26: the stored screens decoded straight into types (the fast path a publish takes).
let bestStraight = (0..<5).map { _ in time { _ = stored.map { StoredScreenDecoder.decode($0, options: options)! } } }.min()!
let bestCheck = (0..<5).map { _ in time {
    _ = PublishCheck.problems(screens: read, families: ["FAMILY_1": family], knownScreenTypes: Screen.builtInTypes, catalog: .builtIn)
} }.min()!
let bestWrite = (0..<5).map { _ in time { _ = RiversDocument.bytes(screens: read, screenPlugins: [:]) } }.min()!
// The parser on the request path is our own (line and column in errors, numbers never blurred
// into booleans, pointers for refused values); measured beside Foundation's on the same bytes.
let bestFoundationParse = (0..<5).map { _ in time { _ = stored.map { try! JSONSerialization.jsonObject(with: Data($0)) } } }.min()!
// What replacing ours would mean: swift-foundation's JSONDecoder into the same JSONValue.
let decoder = JSONDecoder()
let bestDecoderParse = (0..<5).map { _ in time { _ = stored.map { try! decoder.decode(JSONValue.self, from: Data($0)) } } }.min()!
print("document of 200 screens × 20 components: \(size) bytes")
print(String(format: "parse the stored screens: ours %.1f ms, Foundation's JSONSerialization %.1f ms (ours takes %.2f× Foundation's time)",
             bestParse, bestFoundationParse, bestParse / bestFoundationParse))
print(String(format: "parse into JSONValue: ours %.1f ms, Foundation's JSONDecoder %.1f ms (ours takes %.2f× JSONDecoder's time)",
             bestParse, bestDecoderParse, bestParse / bestDecoderParse))
print(String(format: "stages on one core: parse %.1f ms, read %.1f ms, check %.1f ms, write %.1f ms", bestParse, bestRead, bestCheck, bestWrite))
print(String(format: "decoded straight into types on one core: %.1f ms, against parse + read %.1f ms (%.2f× their time)",
             bestStraight, bestParse + bestRead, bestStraight / (bestParse + bestRead)))
print(String(format: "generate (read stored screens on all cores + check + write): %.1f ms (best of 7); target 50 ms → %.2f× the budget", best, best / 50))

// Incremental publishing (issue 26): what a publish does with `PublishedScreens`, the per-app
// cache the store keeps by row version. From nothing: every screen read, checked and written.
// After one change: one screen read and written again, every screen checked, the document joined.
let rows = stored.enumerated().map { PublishedScreens.Row(key: "\(screens[$0.offset].id):1", text: $0.element) }
func publish(_ rows: [PublishedScreens.Row], with cache: PublishedScreens) async -> ([UInt8], PublishedScreens) {
    var cache = cache
    let read = try! await cache.read(rows, options: options, screenPlugins: [:]).get()
    let problems = PublishCheck.problems(screens: read, families: ["FAMILY_1": family], knownScreenTypes: Screen.builtInTypes, catalog: .builtIn)
    precondition(problems.isEmpty, "\(problems.prefix(3))")
    let bytes = cache.document(keys: rows.map(\.key))
    return (bytes, cache)
}
var fromNothing = Double.infinity, afterOneChange = Double.infinity
var (whole, warm) = await publish(rows, with: PublishedScreens(stamp: ""))
precondition(whole == RiversDocument.bytes(screens: read, screenPlugins: [:]), "the incremental document differs from the whole one")
for round in 0..<7 {
    var start = ContinuousClock.now
    _ = await publish(rows, with: PublishedScreens(stamp: ""))
    var d = ContinuousClock.now - start
    fromNothing = min(fromNothing, Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15)
    // Screen 100 saved again (a new row version, its name changed).
    var changed = rows
    var screen = screens[100]
    screen.name = "Screen 100, round \(round)"
    changed[100] = PublishedScreens.Row(key: "\(screen.id):\(round + 2)", text: screen.json.serialized())
    start = ContinuousClock.now
    let (bytes, next) = await publish(changed, with: warm)
    d = ContinuousClock.now - start
    afterOneChange = min(afterOneChange, Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15)
    precondition(bytes != whole && bytes.count > whole.count, "the change is not in the document")
    warm = next
}
print(String(format: "incremental publish: from nothing %.1f ms (target 30 ms), after one screen changed %.2f ms (target 10 ms) (best of 7)",
             fromNothing, afterOneChange))

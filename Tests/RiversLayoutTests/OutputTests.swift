import Testing
import RiversCore
@testable import RiversLayout
#if canImport(FoundationXML)
import FoundationXML
#endif
import Foundation

/// Counts elements while XMLParser reads a document; records the first parse error.
final class SVGCounter: NSObject, XMLParserDelegate {
    var elements: [String: Int] = [:]
    var classes: [String: Int] = [:]
    var dimmedCells = 0
    var texts: [String] = []
    var root: String?
    private var opacityStack: [Bool] = []
    private var text = ""

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if root == nil { root = name }
        elements[name, default: 0] += 1
        if let c = attributes["class"] { classes[name + "." + c, default: 0] += 1 }
        let dim = attributes["opacity"] != nil
        if name == "rect", attributes["class"] == "cell", dim || opacityStack.contains(true) { dimmedCells += 1 }
        opacityStack.append(dim)
        text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        opacityStack.removeLast()
        if name == "text" { texts.append(text) }
        text = ""
    }
}

func parseSVG(_ svg: String) -> (SVGCounter, Bool) {
    let counter = SVGCounter()
    let parser = XMLParser(data: Data(svg.utf8))
    parser.delegate = counter
    let ok = parser.parse()
    return (counter, ok)
}

@Suite("SVG")
struct SVGTests {
    @Test func wellFormedWithOneRectPerCell() {
        let screen = layout([
            vertical(type: "grid <&> \"quoted\"", [style("GRID_1", columns: 2, height: 100)], header: 30, footer: 10, limit: 5),
            horizontal([style("CARD & <1>", width: 140, height: 80)], limit: 6),
            group([vertical([CellStyle(id: "WIDE", width: .points(900), height: .points(20))], limit: 2)]),
        ])
        let svg = SVGRenderer.render(screen)
        let (counter, ok) = parseSVG(svg)
        #expect(ok)
        #expect(counter.root == "svg")
        #expect(svg.contains(#"xmlns="http://www.w3.org/2000/svg""#))
        #expect(svg.contains("viewBox=\""))
        let cells = allSections(screen.sections).reduce(0) { $0 + $1.items.count }
        #expect(cells == 5 + 6 + 2)
        #expect(counter.classes["rect.cell"] == cells)
        #expect(counter.classes["rect.header"] == 1 && counter.classes["rect.footer"] == 1)
        #expect(counter.classes["rect.screen"] == 1 && counter.classes["line.fold"] == 1)
        // Labels come back unescaped: style and index; the component type with its markup characters.
        #expect(counter.texts.contains("CARD & <1> 5"))
        #expect(counter.texts.contains("GRID_1 0"))
        #expect(counter.texts.contains { $0.contains("grid <&> \"quoted\"") })
        // Six cards of 140 from x = 10: the third reaches 450 > 320; it and the rest are dimmed (items 2–5).
        #expect(counter.dimmedCells == 4)
        // The clamping warning is listed, naming the group's child by its path (2.0: the first child
        // of the third component), not as component 0.
        #expect(counter.classes["text.warning"] == screen.warnings.count && screen.warnings.count == 1)
        #expect(counter.texts.contains { $0.contains("component 2.0:") && $0.contains("clamped") })
    }

    @Test func largeLayoutRenders() {
        let screen = layout([vertical([style("G", columns: 3, height: 40)], limit: 3_000)])
        let (counter, ok) = parseSVG(SVGRenderer.render(screen))
        #expect(ok)
        #expect(counter.classes["rect.cell"] == 3_000)
    }
}

@Suite("JSON")
struct JSONTests {
    @Test func encodesSnakeCaseKeysAndNulls() throws {
        let screen = layout(
            [vertical([style("GRID_1", columns: 2, height: 100)], header: 20, limit: 1)], connected: true,
            sample: .children([]))
        let data = try JSONEncoder().encode(screen)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["device", "content_size", "warnings", "sections"])
        let device = try #require(object["device"] as? [String: Any])
        #expect(Set(device.keys) == ["width", "height", "scale"])
        let warnings = try #require(object["warnings"] as? [[String: Any]])
        #expect(warnings.count == 1)
        #expect(Set(warnings[0].keys) == ["component_index", "component_path", "message"])
        #expect(warnings[0]["component_path"] as? [Int] == [0])
        #expect(warnings[0]["message"] as? String == "empty")
        let section = try #require((object["sections"] as? [[String: Any]])?.first)
        #expect(Set(section.keys) == ["component_index", "component_type", "frame", "header", "footer", "content_size", "items", "sections"])
        #expect(section["footer"] is NSNull)
        #expect(Set(try #require(section["header"] as? [String: Any]).keys) == ["x", "y", "width", "height"])
        #expect(Set(try #require(section["content_size"] as? [String: Any]).keys) == ["width", "height"])

        let withItems = layout([vertical([style("GRID_1", columns: 2, height: 100)], limit: 1)])
        let itemObject = try #require(
            ((try JSONSerialization.jsonObject(with: JSONEncoder().encode(withItems)) as? [String: Any])?["sections"] as? [[String: Any]])?
                .first?["items"] as? [[String: Any]])
        #expect(Set(itemObject[0].keys) == ["index", "cell_style", "frame"])
        #expect(itemObject[0]["cell_style"] as? String == "GRID_1")

        // A screen-level warning has a null component index.
        let screenWarning = layout([vertical([style("G", columns: 1, height: 1)])], sample: .children([1]))
        let w = try #require((try JSONSerialization.jsonObject(with: JSONEncoder().encode(screenWarning)) as? [String: Any])?["warnings"] as? [[String: Any]])
        #expect(w[0]["component_index"] is NSNull)
    }

    @Test func roundTrips() throws {
        let screen = layout([
            vertical([style("A", columns: 2, height: 10)], header: 5, footer: 5),
            group([horizontal([style("H", width: 50, height: 10)])]),
        ], sample: .children([1]))
        let decoded = try JSONDecoder().decode(ScreenLayout.self, from: JSONEncoder().encode(screen))
        #expect(decoded == screen)
    }

    @Test func decodesSamplesAndDevices() throws {
        let counts = try JSONDecoder().decode(Sample.self, from: Data(#"{"counts": {"0": 4, "3": 1, "2.0": 5}}"#.utf8))
        #expect(counts == .counts([[0]: 4, [3]: 1, [2, 0]: 5]))
        #expect(try JSONDecoder().decode(Sample.self, from: JSONEncoder().encode(counts)) == counts)
        for key in ["x", "", "1.", ".1", "1..2", "-1", "1234567890", Array(repeating: "0", count: Sample.maxPathDepth + 1).joined(separator: ".")] {
            #expect(throws: DecodingError.self, "\(key)") { try JSONDecoder().decode(Sample.self, from: Data(#"{"counts": {"\#(key)": 1}}"#.utf8)) }
        }
        #expect(Sample.path(Array(repeating: "0", count: Sample.maxPathDepth).joined(separator: ".")) == Array(repeating: 0, count: Sample.maxPathDepth))
        let children = try JSONDecoder().decode(Sample.self, from: Data(#"{"children": [2, 9]}"#.utf8))
        #expect(children == .children([2, 9]))
        let device = try JSONDecoder().decode(Device.self, from: Data(#"{"width": 375, "height": 667, "scale": 3}"#.utf8))
        #expect(device == Device(width: 375, height: 667, scale: 3))
    }
}

/// The engine reads the domain's own values: a screen's components, its family's cell styles and
/// rules, the catalog's axes, headers sized by their style.
@Suite("One vocabulary")
struct DomainInputTests {
    @Test func aScreenIsLaidOutFromItsComponentsFamilyAndCatalog() throws {
        let family = Family(
            id: "FAMILY_1", name: "Phones", referenceSize: Size(width: 320, height: 568), insets: Insets(all: 10),
            interitemSpacing: 10, lineSpacing: 10,
            cellStyles: [
                CellStyle(id: "HERO_1", width: .columns(1), height: .aspectRatio(16.0 / 9.0)),
                CellStyle(id: "CARD", width: .points(140), height: .points(80)),
                CellStyle(id: "HEADER_1", width: .columns(1), height: .points(30)),
                CellStyle(id: "TALL_HEADER", width: .columns(2), height: .aspectRatio(1)),
            ])
        let screen = Screen(
            name: "Home", screenType: "general", home: true, connected: true, family: "FAMILY_1",
            uiComponents: [
                // A list is vertical in the catalog; its header is its style's 30 points tall.
                Component(componentType: "list", cellStyles: ["HERO_1", "NOT_IN_THE_FAMILY"], header: SectionDecoration(visible: true, style: "HEADER_1"), itemLimit: 3),
                Component(componentType: "group", header: SectionDecoration(visible: true, style: "TALL_HEADER"), uiComponents: [
                    // A hero is a carousel: horizontal. A footer with no style is 44 points tall.
                    Component(componentType: "hero", cellStyles: ["CARD"], footer: SectionDecoration(visible: true)),
                    // A hidden header takes no room; an unknown type lays out as a vertical list.
                    Component(componentType: "my_plugin", cellStyles: ["CARD"], header: SectionDecoration(visible: false, style: "HEADER_1"), itemLimit: 1),
                ]),
            ])
        let request = LayoutRequest(screen: screen, family: family, catalog: .builtIn, device: Device(width: 320, height: 568, scale: 4), sample: .children([2, 9, 4]))
        #expect(request.connected && request.components.count == 2)
        #expect(LayoutEngine.itemCount(request) == 2 + 9 + 1)
        let layout = LayoutEngine.layout(request)
        let list = layout.sections[0]
        #expect(list.header == frame(10, 0, 300, 30))
        #expect(list.items.map(\.frame) == [frame(10, 40, 300, 168.75), frame(10, 218.75, 300, 168.75)])
        #expect(list.items.map(\.cellStyle) == ["HERO_1", "HERO_1"])
        let group = layout.sections[1]
        #expect(group.componentType == "group" && group.items.isEmpty)
        // A header styled by a non-points style is as tall as that style's cell at the reference size: 145.
        #expect(group.header == frame(10, list.frame.maxY, 300, 145))
        let carousel = group.sections[0]
        #expect(carousel.items.count == 9 && carousel.items.map(\.frame.y).allSatisfy { $0 == carousel.items[0].frame.y })
        #expect(carousel.contentSize.width > carousel.frame.width)
        #expect(carousel.footer?.height == LayoutEngine.defaultDecorationHeight)
        let plugin = group.sections[1]
        #expect(plugin.componentIndex == 1 && plugin.header == nil && plugin.items.count == 1)
    }

    @Test func theCellDesignerLaysOutOneCellOfAStyle() {
        let style = CellStyle(id: "GRID_1", width: .columns(2), height: .points(100))
        let family = Family(id: "F", name: "F", referenceSize: Size(width: 320, height: 568), insets: Insets(all: 10), interitemSpacing: 10, cellStyles: [style])
        let layout = LayoutEngine.layout(LayoutRequest.cell(style, family: family, device: Device(width: 320, height: 568, scale: 2)))
        #expect(layout.sections.count == 1 && layout.sections[0].items.count == 1)
        #expect(layout.sections[0].items[0].frame == frame(10, 10, 145, 100))
        #expect(layout.warnings.isEmpty)
    }
}

@Suite("SVG numbers and text, written as bytes")
struct SVGBytesTests {
    @Test("numbers: at most the decimals asked, no trailing zeros, no exponent, no negative zero")
    func numbers() {
        let cases: [(Double, Int, String)] = [
            (0, 3, "0"), (-0.0001, 3, "0"), (145, 3, "145"), (72.96875, 3, "72.969"), (0.05, 3, "0.05"), (-2.5, 3, "-2.5"),
            (1.0005, 2, "1"), (0.007, 3, "0.007"), (123456.789, 2, "123456.79"), (1e20, 3, "1e+20"),
            (.nan, 3, "NaN"), (.infinity, 3, "infinity"), (-.infinity, 3, "-infinity"),
        ]
        for (value, decimals, expected) in cases {
            #expect(fmt(value, decimals: decimals) == expected, "\(value) with \(decimals) decimals")
        }
    }

    @Test("text: markup characters escaped, characters XML forbids dropped, the rest kept")
    func text() {
        #expect(SVGRenderer.escape(#"a<b>&"c"'d"#) == "a&lt;b&gt;&amp;&quot;c&quot;&apos;d")
        #expect(SVGRenderer.escape("tab\tline\nbell\u{07}null\u{00}") == "tab\tline\nbellnull")
        #expect(SVGRenderer.escape("é ⚠ \u{FFFE}x\u{FFFF}y") == "é ⚠ xy")
    }
}

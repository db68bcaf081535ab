import Foundation
import Testing
import RiversCore
import RiversLayout

/// The worked example of issue 16 (docs/cell-content.md): a 2-column cell whose content is a
/// vertical stack (padding 8, spacing 4, alignment fill) of a 16:9 image and a one-line title.
func posterContent(padding: Length = 8) -> ContentNode {
    ContentNode(
        .stack(.init(axis: .vertical, spacing: 4, alignment: .fill)),
        children: [
            ContentNode(.image(.init(aspectRatio: .init(width: 16, height: 9), placeholder: .poster))),
            ContentNode(.text(.init(role: .title, lineHeight: 17, maxLines: 1))),
        ],
        padding: .init(all: padding))
}

func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> LayoutFrame { LayoutFrame(x: x, y: y, width: w, height: h) }

/// A frame from unrounded edges, rounded at `scale` as cells are: what the engine must give.
func rounded(_ x: Double, _ y: Double, _ maxX: Double, _ maxY: Double, scale: Double) -> LayoutFrame {
    let x0 = (x * scale).rounded(), y0 = (y * scale).rounded(), x1 = (maxX * scale).rounded(), y1 = (maxY * scale).rounded()
    return LayoutFrame(x: x0 / scale, y: y0 / scale, width: (x1 - x0) / scale, height: (y1 - y0) / scale)
}

func firstCellContent(_ screen: ScreenLayout) -> [ContentNodeLayout] {
    screen.sections[0].content(of: screen.sections[0].items[0])
}

@Suite("Cell content")
struct ContentTests {
    @Test func workedExampleAtTheReferenceSize() {
        let content = posterContent()
        #expect(ContentLayout.fitHeight(content, width: 145, m: 1) == 109.5625)
        let plan = ContentLayout.plan(content, width: 145, height: 109.5625, m: 1)
        #expect(plan.frames == [rect(0, 0, 145, 109.5625), rect(8, 8, 129, 72.5625), rect(8, 84.5625, 129, 17)])
        #expect(plan.nodes.map(\.kind) == [.stack, .image, .text])
        #expect(plan.nodes.map(\.pointer) == ["", "/children/0", "/children/1"])
        #expect(plan.nodes[2].role == .title && plan.nodes[2].lines == 1)
        #expect(plan.neededHeight == 109.5625)
    }

    /// The same cell laid out by the engine on the reference device, where it starts at (10, 10).
    @Test(arguments: [1.0, 2, 3])
    func workedExampleRoundsLikeCells(scale: Double) {
        let screen = layout(
            [vertical([CellStyle(id: "GRID_1", width: .columns(2), height: .fit, content: posterContent())], limit: 2)],
            device: Device(width: 320, height: 568, scale: scale))
        let section = screen.sections[0]
        let items = section.items
        #expect(items.count == 2)
        let cell = items[0]
        #expect(cell.frame == rounded(10, 10, 155, 119.5625, scale: scale))
        #expect(section.content(of: cell).map(\.frame) == [
            rounded(10, 10, 155, 119.5625, scale: scale),
            rounded(18, 18, 147, 90.5625, scale: scale),
            rounded(18, 94.5625, 147, 111.5625, scale: scale),
        ])
        // The second cell's content moves with it.
        #expect(section.content(of: items[1])[1].frame == rounded(173, 18, 302, 90.5625, scale: scale))
        #expect(section.contentFrames.count == 6, "one buffer for the section: three frames a cell")
        #expect(screen.warnings.isEmpty)
    }

    @Test func exactFramesAtScale2And3() {
        let at2 = layout([vertical([CellStyle(id: "G", width: .columns(2), height: .fit, content: posterContent())], limit: 1)])
        #expect(firstCellContent(at2).map(\.frame) == [
            LayoutFrame(x: 10, y: 10, width: 145, height: 109.5),
            LayoutFrame(x: 18, y: 18, width: 129, height: 72.5),
            LayoutFrame(x: 18, y: 94.5, width: 129, height: 17),
        ])
        let at3 = layout(
            [vertical([CellStyle(id: "G", width: .columns(2), height: .fit, content: posterContent())], limit: 1)],
            device: Device(width: 320, height: 568, scale: 3))
        #expect(firstCellContent(at3).map(\.frame) == [
            LayoutFrame(x: 10, y: 10, width: 145, height: (359 - 30) / 3.0),
            LayoutFrame(x: 18, y: 18, width: 129, height: (272 - 54) / 3.0),
            LayoutFrame(x: 18, y: 284 / 3.0, width: 129, height: 17),
        ])
    }

    /// On a 375×667 device, m = min(375/320, 667/568) = 1.171875: every scalable length is
    /// multiplied by it; a fixed padding stays 8 points and leaves the image wider.
    @Test func onA375WideDeviceScalableAndFixedPadding() {
        let m = 1.171875
        let width = (375 - 30 * m) / 2
        #expect(width == 169.921875)

        let scalable = ContentLayout.plan(posterContent(), width: width, height: ContentLayout.fitHeight(posterContent(), width: width, m: m), m: m)
        #expect(scalable.frames == [
            rect(0, 0, width, 128.3935546875),
            rect(9.375, 9.375, 151.171875, 85.0341796875),
            rect(9.375, 99.0966796875, 151.171875, 19.921875),
        ])
        #expect(128.3935546875 == 109.5625 * m, "all scalable: the reference cell times m")

        let fixed = posterContent(padding: .fixed(8))
        let fitHeight = ContentLayout.fitHeight(fixed, width: width, m: m)
        #expect(fitHeight == 127.1904296875)
        let plan = ContentLayout.plan(fixed, width: width, height: fitHeight, m: m)
        #expect(plan.frames == [
            rect(0, 0, width, 127.1904296875),
            rect(8, 8, 153.921875, 86.5810546875),
            rect(8, 99.2685546875, 153.921875, 19.921875),
        ])

        // Through the engine at 2×: the first cell at (10m, 10m) = (11.71875, 11.71875).
        let screen = layout(
            [vertical([CellStyle(id: "G", width: .columns(2), height: .fit, content: fixed)], limit: 1)],
            device: Device(width: 375, height: 667, scale: 2))
        let o = 11.71875
        #expect(firstCellContent(screen).map(\.frame) == [
            rounded(o, o, o + width, o + 127.1904296875, scale: 2),
            rounded(o + 8, o + 8, o + 8 + 153.921875, o + 8 + 86.5810546875, scale: 2),
            rounded(o + 8, o + 99.2685546875, o + 8 + 153.921875, o + 99.2685546875 + 19.921875, scale: 2),
        ])
    }

    /// Fixed family lengths do not scale: a 1-column cell between fixed 16-point insets.
    @Test func fixedInsetsAndSpacingDoNotScale() {
        let family = referenceFamily(insets: Insets(top: .fixed(4), left: .fixed(16), bottom: 10, right: .fixed(16)), spacing: .fixed(10))
        let device = Device(width: 640, height: 1136, scale: 1)  // m = 2
        let screen = layout([vertical([style("ONE", columns: 1, height: .fixed(50)), style("TWO", columns: 2, height: 50)], limit: 3)], device: device, family: family)
        let items = screen.sections[0].items
        #expect(items[0].frame == LayoutFrame(x: 16, y: 4, width: 608, height: 50))
        // Two columns: (608 − 10) / 2 = 299 wide; line spacing 10 scales to 20.
        #expect(items[1].frame == LayoutFrame(x: 16, y: 74, width: 299, height: 100))
        #expect(items[2].frame == LayoutFrame(x: 325, y: 74, width: 299, height: 100))
        #expect(screen.sections[0].frame.height == 4 + 50 + 20 + 100 + 20)
    }

    @Test func overlayPlacesChildrenByAlignAndOffset() {
        let content = ContentNode(.overlay, children: [
            ContentNode(.image(.init(aspectRatio: .init(2), placeholder: .poster))),
            ContentNode(.text(.init(role: .badge, fontSize: 10, lineHeight: 12)), frame: .init(width: 30), align: .topTrailing, offset: .init(x: -4, y: 4)),
            ContentNode(.text(.init(role: .caption, lineHeight: 10, maxLines: 2)), align: .bottom),
        ])
        #expect(ContentLayout.fitHeight(content, width: 100, m: 1) == 50)
        let plan = ContentLayout.plan(content, width: 100, height: 50, m: 1)
        #expect(plan.frames == [rect(0, 0, 100, 50), rect(0, 0, 100, 50), rect(66, 4, 30, 12), rect(0, 30, 100, 20)])
    }

    @Test func horizontalStackSharesWhatIsLeft() {
        // [image 40×40 | title | badge 24 wide], spacing 8, centred across.
        let content = ContentNode(
            .stack(.init(axis: .horizontal, spacing: 8, alignment: .center)),
            children: [
                ContentNode(.image(.init(aspectRatio: .init(1), placeholder: .avatar)), frame: .init(height: 40)),
                ContentNode(.text(.init(role: .title, lineHeight: 20))),
                ContentNode(.text(.init(role: .badge, lineHeight: 16)), frame: .init(width: 24)),
            ],
            padding: .init(top: 10, left: 12, bottom: 10, right: 12))
        #expect(ContentLayout.fitHeight(content, width: 300, m: 1) == 60)
        let plan = ContentLayout.plan(content, width: 300, height: 60, m: 1)
        // Inner width 276: 40 + 8 + title + 8 + 24 → the title is 196 wide.
        #expect(plan.frames == [rect(0, 0, 300, 60), rect(12, 10, 40, 40), rect(60, 20, 196, 20), rect(264, 22, 24, 16)])
    }

    @Test func distributionInATallerStack() {
        func stack(_ d: ContentNode.Distribution, spacer: Bool) -> ContentNode {
            var children = [
                ContentNode(.text(.init(lineHeight: 10))),
                ContentNode(.text(.init(lineHeight: 20))),
            ]
            if spacer { children.insert(ContentNode(.spacer), at: 1) }
            return ContentNode(.stack(.init(axis: .vertical, distribution: d)), children: children)
        }
        // A 100-tall cell: 30 points of text, 70 left.
        #expect(ContentLayout.plan(stack(.leading, spacer: false), width: 50, height: 100, m: 1).frames.map(\.height) == [100, 10, 20])
        #expect(ContentLayout.plan(stack(.fill, spacer: false), width: 50, height: 100, m: 1).frames.map(\.height) == [100, 45, 55])
        #expect(ContentLayout.plan(stack(.equal, spacer: false), width: 50, height: 100, m: 1).frames.map(\.height) == [100, 50, 50])
        let withSpacer = ContentLayout.plan(stack(.leading, spacer: true), width: 50, height: 100, m: 1).frames
        #expect(withSpacer.map(\.height) == [100, 10, 70, 20])
        #expect(withSpacer[3].y == 80, "the spacer pushes the last text to the bottom")
    }

    @Test func contentTallerThanAFixedCellIsAWarning() {
        let screen = layout([vertical([CellStyle(id: "SHORT", width: .columns(2), height: .points(50), content: posterContent())], limit: 1)])
        #expect(screen.warnings.map(\.message) == ["cell style SHORT: the content needs 109.56 points, the cell is 50 tall"])
    }

    @Test func previewJSONListsContentOnlyWhereThereIsSome() throws {
        let screen = layout([
            vertical([CellStyle(id: "G", width: .columns(2), height: .fit, content: posterContent())], limit: 1),
            vertical([style("PLAIN", columns: 1, height: 40)], limit: 1),
        ])
        let json = try JSONValue.parse(Array(JSONEncoder().encode(screen)))
        let sections = json["sections"]?.arrayValue ?? []
        #expect(sections.count == 2)
        let withContent = sections[0]["items"]?.arrayValue?.first?["content"]?.arrayValue ?? []
        #expect(withContent.count == 3)
        #expect(withContent[1] == ["node": 1, "kind": "image", "placeholder": "poster", "frame": ["x": 18, "y": 18, "width": 129, "height": 72.5]])
        #expect(withContent[2]["role"] == "title" && withContent[2]["lines"] == 1)
        #expect(sections[1]["items"]?.arrayValue?.first?["content"] == nil)
    }

    @Test func svgDrawsPlaceholdersAndTextBars() {
        let content = posterContent()
        var twoLines = content
        twoLines.children[1] = ContentNode(.text(.init(role: .title, lineHeight: 17, maxLines: 2)))
        let svg = SVGRenderer.render(layout([vertical([CellStyle(id: "G", width: .columns(2), height: .fit, content: twoLines)], limit: 2)]))
        #expect(svg.components(separatedBy: "class=\"content-image poster\"").count - 1 == 2)
        #expect(svg.components(separatedBy: "class=\"content-text-line title\"").count - 1 == 4, "two lines in each of two cells")
    }
}

@Suite("Layout JSON")
struct LayoutJSONTests {
    /// The preview's own writer gives the document JSONEncoder gives: groups, headers, footers,
    /// warnings with and without a component, cells with and without content.
    @Test func theWriterAgreesWithJSONEncoder() throws {
        var generator = ScreenGenerator(rng: SeededGenerator(seed: 77))
        var requests = (0..<20).map { _ in generator.request() }
        requests.append(request(
            [
                vertical([CellStyle(id: "G", width: .columns(2), height: .fit, content: posterContent())], limit: 3),
                vertical([CellStyle(id: "TOO_WIDE", width: .points(900), height: .points(40))], header: 30, footer: 20, limit: 2),
            ],
            device: Device(width: 375, height: 667, scale: 3)))
        requests.append(LayoutRequest(device: Device(width: -1, height: 500, scale: 2), family: referenceFamily(), components: []))
        for request in requests {
            let screen = LayoutEngine.layout(request)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let expected = try JSONValue.parse(Array(encoder.encode(screen)))
            let written = try JSONValue.parse(screen.jsonBytes())
            #expect(written == expected)
        }
    }
}

/// Rounding is a pass of its own (`PixelGrid`), and a `fit` cell is measured and laid out at once.
@Suite("Pixel grid and fit")
struct PixelGridTests {
    /// Side by side at the same fractional offsets, an image rounds to the nearest pixels and a
    /// text does not lose its last part of a pixel: its far edge goes to the next pixel up.
    @Test func aTextIsNeverRoundedDown() {
        let content = ContentNode(
            .stack(.init(axis: .horizontal, alignment: .leading)),
            children: [
                ContentNode(.image(.init(placeholder: .poster)), frame: .init(height: .fixed(10.2))),
                ContentNode(.text(.init(role: .title, lineHeight: .fixed(10.2), maxLines: 1))),
            ],
            padding: .init(top: .fixed(0.6)))
        let screen = layout(
            [vertical([CellStyle(id: "ROW", width: .columns(1), height: .points(30), content: content)], limit: 1)],
            device: Device(width: 320, height: 568, scale: 1))
        let nodes = firstCellContent(screen)
        #expect(nodes.map(\.info.kind) == [.stack, .image, .text])
        // Both span 10.6 to 20.8: the image is 11 to 21, the text 11 to 22.
        #expect(nodes[1].frame == rect(10, 11, 150, 10))
        #expect(nodes[2].frame == rect(160, 11, 150, 11))
    }

    @Test func noTextIsSmallerThanItsLinesAtAnyScale() {
        let twoLines = ContentNode(
            .stack(.init(axis: .vertical, spacing: 3.3)),
            children: [
                ContentNode(.image(.init(aspectRatio: .init(width: 16, height: 9), placeholder: .poster))),
                ContentNode(.text(.init(role: .title, lineHeight: 17.3, maxLines: 2))),
                ContentNode(.text(.init(role: .subtitle, lineHeight: 13.1, maxLines: 1)), padding: .init(left: .fixed(2.2))),
            ],
            padding: .init(all: 7.7))
        var texts = 0
        for (width, height) in [(320.0, 568.0), (375, 667), (390, 844), (411, 731), (768, 1024)] {
            for scale in [1.0, 1.5, 2, 2.625, 3] {
                let device = Device(width: width, height: height, scale: scale)
                let m = LayoutEngine.scaleFactor(device: device, family: referenceFamily())
                let screen = layout([vertical([CellStyle(id: "G", width: .columns(3), height: .fit, content: twoLines)], limit: 7)], device: device)
                for item in screen.sections[0].items {
                    for node in screen.sections[0].content(of: item) where node.info.kind == .text {
                        texts += 1
                        let needed = (node.info.lineHeight ?? 0) * Double(node.info.lines ?? 0)
                        #expect(node.frame.height >= needed - 1e-9, "\(node.frame) at \(width)×\(height)@\(scale), m \(m), needs \(needed)")
                        #expect(onGrid(node.frame.y, scale) && onGrid(node.frame.maxY, scale))
                    }
                }
            }
        }
        #expect(texts == 5 * 5 * 7 * 2)
    }

    /// A `fit` plan gives the frames of a plan at the height `fitHeight` measures.
    @Test func aFitCellIsMeasuredAndLaidOutAtOnce() {
        let contents = [posterContent(), posterContent(padding: .fixed(3)), ContentNode(.text(.init(lineHeight: 20, maxLines: 3)))]
        for content in contents {
            for (width, m) in [(145.0, 1.0), (169.921875, 1.171875), (300, 2.5)] {
                let fit = ContentLayout.plan(content, width: width, height: nil, m: m)
                let height = ContentLayout.fitHeight(content, width: width, m: m)
                #expect(fit == ContentLayout.plan(content, width: width, height: height, m: m))
                #expect(fit.neededHeight == height)
            }
        }
    }
}

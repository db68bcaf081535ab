import Testing
import RiversCore
import RiversLayout

// One case per rule of spec/layout-rules.md. Unless said otherwise: device 320×568 @2x, family
// 320×568 with insets 10, spacing 10, line spacing 10 (so m = 1 and A = 300).

@Suite("Worked example")
struct WorkedExampleTests {
    @Test func oneAndTwoColumnWidths() {
        let screen = layout([
            vertical([style("LIST", columns: 1, height: 50)], limit: 1),
            vertical([style("GRID", columns: 2, height: 50)], limit: 1),
        ])
        #expect(screen.sections[0].items[0].frame == frame(10, 10, 300, 50))
        #expect(screen.sections[1].items[0].frame == frame(10, 80, 145, 50))
    }

    @Test func twoColumnGridOfFive() {
        let screen = layout([vertical([style("GRID_1", columns: 2, height: 100)], limit: 5)])
        let section = screen.sections[0]
        #expect(section.items.map(\.frame) == [
            frame(10, 10, 145, 100), frame(165, 10, 145, 100),
            frame(10, 120, 145, 100), frame(165, 120, 145, 100),
            frame(10, 230, 145, 100),
        ])
        #expect(section.items.map(\.index) == [0, 1, 2, 3, 4])
        #expect(section.items.allSatisfy { $0.cellStyle == "GRID_1" })
        #expect(section.frame == frame(0, 0, 320, 340))
        #expect(section.contentSize == LayoutSize(width: 320, height: 340))
        #expect(section.header == nil && section.footer == nil && section.sections.isEmpty)
        #expect(screen.contentSize == LayoutSize(width: 320, height: 340))
        #expect(screen.warnings.isEmpty)
        #expect(screen.device == referenceDevice)
    }
}

@Suite("Rules")
struct RuleTests {
    @Test func itemUsesItsStyleAndTheLastStyleRepeats() {
        let styles = [style("A", columns: 1, height: 30), style("B", columns: 2, height: 40)]
        let items = layout([vertical(styles, limit: 4)]).sections[0].items
        #expect(items.map(\.cellStyle) == ["A", "B", "B", "B"])
        #expect(items.map(\.frame.width) == [300, 145, 145, 145])
    }

    @Test func greedyBreakingWithOneWidth() {
        // ⌊(A + s) / (w + s)⌋ = ⌊310 / 100⌋ = 3 per line.
        let items = layout([vertical([style("C", width: 90, height: 20)], limit: 7)]).sections[0].items
        #expect(items.map(\.frame.y) == [10, 10, 10, 40, 40, 40, 70])
    }

    @Test func fullLinesAreJustifiedWithMixedWidths() {
        // 100 + 80 + 60 + 2·10 = 260 ≤ 300; adding 50 needs 320 > 300, so the line breaks.
        // Leftover 40 over 2 gaps: gaps of 30, the last item flush right at 310.
        let styles = [100.0, 80, 60, 50, 70, 120, 40].enumerated().map { style("S\($0.offset)", width: $0.element, height: 40) }
        let items = layout([vertical(styles, limit: 9)]).sections[0].items
        #expect(items[0].frame == frame(10, 10, 100, 40))
        #expect(items[1].frame == frame(140, 10, 80, 40))
        #expect(items[2].frame == frame(250, 10, 60, 40))
        // Second line: 50, 70, 120 (260) and 40 would make 310 > 300 → justified, gaps (300 − 240) / 2 = 30.
        #expect(items[3].frame == frame(10, 60, 50, 40))
        #expect(items[4].frame == frame(90, 60, 70, 40))
        #expect(items[5].frame == frame(190, 60, 120, 40))
        // Last line: 40, 40, 40 packed left with exactly s = 10.
        #expect(items[6].frame == frame(10, 110, 40, 40))
        #expect(items[7].frame == frame(60, 110, 40, 40))
        #expect(items[8].frame == frame(110, 110, 40, 40))
    }

    @Test func lastLineIsPackedLeftWithMixedWidths() {
        let styles = [style("W", width: 200, height: 40), style("N", width: 50, height: 40)]
        // Line 1: 200 + 50 (260) then 50 → 320 > 300: justified 200 | gap 50 | 50.
        let items = layout([vertical(styles, limit: 4)]).sections[0].items
        #expect(items.map(\.frame.x) == [10, 260, 10, 70])
        #expect(items[3].frame.x - items[2].frame.maxX == 10)
    }

    @Test func lastLineOfUniformWidthsKeepsTheColumns() {
        // 90 wide: 3 per line, leftover 10 → gaps 15; the last line's items sit in the same columns.
        let items = layout([vertical([style("C", width: 90, height: 20)], limit: 5)]).sections[0].items
        #expect(items.map(\.frame.x) == [10, 115, 220, 10, 115])
        // A single (last) line is packed with exactly s.
        let single = layout([vertical([style("C", width: 90, height: 20)], limit: 2)]).sections[0].items
        #expect(single.map(\.frame.x) == [10, 110])
        // With columns the leftover is 0: the last line is in the columns whichever way it is read.
        let grid = layout([vertical([style("G", columns: 3, height: 20)], limit: 5)]).sections[0].items
        #expect(grid[3].frame.x == grid[0].frame.x && grid[4].frame.x == grid[1].frame.x)
    }

    @Test func singleItemOnAFullLineIsFlushLeft() {
        let styles = [style("W", width: 250, height: 40), style("X", width: 250, height: 40)]
        let items = layout([vertical(styles, limit: 2)]).sections[0].items
        #expect(items.map(\.frame) == [frame(10, 10, 250, 40), frame(10, 60, 250, 40)])
    }

    @Test func itemsAreCentredVerticallyInTheTallestLine() {
        let styles = [style("A", columns: 3, height: 100), style("B", columns: 3, height: 50), style("C", columns: 3, height: 80)]
        let section = layout([vertical(styles, limit: 3)]).sections[0]
        #expect(section.items.map(\.frame.y) == [10, 35, 20])
        #expect(section.items.map(\.frame.height) == [100, 50, 80])
        #expect(section.frame.height == 10 + 100 + 10)
    }

    @Test func lineSpacingOnlyBetweenLines() {
        let family = referenceFamily(lineSpacing: 7)
        let one = layout([vertical([style("L", columns: 1, height: 50)], limit: 1)], family: family)
        #expect(one.sections[0].frame.height == 10 + 50 + 10)
        let three = layout([vertical([style("L", columns: 1, height: 50)], limit: 3)], family: family)
        #expect(three.sections[0].items.map(\.frame.y) == [10, 67, 124])
        let expected: Double = 10 + 3 * 50 + 2 * 7 + 10
        #expect(three.sections[0].frame.height == expected)
    }

    @Test func headerAboveTheTopInsetAndFooterBelowTheBottomInset() {
        let section = layout([vertical([style("G", columns: 2, height: 100)], header: 40, footer: 30, limit: 3)]).sections[0]
        #expect(section.header == frame(10, 0, 300, 40))
        #expect(section.items.map(\.frame.y) == [50, 50, 160])
        #expect(section.footer == frame(10, 270, 300, 30))
        #expect(section.frame == frame(0, 0, 320, 40 + 10 + 100 + 10 + 100 + 10 + 30))
    }

    @Test func headerAndFooterScaleWithTheDevice() {
        let device = Device(width: 640, height: 1136, scale: 1)  // m = 2
        let section = layout([vertical([style("G", columns: 1, height: 10)], header: 40, footer: 30, limit: 1)], device: device).sections[0]
        #expect(section.header == frame(20, 0, 600, 80))
        #expect(section.footer == frame(20, 80 + 20 + 20 + 20, 600, 60))
    }

    @Test func sectionInsetsFrameTheItems() {
        let family = referenceFamily(insets: Insets(top: 5, left: 12, bottom: 7, right: 8))
        let section = layout([vertical([style("G", columns: 2, height: 100)], limit: 2)], family: family).sections[0]
        #expect(section.items.map(\.frame) == [frame(12, 5, 145, 100), frame(167, 5, 145, 100)])
        #expect(section.frame.height == 5 + 100 + 7)
        // An empty section keeps its insets: header + top + bottom.
        let empty = layout([vertical([style("G", columns: 2, height: 100)], header: 20, limit: 0)], family: family).sections[0]
        #expect(empty.items.isEmpty)
        #expect(empty.frame.height == 20 + 5 + 7)
    }

    @Test func sectionsStackWithNoGaps() {
        let screen = layout([
            vertical([style("L", columns: 1, height: 50)], limit: 2),
            horizontal([style("H", width: 100, height: 60)], header: 20, limit: 3),
            vertical([style("G", columns: 2, height: 40)], footer: 15, limit: 3),
        ])
        #expect(screen.sections.map(\.frame) == [
            frame(0, 0, 320, 130), frame(0, 130, 320, 100), frame(0, 230, 320, 10 + 40 + 10 + 40 + 10 + 15),
        ])
        #expect(screen.sections[1].items[0].frame == frame(10, 160, 100, 60))
        #expect(screen.sections[2].items[0].frame.y == 240)
        #expect(screen.contentSize == LayoutSize(width: 320, height: 355))
    }

    @Test func horizontalSectionIsOneLineWithItsContentWidth() {
        let styles = [style("BIG", width: 140, height: 120), style("SMALL", width: 140, height: 80)]
        let section = layout([horizontal(styles, header: 20, limit: 5)]).sections[0]
        #expect(section.items.map(\.frame.x) == [10, 160, 310, 460, 610])
        #expect(section.items.map(\.frame.y) == [30, 50, 50, 50, 50])  // centred in the 120 line
        #expect(section.frame == frame(0, 0, 320, 20 + 10 + 120 + 10))
        #expect(section.contentSize == LayoutSize(width: 10 + 5 * 140 + 4 * 10 + 10, height: 160))
        #expect(section.header == frame(10, 0, 300, 20))
        // A short one reports its real extent.
        let short = layout([horizontal(styles, limit: 1)]).sections[0]
        #expect(short.contentSize == LayoutSize(width: 160, height: 140))
    }

    @Test func itemCountFromLimitSampleAndDefault() {
        let s = [style("G", columns: 3, height: 10)]
        let screen = layout(
            [vertical(s, limit: 4), vertical(s, limit: 10), vertical(s), vertical(s, limit: 5), vertical(s)],
            sample: .counts([[0]: 10, [1]: 3, [2]: 7]))
        #expect(screen.sections.map(\.items.count) == [4, 3, 7, 5, LayoutEngine.defaultItemCount])
        #expect(LayoutEngine.defaultItemCount == 6)
        #expect(layout([vertical(s)]).sections[0].items.count == 6)
        #expect(screen.warnings.isEmpty)
    }

    /// A count names its component by its path from the top, as warnings do: a group's child by
    /// the group's index and its own, never by its own alone (which a top-level component has too).
    @Test func sampleCountsNameGroupChildrenByTheirPath() {
        let s = [style("G", columns: 3, height: 10)]
        let sections = [vertical(s), group([vertical(s), group([vertical(s)]), vertical(s)])]
        let sample = Sample.counts([[0]: 2, [1, 0]: 3, [1, 1, 0]: 4])
        let screen = layout(sections, sample: sample)
        #expect(screen.sections[0].items.count == 2)
        #expect(screen.sections[1].sections.map(\.items.count) == [3, 0, LayoutEngine.defaultItemCount])
        #expect(screen.sections[1].sections[1].sections[0].items.count == 4)
        // The budget counts what the layout lays out.
        #expect(LayoutEngine.itemCount(request(sections, sample: sample)) == 2 + 3 + 4 + LayoutEngine.defaultItemCount)
    }

    @Test func absurdItemLimitIsCut() {
        let screen = layout([vertical([style("G", columns: 4, height: 1)], limit: Int.max)])
        #expect(screen.sections[0].items.count == LayoutEngine.maximumItemCount)
        #expect(screen.warnings.count == 1 && screen.warnings[0].componentIndex == 0)
    }

    /// A group's children are numbered from 0 among themselves (as their sections are): a
    /// warning about one names its path from the top, so it is not taken for the top-level
    /// component of the same index.
    @Test func aWarningAboutAGroupsChildSaysWhereItIs() {
        let s = [style("G", columns: 2, height: 10)]
        let screen = layout([vertical(s), group([vertical(s), group([vertical(s, limit: -1)])]), vertical(s, limit: -2)])
        #expect(screen.warnings == [
            LayoutWarning(componentIndex: 0, componentPath: [1, 1, 0], message: "item limit -1 is negative; using 0"),
            LayoutWarning(componentIndex: 2, componentPath: [2], message: "item limit -2 is negative; using 0"),
        ])
        let json = String(decoding: screen.jsonBytes(), as: UTF8.self)
        #expect(json.contains(#""warnings":[{"component_index":0,"component_path":[1,1,0],"message":"item limit -1 is negative; using 0"}"#), "\(json)")
        #expect(LayoutWarning(componentIndex: nil, message: "x").componentPath == nil)
    }

    @Test func connectedScreenMapsChildrenToComponents() {
        let s = [style("G", columns: 2, height: 10)]
        let group = group([vertical(s), horizontal([style("H", width: 50, height: 10)], limit: 2)])
        let screen = layout(
            [vertical(s), group, vertical(s, limit: 3), vertical(s)],
            connected: true, sample: .children([3, 5, 4, 0]))
        #expect(screen.sections[0].items.count == 3)
        #expect(screen.sections[1].sections.map(\.items.count) == [5, 2])  // child 2 capped by the limit
        #expect(screen.sections[2].items.count == 0)  // child with no items
        #expect(screen.sections[3].items.count == 0)  // no child at all
        #expect(screen.warnings == [
            LayoutWarning(componentIndex: 2, message: "empty"), LayoutWarning(componentIndex: 3, message: "empty"),
        ])
        // An empty component still takes its insets and stacks.
        #expect(screen.sections[3].frame.height == 20)
        #expect(screen.sections[3].frame.y == screen.sections[2].frame.maxY)
    }

    @Test func childrenSampleNeedsAConnectedScreen() {
        let screen = layout([vertical([style("G", columns: 2, height: 10)])], sample: .children([1]))
        #expect(screen.sections[0].items.count == 6)
        #expect(screen.warnings.count == 1 && screen.warnings[0].componentIndex == nil)
    }

    @Test func tooWideItemIsClampedWithAWarning() {
        let wide = CellStyle(id: "WIDE", width: .points(400), height: .aspectRatio(2))
        let screen = layout([vertical([wide], limit: 2), horizontal([style("H", width: 500, height: 40)], limit: 2)])
        #expect(screen.sections[0].items.map(\.frame) == [frame(10, 10, 300, 150), frame(10, 170, 300, 150)])
        #expect(screen.sections[1].items.map(\.frame.width) == [300, 300])
        #expect(screen.warnings.count == 2)  // one per style and section, not per item
        #expect(screen.warnings[0].componentIndex == 0 && screen.warnings[0].message.contains("clamped"))
        #expect(screen.warnings[1].componentIndex == 1 && screen.warnings[1].message.contains("cell style H"))
    }

    @Test func aspectRatioIsWidthOverHeight() {
        let hero = CellStyle(id: "HERO", width: .columns(1), height: .aspectRatio(16.0 / 9.0))
        let item = layout([vertical([hero], limit: 1)], device: Device(width: 320, height: 568, scale: 1_000_000)).sections[0].items[0]
        #expect(close(item.frame.height, 300 * 9 / 16, 1e-5))
    }

    @Test func roundingAtScale2() {
        // 375×667: m = 375/320 = 1.171875; inset 11.71875, column width 169.921875, height 117.1875.
        let device = Device(width: 375, height: 667, scale: 2)
        let items = layout([vertical([style("G", columns: 2, height: 100)], limit: 2)], device: device).sections[0].items
        #expect(items[0].frame == frame(11.5, 11.5, 170, 117.5))  // 11.71875 → 11.5, 181.640625 → 181.5, 128.90625 → 129
        #expect(items[1].frame == frame(193.5, 11.5, 170, 117.5))  // 193.359375 → 193.5, 363.28125 → 363.5
    }

    @Test func roundingAtScale3() {
        let device = Device(width: 375, height: 667, scale: 3)
        let screen = layout([vertical([style("G", columns: 2, height: 100)], limit: 3), vertical([style("L", columns: 1, height: 33.3)], limit: 2)], device: device)
        let items = screen.sections[0].items
        #expect(items[0].frame.x == 35.0 / 3)  // 11.71875 · 3 = 35.156 → 35
        #expect(items[1].frame.x == 580.0 / 3)  // 193.359375 · 3 = 580.08 → 580
        #expect(close(items[1].frame.maxX, 1090.0 / 3))  // 363.28125 · 3 = 1089.84 → 1090
        for section in screen.sections {
            for f in [section.frame] + section.items.map(\.frame) {
                #expect(onGrid(f.x, 3) && onGrid(f.y, 3) && onGrid(f.maxX, 3) && onGrid(f.maxY, 3))
            }
        }
        #expect(close(screen.sections[1].frame.y, screen.sections[0].frame.maxY))
    }

    @Test func roundingTiesGoAwayFromZero() {
        // At 2x a quarter point is half a pixel: 0.25 → 0.5, 10.25 → 10.5, 10.2 → 10.
        let family = referenceFamily(insets: Insets(top: 10.25, left: 0.25, bottom: 10.2, right: 0.75), spacing: 0, lineSpacing: 0)
        let section = layout([vertical([style("L", columns: 1, height: 20)], limit: 1)], family: family).sections[0]
        #expect(section.items[0].frame == frame(0.5, 10.5, 319, 20))
        #expect(section.frame.height == 40.5)  // 10.25 + 20 + 10.2 = 40.45 → 40.5
    }

    @Test func roundingRoundsEdgesNotSizes() {
        // Three columns of 100.333…: edges 0, 100.33, 200.67, 301 → 0, 100, 201, 301.
        let family = referenceFamily(insets: Insets(), spacing: 0, lineSpacing: 0, referenceSize: Size(width: 301, height: 568))
        let device = Device(width: 301, height: 568, scale: 1)
        let items = layout([vertical([style("T", columns: 3, height: 10)], limit: 3)], device: device, family: family).sections[0].items
        #expect(items.map(\.frame.x) == [0, 100, 201])
        #expect(items.map(\.frame.width) == [100, 101, 100])
        #expect(items[0].frame.maxX == items[1].frame.x && items[1].frame.maxX == items[2].frame.x)
    }

    @Test func nestedGroupStacksItsChildrenInsideItself() {
        let group = group([
            vertical([style("G", columns: 2, height: 50)], limit: 2),
            horizontal([style("H", width: 100, height: 40)], limit: 4),
        ], header: 20)
        let screen = layout([group, vertical([style("L", columns: 1, height: 10)], limit: 1)])
        let g = screen.sections[0]
        #expect(g.header == frame(10, 0, 300, 20))
        #expect(g.items.isEmpty && g.sections.count == 2)
        let grid = g.sections[0]
        #expect(grid.componentIndex == 0)  // numbered among the group's children
        #expect(g.sections[1].componentIndex == 1)
        #expect(grid.frame == frame(10, 30, 300, 70))
        #expect(grid.items.map(\.frame) == [frame(20, 40, 135, 50), frame(165, 40, 135, 50)])  // (300 − 20 − 10) / 2
        let row = g.sections[1]
        #expect(row.frame == frame(10, 100, 300, 60))
        #expect(row.items.map(\.frame.x) == [20, 130, 240, 350])
        let extent: Double = 10 + 4 * 100 + 3 * 10 + 10
        #expect(row.contentSize.width == extent)
        #expect(g.frame == frame(0, 0, 320, 20 + 10 + 70 + 60 + 10))
        #expect(screen.sections[1].frame.y == 170)
    }

    @Test func badInputsBecomeWarnings() {
        let bad = [CellStyle(id: "Z", width: .columns(0), height: .aspectRatio(0))]
        let screen = layout([vertical(bad, limit: 1), vertical([], limit: 2)], device: Device(width: 320, height: 568, scale: 0))
        #expect(screen.device.scale == 1)
        #expect(screen.sections[0].items.map(\.frame) == [frame(10, 10, 300, 0)])
        #expect(screen.sections[1].items.isEmpty)
        #expect(screen.warnings.count == 4)
    }
}

@Suite("Scaling")
struct ScalingTests {
    @Test func iPhone8UsesTheWidthRatio() {
        // m = min(375/320 = 1.171875, 667/568 = 1.1743) = 1.171875; scale 64 keeps every value exact.
        let device = Device(width: 375, height: 667, scale: 64)
        let section = layout([vertical([style("G", columns: 2, height: 100)], header: 20, limit: 3)], device: device).sections[0]
        #expect(section.header == frame(11.71875, 0, 351.5625, 23.4375))
        #expect(section.items.map(\.frame) == [
            frame(11.71875, 35.15625, 169.921875, 117.1875),
            frame(193.359375, 35.15625, 169.921875, 117.1875),
            frame(11.71875, 164.0625, 169.921875, 117.1875),
        ])
        let height: Double = 23.4375 + 11.71875 + 2 * 117.1875 + 11.71875 + 11.71875
        #expect(section.frame.height == height)
    }

    @Test func iPadUsesTheHeightRatio() {
        // m = min(768/320 = 2.4, 1024/568 = 1.8028…) = 1.8028…
        let m = 1024.0 / 568.0
        let device = Device(width: 768, height: 1024, scale: 2)
        let items = layout([vertical([style("G", columns: 2, height: 100)], limit: 2)], device: device).sections[0].items
        let w = (768 - 10 * m - 10 * m - 10 * m) / 2
        #expect(items[0].frame.x == px(10 * m, 2))
        #expect(close(items[0].frame.maxX, px(10 * m + w, 2)))
        #expect(close(items[1].frame.x, px(10 * m + w + 10 * m, 2)))
        #expect(close(items[1].frame.maxX, px(768 - 10 * m, 2)))
        #expect(items[0].frame.y == px(10 * m, 2))
        #expect(close(items[0].frame.height, px(10 * m + 100 * m, 2) - px(10 * m, 2)))
        #expect(abs(items[0].frame.height - 180.28) < 0.5)  // not 240 (the width ratio)
    }
}

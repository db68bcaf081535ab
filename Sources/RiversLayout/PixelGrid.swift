// Rounding to device pixels: a pass of its own, run once every frame of the screen is computed
// (yoga's `roundLayoutResultsToPixelGrid`), so the layout itself works in exact points and the
// grid is applied in one place.

/// Rounds a laid-out screen to the pixel grid of `scale` (device pixels per point):
/// - every edge goes to the nearest pixel (ties away from zero, like C's `round`), and a size is
///   the number of pixels between its rounded edges, so frames that touch still touch;
/// - a text is never made smaller: when the nearest pixel would cut its width or height, its far
///   edge goes to the next pixel up, so no line is clipped by rounding.
struct PixelGrid {
    let scale: Double

    /// Float noise below this fraction of a pixel never adds a pixel to a text.
    private static let noise = 1e-7

    func round(_ screen: inout ScreenLayout) {
        screen.contentSize = LayoutSize(width: px(screen.contentSize.width), height: px(screen.contentSize.height))
        for i in screen.sections.indices { round(&screen.sections[i]) }
    }

    func round(_ section: inout SectionLayout) {
        let x = section.frame.x
        // The scrollable width runs from the section's left edge, rounded as that edge is.
        section.contentSize.width = (roundToNearest((x + section.contentSize.width) * scale) - roundToNearest(x * scale)) / scale
        section.frame = frame(section.frame)
        section.contentSize.height = section.frame.height
        if let header = section.header { section.header = frame(header) }
        if let footer = section.footer { section.footer = frame(footer) }
        // Taken out of the section while they are rounded in place (one owner, no copy).
        var items = section.items
        var contentFrames = section.contentFrames
        section.items = []
        section.contentFrames = []
        items.withUnsafeMutableBufferPointer { items in
            contentFrames.withUnsafeMutableBufferPointer { content in
                for i in items.indices {
                    items[i].frame = frame(items[i].frame)
                    guard let nodes = items[i].contentNodes else { continue }
                    var j = items[i].contentStart
                    for isText in nodes.isText where j < content.count {
                        content[j] = isText ? textFrame(content[j]) : frame(content[j])
                        j += 1
                    }
                }
            }
        }
        section.items = items
        section.contentFrames = contentFrames
        for i in section.sections.indices { round(&section.sections[i]) }
    }

    /// A coordinate on the grid.
    @inline(__always)
    func px(_ v: Double) -> Double { roundToNearest(v * scale) / scale }

    /// Each edge to the nearest pixel; the size is the pixels between the rounded edges.
    @inline(__always)
    func frame(_ f: LayoutFrame) -> LayoutFrame {
        let x0 = roundToNearest(f.x * scale)
        let y0 = roundToNearest(f.y * scale)
        let x1 = roundToNearest((f.x + f.width) * scale)
        let y1 = roundToNearest((f.y + f.height) * scale)
        return LayoutFrame(x: x0 / scale, y: y0 / scale, width: (x1 - x0) / scale, height: (y1 - y0) / scale)
    }

    /// As `frame`, but never smaller than the text is: a far edge is at least the text's size in
    /// whole pixels (rounded up) from its rounded near edge.
    @inline(__always)
    func textFrame(_ f: LayoutFrame) -> LayoutFrame {
        let x0 = roundToNearest(f.x * scale)
        let y0 = roundToNearest(f.y * scale)
        let x1 = max(roundToNearest((f.x + f.width) * scale), x0 + (f.width * scale - Self.noise).rounded(.up))
        let y1 = max(roundToNearest((f.y + f.height) * scale), y0 + (f.height * scale - Self.noise).rounded(.up))
        return LayoutFrame(x: x0 / scale, y: y0 / scale, width: (x1 - x0) / scale, height: (y1 - y0) / scale)
    }
}

/// `Double.rounded()` (ties away from zero) without a call into libm, which is most of the cost of a
/// frame on CPUs without SSE4.1's `roundsd`. Exact: for |t| < 2^52, `t − trunc(t)` is exact.
@inline(__always)
func roundToNearest(_ t: Double) -> Double {
    guard abs(t) < 4.0e15 else { return t.rounded() }  // huge, infinite or NaN
    let whole = Double(Int64(t))  // truncates toward zero
    let fraction = t - whole
    if fraction >= 0.5 { return whole + 1 }
    if fraction <= -0.5 { return whole - 1 }
    return whole
}

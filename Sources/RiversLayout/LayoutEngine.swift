import RiversCore

// The layout engine: `UICollectionViewFlowLayout`'s rules as written in
// `spec/layout-rules.md`, applied to a whole screen. Pure and deterministic: no I/O, no clock, no
// randomness, never throws — every doubtful input becomes a warning and a sensible fallback.
//
// Decisions the rules leave open:
// - Vertical order inside a section: header, top inset, lines, bottom inset, footer. The header
//   sits ABOVE the top inset (at the section's top edge), as a flow layout's supplementary header
//   does; the footer sits BELOW the bottom inset (at the section's bottom edge). Both are as wide as
//   the available width `A` and start at the left inset. Their heights scale by `m`.
// - Item count: the item limit capped by the sample count; sample only → sample; limit only →
//   limit; neither → `LayoutEngine.defaultItemCount` (6). Negative values count as 0; more than
//   `LayoutEngine.maximumItemCount` (1,000,000) are cut with a warning.
// - Connected screens (`connected` with a `Sample.children` sender): child *i* fills the *i*-th
//   non-group component in display order (depth first, so children of groups count too). A
//   component that gets no child, or a child with no items, has 0 items and the warning "empty".
// - Last line of a vertical section: packed left with exactly `s·m` between items. When every item
//   of the section has the same width and there were full lines above, it reuses the full lines'
//   gap so its items sit in the same columns (rule 4's parenthesis; with `columns` styles the two
//   readings give the same frames, with a points width that leaves some space they differ).
// - A line with a single item (not the last line) is flush left.
// - Clamping (rule 8) applies to horizontal sections too: no cell is wider than `A`. One warning
//   per cell style and section, not one per item.
// - Horizontal sections: items centred vertically in the one line; `content_size.width` is the
//   real extent (left inset + items + gaps + right inset), which may be more or less than `W`.
// - Groups: children are laid out in the group's inner box (its left/right insets removed, below
//   its header and top inset), stacked with no gaps; the group's own cell styles are ignored.
// - Axis: a component type the catalog marks as holding children is a group; one whose axis is
//   horizontal is a horizontal section; any other (or an unknown type) is vertical. A component
//   is numbered by its position among its siblings (a group's children from 0).
// - Headers and footers: a visible one whose style names a cell style of the family is as tall as
//   that style (a points height keeps being scalable or fixed; others are measured at the
//   reference size); a visible one with no such style is `defaultDecorationHeight` (44) tall.
// - Rounding is a pass of its own (`PixelGrid`, yoga's pixel-grid rule), after every frame is
//   computed: every edge is rounded to the nearest multiple of 1/scale (ties away from zero), and
//   sizes are differences of rounded edges, so neighbours that touch still touch. A text is never
//   made smaller by rounding: its far edges move to the next pixel when the nearest would cut it.

public enum LayoutEngine {
    /// Items per component when neither an item limit nor a sample count is given.
    public static let defaultItemCount = 6

    /// The most items laid out for one component (a guard against an item limit like 10⁹); more
    /// are cut with a warning.
    public static let maximumItemCount = 1_000_000

    /// Header and footer height (at the reference size) when their style names no cell style of
    /// the family.
    public static let defaultDecorationHeight = 44.0

    /// The cells `request` would lay out in all, counted as `layout` counts them (item limits,
    /// sample counts, a sender's children), without laying anything out: a caller checks it
    /// against its budget before the work.
    public static func itemCount(_ request: LayoutRequest) -> Int {
        var builder = Builder(
            metrics: Metrics(m: 1, top: 0, left: 0, bottom: 0, right: 0, spacing: 0, lineSpacing: 0),
            family: request.family, catalog: request.catalog, warnings: [])
        builder.use(request.sample, connected: request.connected)
        func count(_ component: Component, index: Int) -> Int {
            guard builder.axis(component) == .group else { return builder.itemCount(component, index: index) }
            builder.groups.append(index)
            defer { builder.groups.removeLast() }
            return component.uiComponents.enumerated().reduce(0) { $0 + count($1.element, index: $1.offset) }
        }
        return request.components.enumerated().reduce(0) { $0 + count($1.element, index: $1.offset) }
    }

    /// The factor `m` scalable lengths are multiplied by: `min(W / reference width, H / reference
    /// height)`; 1 when the reference size is not positive or the factor is not finite.
    public static func scaleFactor(device: Device, family: Family) -> Double {
        let reference = family.referenceSize
        guard reference.width.isFinite, reference.height.isFinite, reference.width > 0, reference.height > 0 else { return 1 }
        let m = min(device.width / reference.width, device.height / reference.height)
        return m.isFinite ? m : 1
    }

    /// Lays out one screen.
    public static func layout(_ request: LayoutRequest) -> ScreenLayout {
        var warnings: [LayoutWarning] = []
        let device = request.device

        var width = device.width
        var height = device.height
        if !(width.isFinite && width >= 0) {
            warnings.append(.init(componentIndex: nil, message: "device width \(fmt(width)) is not a length; using 0"))
            width = 0
        }
        if !(height.isFinite && height >= 0) {
            warnings.append(.init(componentIndex: nil, message: "device height \(fmt(height)) is not a length; using 0"))
            height = 0
        }
        var scale = device.scale
        if !(scale.isFinite && scale > 0) {
            warnings.append(.init(componentIndex: nil, message: "device scale \(fmt(scale)) is not positive; using 1"))
            scale = 1
        }

        let family = request.family
        let reference = family.referenceSize
        let m = scaleFactor(device: Device(width: width, height: height, scale: scale), family: family)
        if reference.width.isFinite, reference.height.isFinite, reference.width > 0, reference.height > 0 {
            if !min(width / reference.width, height / reference.height).isFinite {
                warnings.append(.init(componentIndex: nil, message: "the scale factor overflows; not scaling"))
            }
        } else {
            warnings.append(.init(
                componentIndex: nil,
                message: "reference size \(fmt(reference.width))×\(fmt(reference.height)) is not positive; not scaling"))
        }

        func length(_ l: Length, _ what: String) -> Double {
            resolvedLength(l, m: m, "family \(what)", component: nil, warnings: &warnings)
        }
        let metrics = Metrics(
            m: m,
            top: length(family.insets.top, "top inset"), left: length(family.insets.left, "left inset"),
            bottom: length(family.insets.bottom, "bottom inset"), right: length(family.insets.right, "right inset"),
            spacing: length(family.interitemSpacing, "interitem spacing"),
            lineSpacing: length(family.lineSpacing, "line spacing"))

        var builder = Builder(metrics: metrics, family: family, catalog: request.catalog, warnings: warnings)
        builder.use(request.sample, connected: request.connected)

        var sections: [SectionLayout] = []
        sections.reserveCapacity(request.components.count)
        var y = 0.0
        for (index, component) in request.components.enumerated() {
            let (section, end) = builder.section(component, index: index, x0: 0, y0: y, width: width)
            sections.append(section)
            y = end
        }

        var screen = ScreenLayout(
            device: Device(width: width, height: height, scale: scale),
            contentSize: LayoutSize(width: width, height: y),
            warnings: builder.warnings,
            sections: sections)
        PixelGrid(scale: scale).round(&screen)
        return screen
    }
}

/// Family lengths already multiplied by `m`.
struct Metrics {
    let m: Double
    let top: Double
    let left: Double
    let bottom: Double
    let right: Double
    /// `s·m`
    let spacing: Double
    /// `l·m`
    let lineSpacing: Double
}

/// `l` scaled by `m`; 0, with a warning naming `what`, when that is not a length (every length
/// of a family, a cell style or a header goes through here).
/// `groups`: the indices of the groups the component is in, from the top (see `LayoutWarning.componentPath`).
func resolvedLength(
    _ l: Length, m: Double, _ what: @autoclosure () -> String, component: Int?, groups: [Int] = [], warnings: inout [LayoutWarning]
) -> Double {
    let v = l.resolved(m)
    if v.isFinite && v >= 0 { return v }
    warnings.append(
        LayoutWarning(
            componentIndex: component, componentPath: component.map { groups + [$0] }, message: "\(what()) \(fmt(l.value)) is not a length; using 0"))
    return 0
}

/// Width tolerance for "fits on the line", so that `n` columns computed in floating point fit `n`
/// to a line.
private let fitTolerance = 1e-7

struct Builder {
    let metrics: Metrics
    let family: Family
    let catalog: ComponentCatalog
    var warnings: [LayoutWarning]
    /// `Sample.counts`, by component path.
    var counts: [[Int]: Int]?
    /// `Sample.children` of a connected screen.
    var sender: [Int]?
    /// How many non-group components have been given a child of the sender so far.
    var leafPosition = 0
    /// The indices of the groups the component being laid out is in, from the top (its warnings say so).
    var groups: [Int] = []

    init(metrics: Metrics, family: Family, catalog: ComponentCatalog, warnings: [LayoutWarning]) {
        self.metrics = metrics
        self.family = family
        self.catalog = catalog
        self.warnings = warnings
    }

    enum Axis: String {
        /// Lines broken greedily and stacked downwards (list, grid, banner).
        case vertical
        /// One line scrolling sideways (horizontal_list, hero carousels, tab bars).
        case horizontal
        /// A container: its children stack vertically inside it; it has no cells of its own.
        case group
    }

    /// How a component flows, from its type in the catalog.
    func axis(_ component: Component) -> Axis {
        guard let type = catalog.types[component.componentType] else { return .vertical }
        if type.holdsChildren { return .group }
        return type.axis == .horizontal ? .horizontal : .vertical
    }

    /// A visible header's or footer's height at the reference size; nil when it is not shown.
    func decorationHeight(_ decoration: SectionDecoration) -> Length? {
        guard decoration.visible else { return nil }
        if let id = decoration.style, let style = family.cellStyle(id) {
            if case .points(let h) = style.height { return h }
            return Length(family.referenceCellSize(style).height)
        }
        return Length(LayoutEngine.defaultDecorationHeight)
    }

    mutating func use(_ sample: Sample?, connected: Bool) {
        switch sample {
        case .counts(let counts): self.counts = counts
        case .children(let children):
            if connected {
                sender = children
            } else {
                warn(nil, "the sample is a sender's children but the screen is not connected; sample ignored")
            }
        case nil: break
        }
    }

    mutating func warn(_ component: Int?, _ message: String) {
        warnings.append(LayoutWarning(componentIndex: component, componentPath: component.map { groups + [$0] }, message: message))
    }

    /// `l` scaled by `m`; 0, with a warning naming `what`, when that is not a length.
    mutating func length(_ l: Length, _ what: @autoclosure () -> String, component: Int?) -> Double {
        resolvedLength(l, m: metrics.m, what(), component: component, groups: groups, warnings: &warnings)
    }

    /// The number of items of a non-group component.
    mutating func itemCount(_ component: Component, index: Int) -> Int {
        var limit = component.itemLimit
        if let l = limit, l < 0 {
            warn(index, "item limit \(l) is negative; using 0")
            limit = 0
        }
        var available: Int?
        if let sender {
            let position = leafPosition
            leafPosition += 1
            guard position < sender.count else {
                warn(index, "empty")
                return 0
            }
            available = max(0, sender[position])
        } else if let counts {
            available = counts[groups + [index]].map { max(0, $0) }
        }
        let count: Int
        switch (limit, available) {
        case let (l?, a?): count = min(l, a)
        case let (nil, a?): count = a
        case let (l?, nil): count = l
        case (nil, nil): count = LayoutEngine.defaultItemCount
        }
        if sender != nil && count == 0 { warn(index, "empty") }
        if count > LayoutEngine.maximumItemCount {
            warn(index, "\(count) items; the preview lays out the first \(LayoutEngine.maximumItemCount)")
            return LayoutEngine.maximumItemCount
        }
        return count
    }

    /// Lays out one section with its top left corner at (x0, y0) in a container `width` wide.
    /// Returns the section and the unrounded y where the next section starts.
    mutating func section(_ component: Component, index: Int, x0: Double, y0: Double, width: Double) -> (SectionLayout, Double) {
        let mt = metrics
        let axis = axis(component)
        let header = decorationHeight(component.header)
        let footer = decorationHeight(component.footer)
        let available = max(0, width - mt.left - mt.right)
        if width - mt.left - mt.right < 0 {
            warn(index, "the insets (\(fmt(mt.left + mt.right))) are wider than the section (\(fmt(width)))")
        }
        let left = x0 + mt.left

        let headerHeight = header.map { length($0, "header height", component: index) } ?? 0
        let footerHeight = footer.map { length($0, "footer height", component: index) } ?? 0

        let contentTop = y0 + headerHeight + mt.top
        var linesEnd = contentTop
        var cells = Cells()
        var children: [SectionLayout] = []
        var contentWidth = width

        switch axis {
        case .group:
            children.reserveCapacity(component.uiComponents.count)
            var y = contentTop
            groups.append(index)
            for (i, child) in component.uiComponents.enumerated() {
                let (layout, end) = section(child, index: i, x0: left, y0: y, width: available)
                children.append(layout)
                y = end
            }
            groups.removeLast()
            linesEnd = y

        case .vertical, .horizontal:
            if !component.uiComponents.isEmpty {
                warn(index, "a \(axis.rawValue) component cannot hold components; \(component.uiComponents.count) ignored")
            }
            // Ids the family does not know are left out (saving a screen refuses them).
            let cellStyles = component.cellStyles.compactMap { family.cellStyle($0) }
            var count = itemCount(component, index: index)
            if count > 0 && cellStyles.isEmpty {
                warn(index, "no cell styles; \(count) items not laid out")
                count = 0
            }
            if count > 0 {
                let styles = resolveStyles(cellStyles.prefix(min(count, cellStyles.count)), index: index, width: width, available: available)
                if axis == .vertical {
                    linesEnd = Self.layOutLines(
                        styles, count: count, left: left, top: contentTop, available: available, metrics: mt, into: &cells)
                } else {
                    let (end, maxX) = Self.layOutRow(styles, count: count, left: left, top: contentTop, metrics: mt, into: &cells)
                    linesEnd = end
                    contentWidth = maxX + mt.right - x0
                }
            } else if axis == .horizontal {
                contentWidth = mt.left + mt.right
            }
        }

        // Unrounded: the pixel-grid pass rounds every frame of the screen afterwards.
        let bottom = linesEnd + mt.bottom
        let end = bottom + footerHeight
        let layout = SectionLayout(
            componentIndex: index, componentType: component.componentType,
            frame: LayoutFrame(x: x0, y: y0, width: width, height: end - y0),
            header: header == nil ? nil : LayoutFrame(x: left, y: y0, width: available, height: headerHeight),
            footer: footer == nil ? nil : LayoutFrame(x: left, y: bottom, width: available, height: footerHeight),
            contentSize: LayoutSize(width: contentWidth, height: end - y0),
            items: cells.items, contentFrames: cells.contentFrames, sections: children)
        return (layout, end)
    }

    /// Cell sizes per style (only the styles the items use), after scaling and clamping.
    mutating func resolveStyles(_ used: ArraySlice<CellStyle>, index: Int, width: Double, available: Double) -> ResolvedStyles {
        let mt = metrics
        var widths: [Double] = []
        var heights: [Double] = []
        var ids: [String] = []
        var plans: [ContentPlan?] = []
        widths.reserveCapacity(used.count)
        heights.reserveCapacity(used.count)
        ids.reserveCapacity(used.count)
        plans.reserveCapacity(used.count)
        for style in used {
            var w: Double
            switch style.width {
            case .columns(var n):
                if n < 1 {
                    warn(index, "cell style \(style.id): \(n) columns; using 1")
                    n = 1
                }
                w = Family.columnWidth(lineWidth: width - mt.left - mt.right, spacing: mt.spacing, columns: n)
                if w < 0 {
                    warn(index, "cell style \(style.id): \(n) columns do not fit in \(fmt(available)) points; width 0")
                    w = 0
                }
            case .points(let l):
                w = length(l, "cell style \(style.id): width", component: index)
            }
            if w > available + fitTolerance {
                warn(index, "cell style \(style.id): \(fmt(w)) points wide, clamped to the available width \(fmt(available))")
                w = available
            }
            var h: Double
            var plan: ContentPlan?
            switch style.height {
            case .points(let l):
                h = length(l, "cell style \(style.id): height", component: index)
            case .fit:
                if let content = style.content {
                    // Measured and laid out at once: the cell is as tall as the content needs.
                    let fitted = ContentLayout.plan(content, width: w, height: nil, m: mt.m)
                    plan = fitted
                    h = min(fitted.neededHeight, ContentLayout.maxFitHeight(m: mt.m))
                } else {
                    warn(index, "cell style \(style.id): a fit height without content; height 0")
                    h = 0
                }
            case .aspectRatio(let r):
                if r.isFinite && r > 0 {
                    h = w / r
                } else {
                    warn(index, "cell style \(style.id): aspect ratio \(fmt(r)) is not positive; height 0")
                    h = 0
                }
            }
            if !(h.isFinite && h >= 0) {
                h = 0
                plan = nil
            }
            if plan == nil, let content = style.content {
                plan = ContentLayout.plan(content, width: w, height: h, m: mt.m)
                if let needed = plan?.neededHeight, needed > h + 1e-6 {
                    warn(index, "cell style \(style.id): the content needs \(fmt(needed)) points, the cell is \(fmt(h)) tall")
                }
            }
            widths.append(w)
            heights.append(h)
            ids.append(style.id)
            plans.append(plan)
        }
        return ResolvedStyles(widths: widths, heights: heights, ids: ids, plans: plans)
    }

    /// Vertical section: greedy lines, justified except the last. Returns the bottom of the last line.
    static func layOutLines(
        _ styles: ResolvedStyles, count n: Int, left: Double, top: Double, available a: Double, metrics mt: Metrics,
        into cells: inout Cells
    ) -> Double {
        cells.reserve(n, styles: styles)
        let widths = styles.widths
        let heights = styles.heights
        let last = widths.count - 1
        let s = mt.spacing
        let limit = a + fitTolerance
        var uniform = true
        for w in widths where w != widths[0] { uniform = false }

        var fullGap = s
        var hadFullLine = false
        var y = top
        var i = 0
        while i < n {
            if i > 0 { y += mt.lineSpacing }
            // Measure the line: greedy, the first item costs its width, each further one s + width.
            var j = i
            var used = 0.0
            var lineHeight = 0.0
            while j < n {
                let k = j < last ? j : last
                let need = j == i ? widths[k] : used + s + widths[k]
                if j > i && need > limit { break }
                used = need
                if heights[k] > lineHeight { lineHeight = heights[k] }
                j += 1
            }
            let isLast = j == n
            var gap = s
            if !isLast {
                // Justified: flush left and right, the leftover shared by the gaps.
                if j - i > 1 { gap = s + max(0, a - used) / Double(j - i - 1) }
                if !hadFullLine {
                    fullGap = gap
                    hadFullLine = true
                }
            } else if uniform && hadFullLine {
                gap = fullGap  // same columns as the lines above
            }
            // Place it: each item centred vertically in the line.
            let lineEnd = y + lineHeight
            var x = left
            for index in i..<j {
                let k = index < last ? index : last
                let w = widths[k]
                let h = heights[k]
                let itemY = y + (lineHeight - h) * 0.5
                let maxY = min(itemY + h, lineEnd)
                cells.append(index, styles: styles, style: k, frame: LayoutFrame(x: x, y: itemY, width: w, height: maxY - itemY))
                x = x + w + gap
            }
            y = lineEnd
            i = j
        }
        return y
    }

    /// Horizontal section: one line from the left inset with `s·m` gaps. Returns the bottom of the
    /// line and the right edge of the last item (both unrounded).
    static func layOutRow(
        _ styles: ResolvedStyles, count n: Int, left: Double, top: Double, metrics mt: Metrics,
        into cells: inout Cells
    ) -> (Double, Double) {
        cells.reserve(n, styles: styles)
        let widths = styles.widths
        let heights = styles.heights
        let last = widths.count - 1
        var lineHeight = 0.0
        for h in heights where h > lineHeight { lineHeight = h }
        let lineEnd = top + lineHeight
        var x = left
        var maxX = left
        for index in 0..<n {
            let k = index < last ? index : last
            let w = widths[k]
            let h = heights[k]
            let itemY = top + (lineHeight - h) * 0.5
            maxX = x + w
            let maxY = min(itemY + h, lineEnd)
            cells.append(index, styles: styles, style: k, frame: LayoutFrame(x: x, y: itemY, width: w, height: maxY - itemY))
            x = maxX + mt.spacing
        }
        return (lineEnd, maxX)
    }
}

struct ResolvedStyles {
    var widths: [Double]
    var heights: [Double]
    var ids: [String]
    /// The content laid out for a cell of each style (nil: no content), and its nodes as every
    /// cell of the style shares them.
    var plans: [ContentPlan?]
    var nodeLists: [ContentNodeList?]

    init(widths: [Double], heights: [Double], ids: [String], plans: [ContentPlan?]) {
        self.widths = widths
        self.heights = heights
        self.ids = ids
        self.plans = plans
        self.nodeLists = plans.map { $0.map { ContentNodeList($0.nodes) } }
    }
}

/// The cells of one section as they are laid out, and the frames of their content in one buffer
/// (a cell refers to its run of it), so that a cell with content costs no allocation of its own.
struct Cells {
    var items: [ItemLayout] = []
    var contentFrames: [LayoutFrame] = []

    mutating func reserve(_ n: Int, styles: ResolvedStyles) {
        items.reserveCapacity(n)
        let most = styles.plans.reduce(0) { max($0, $1?.frames.count ?? 0) }
        if most > 0 { contentFrames.reserveCapacity(n * most) }
    }

    /// One cell: its frame and its content's frames moved to the cell, all unrounded.
    @inline(__always)
    mutating func append(_ index: Int, styles: ResolvedStyles, style k: Int, frame: LayoutFrame) {
        guard let plan = styles.plans[k] else {
            items.append(ItemLayout(index: index, cellStyle: styles.ids[k], frame: frame, contentNodes: nil, contentStart: 0))
            return
        }
        let start = contentFrames.count
        for r in plan.frames {
            contentFrames.append(LayoutFrame(x: frame.x + r.x, y: frame.y + r.y, width: r.width, height: r.height))
        }
        items.append(ItemLayout(index: index, cellStyle: styles.ids[k], frame: frame, contentNodes: styles.nodeLists[k], contentStart: start))
    }
}

/// A number for messages and SVG: at most `decimals` decimals, no trailing zeros, no exponent.
func fmt(_ v: Double, decimals: Int = 2) -> String {
    var bytes: [UInt8] = []
    writeFixed(v, decimals: decimals, into: &bytes)
    return String(decoding: bytes, as: UTF8.self)
}

/// `fmt` written straight into bytes: the SVG writer's numbers, with no String in between.
func writeFixed(_ v: Double, decimals: Int, into out: inout [UInt8]) {
    guard v.isFinite else {
        out.append(contentsOf: (v.isNaN ? "NaN" : (v < 0 ? "-infinity" : "infinity")).utf8)
        return
    }
    var p = 1.0
    for _ in 0..<decimals { p *= 10 }
    let scaled = (abs(v) * p).rounded()
    guard scaled < 9e15 else {
        out.append(contentsOf: String(v).utf8)
        return
    }
    let n = Int64(scaled)
    let unit = Int64(p)
    if v < 0 && n != 0 { out.append(UInt8(ascii: "-")) }
    writeDigits(n / unit, minimumCount: 1, into: &out)
    var fraction = n % unit
    if fraction != 0 {
        var digits = decimals
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        out.append(UInt8(ascii: "."))
        writeDigits(fraction, minimumCount: digits, into: &out)
    }
}

/// The decimal digits of `n` (not negative), zero-padded on the left to `minimumCount`.
private func writeDigits(_ n: Int64, minimumCount: Int, into out: inout [UInt8]) {
    var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    withUnsafeMutableBytes(of: &digits) { buffer in
        var v = n, count = 0
        repeat {
            buffer[count] = 48 + UInt8(v % 10)
            v /= 10
            count += 1
        } while v > 0 && count < buffer.count
        while count < minimumCount && count < buffer.count {
            buffer[count] = 48
            count += 1
        }
        for i in stride(from: count - 1, through: 0, by: -1) { out.append(buffer[i]) }
    }
}

import RiversCore

// The layout of a cell's content tree (`ContentNode`): pure and deterministic, no font shaping (a
// text is `line_height × max_lines` tall), every length resolved with the family's factor `m`
// unless it is fixed. The rules are written for users in docs/cell-content.md; in short, a node
// is offered a size by its parent, takes the offered width unless its frame says otherwise, and
// needs a height that follows from what it holds; containers offered a height take it.
//
// The engine lays out a cell style's tree once per section (every cell of a style has the same
// size), as unrounded frames relative to the cell (`ContentPlan`); each cell only adds its
// origin, and the pixel-grid pass (`PixelGrid`) rounds them with the rest of the screen.

/// What a laid-out node is, for drawing and for JSON.
public struct ContentNodeInfo: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, Codable { case stack, overlay, image, text, spacer }
    public var kind: Kind
    /// JSON pointer of the node, relative to the content root ("" for the root, "/children/0", …).
    public var pointer: String
    public var role: ContentNode.TextRole?
    public var lines: Int?
    public var lineHeight: Double?
    public var placeholder: ContentNode.Placeholder?
}

/// A content tree laid out for one cell size: its nodes in tree order (depth first).
public struct ContentPlan: Sendable, Hashable {
    public var nodes: [ContentNodeInfo]
    /// Frames relative to the cell's top left corner, before rounding.
    public var frames: [LayoutFrame]
    /// The height the content needs at the cell's width (compared with the cell's height, for the
    /// overflow warning); for a `fit` plan, the cell's height.
    public var neededHeight: Double
}

public enum ContentLayout {
    /// The height a cell `width` wide needs for `content` (a `fit` height), scaled by `m`; at
    /// most `Limits.maxCellHeight` (scaled), the tallest a cell style may be.
    public static func fitHeight(_ content: ContentNode, width: Double, m: Double) -> Double {
        let sizer = Sizer(m: m)
        let w = sizer.width(content, offered: width)
        return min(sizer.height(content, width: w, offered: nil), maxFitHeight(m: m))
    }

    /// The tallest a `fit` cell gets: `Limits.maxCellHeight`, scaled.
    public static func maxFitHeight(m: Double) -> Double { Limits.maxCellHeight * max(1, m) }

    /// Lays `content` out in a cell `width` wide and `height` tall; with no `height` (a `fit`
    /// height), the cell is as tall as the content needs (at most `fitHeight`'s cap), measured and
    /// laid out in the same pass (the cell's height is `fitHeight`'s, `min(neededHeight, maxFitHeight)`).
    public static func plan(_ content: ContentNode, width: Double, height: Double?, m: Double) -> ContentPlan {
        let sizer = Sizer(m: m)
        var plan = ContentPlan(nodes: [], frames: [], neededHeight: 0)
        let count = content.nodeCount
        plan.nodes.reserveCapacity(count)
        plan.frames.reserveCapacity(count)
        // The root sits in the cell like an overlay's child placed at the top left.
        let w = sizer.width(content, offered: width)
        let needed = sizer.height(content, width: w, offered: nil)
        plan.neededHeight = needed
        let cellHeight: Double
        let h: Double
        if let height {
            cellHeight = height
            h = sizer.takesOfferedHeight(content) ? sizer.clampHeight(content, height) : sizer.height(content, width: w, offered: height)
        } else {
            // A leaf's height ignores the offer, and a container's needed height is already
            // clamped: unless the cap cuts it, the root is exactly as tall as it needs, with no
            // second measure.
            cellHeight = min(needed, maxFitHeight(m: m))
            h = cellHeight == needed || !sizer.takesOfferedHeight(content) ? needed : sizer.clampHeight(content, cellHeight)
        }
        let a = content.align ?? .topLeading
        let x = (width - w) * Double(a.horizontal + 1) / 2
        let y = (cellHeight - h) * Double(a.vertical + 1) / 2
        sizer.place(content, pointer: "", x: x, y: y, width: w, height: h, into: &plan)
        return plan
    }
}

/// Sizes and places nodes with lengths resolved by `m`.
struct Sizer {
    let m: Double

    @inline(__always) func len(_ l: Length) -> Double { l.resolved(m) }

    func clampWidth(_ node: ContentNode, _ w: Double) -> Double {
        var w = w
        if let hi = node.frame.maxWidth { w = min(w, len(hi)) }
        if let lo = node.frame.minWidth { w = max(w, len(lo)) }
        return max(0, w)
    }

    func clampHeight(_ node: ContentNode, _ h: Double) -> Double {
        var h = h
        if let hi = node.frame.maxHeight { h = min(h, len(hi)) }
        if let lo = node.frame.minHeight { h = max(h, len(lo)) }
        return max(0, h)
    }

    func horizontalPadding(_ node: ContentNode) -> Double { len(node.padding.left) + len(node.padding.right) }
    func verticalPadding(_ node: ContentNode) -> Double { len(node.padding.top) + len(node.padding.bottom) }

    /// Containers and spacers offered a height take it; leaves need their own.
    func takesOfferedHeight(_ node: ContentNode) -> Bool {
        if node.frame.height != nil { return false }
        switch node.kind {
        case .stack, .overlay, .spacer: return true
        case .image, .text: return false
        }
    }

    /// An image whose width follows from its frame height and aspect ratio.
    func widthFromHeight(_ node: ContentNode) -> Double? {
        guard node.frame.width == nil, case .image(let image) = node.kind, let ratio = image.aspectRatio, let fh = node.frame.height else { return nil }
        let inner = max(0, len(fh) - verticalPadding(node))
        return ratio.width(forHeight: inner) + horizontalPadding(node)
    }

    /// Whether a node's width is its own (a frame width, or from its height), not the offer.
    func hasOwnWidth(_ node: ContentNode) -> Bool { node.frame.width != nil || widthFromHeight(node) != nil }

    /// The width a node takes when offered `offered`.
    func width(_ node: ContentNode, offered: Double) -> Double {
        if let fw = node.frame.width { return clampWidth(node, len(fw)) }
        if let w = widthFromHeight(node) { return clampWidth(node, w) }
        return clampWidth(node, offered)
    }

    /// The height a node needs at width `w`, padding included; `offered` is the height its parent
    /// gives it, or nil when it may be as tall as it needs.
    func height(_ node: ContentNode, width w: Double, offered: Double?) -> Double {
        if let fh = node.frame.height { return clampHeight(node, len(fh)) }
        if let offered, takesOfferedHeight(node) { return clampHeight(node, offered) }
        let innerWidth = max(0, w - horizontalPadding(node))
        let padding = verticalPadding(node)
        let h: Double
        switch node.kind {
        case .image(let image):
            h = (image.aspectRatio?.height(forWidth: innerWidth) ?? 0) + padding
        case .text(let text):
            h = len(text.effectiveLineHeight) * Double(text.maxLines) + padding
        case .spacer:
            h = padding
        case .overlay:
            var tallest = 0.0
            for child in node.children {
                tallest = max(tallest, height(child, width: width(child, offered: innerWidth), offered: nil))
            }
            h = tallest + padding
        case .stack(let stack):
            let spacing = len(stack.spacing) * Double(max(0, node.children.count - 1))
            switch stack.axis {
            case .vertical:
                let heights = node.children.map { child in naturalHeightInColumn(child, stack: stack, innerWidth: innerWidth) }
                if stack.distribution == .equal {
                    h = (heights.max() ?? 0) * Double(heights.count) + spacing + padding
                } else {
                    h = heights.reduce(0, +) + spacing + padding
                }
            case .horizontal:
                let widths = rowWidths(node.children, stack: stack, innerWidth: innerWidth)
                var tallest = 0.0
                for (child, cw) in zip(node.children, widths) {
                    tallest = max(tallest, height(child, width: cw, offered: nil))
                }
                h = tallest + padding
            }
        }
        return clampHeight(node, h)
    }

    /// The width a child of a vertical stack gets.
    func columnWidth(_ child: ContentNode, stack: ContentNode.Stack, innerWidth: Double) -> Double {
        stack.alignment == .fill && child.frame.width == nil ? clampWidth(child, innerWidth) : width(child, offered: innerWidth)
    }

    func naturalHeightInColumn(_ child: ContentNode, stack: ContentNode.Stack, innerWidth: Double) -> Double {
        if case .spacer = child.kind, child.frame.height == nil { return clampHeight(child, verticalPadding(child)) }
        return height(child, width: columnWidth(child, stack: stack, innerWidth: innerWidth), offered: nil)
    }

    /// The widths of a horizontal stack's children: own widths first; the others share the rest
    /// (spacers only what the others leave), then the distribution.
    func rowWidths(_ children: [ContentNode], stack: ContentNode.Stack, innerWidth: Double) -> [Double] {
        let n = children.count
        guard n > 0 else { return [] }
        let available = max(0, innerWidth - len(stack.spacing) * Double(n - 1))
        if stack.distribution == .equal {
            return children.map { clampWidth($0, available / Double(n)) }
        }
        var widths = [Double](repeating: 0, count: n)
        var used = 0.0
        var flexible: [Int] = []
        var spacers: [Int] = []
        for (i, child) in children.enumerated() {
            if hasOwnWidth(child) {
                widths[i] = width(child, offered: 0)
                used += widths[i]
            } else if case .spacer = child.kind {
                spacers.append(i)
                widths[i] = clampWidth(child, 0)
                used += widths[i]
            } else {
                flexible.append(i)
            }
        }
        if !flexible.isEmpty {
            let share = max(0, available - used) / Double(flexible.count)
            for i in flexible {
                widths[i] = clampWidth(children[i], share)
                used += widths[i]
            }
        }
        distribute(max(0, available - used), into: &widths, children: children, spacers: spacers, distribution: stack.distribution)
        return widths
    }

    /// Shares `leftover` along a stack's axis: to the spacers if any; with none, to every child
    /// for `fill`, to nobody for `leading`.
    func distribute(_ leftover: Double, into lengths: inout [Double], children: [ContentNode], spacers: [Int], distribution: ContentNode.Distribution, vertical: Bool = false) {
        guard leftover > 1e-12 else { return }
        let takers: [Int]
        if !spacers.isEmpty {
            takers = spacers
        } else if distribution == .fill {
            takers = Array(children.indices)
        } else {
            return
        }
        let share = leftover / Double(takers.count)
        for i in takers {
            lengths[i] = vertical ? clampHeight(children[i], lengths[i] + share) : clampWidth(children[i], lengths[i] + share)
        }
    }

    /// Records `node` at (x, y) with its size (moved by its offset), then lays out its children.
    func place(_ node: ContentNode, pointer: String, x: Double, y: Double, width w: Double, height h: Double, into plan: inout ContentPlan) {
        var x = x
        var y = y
        if let offset = node.offset {
            x += len(offset.x)
            y += len(offset.y)
        }
        plan.frames.append(LayoutFrame(x: x, y: y, width: w, height: h))
        plan.nodes.append(info(node, pointer: pointer))
        guard !node.children.isEmpty else { return }
        let ix = x + len(node.padding.left)
        let iy = y + len(node.padding.top)
        let iw = max(0, w - horizontalPadding(node))
        let ih = max(0, h - verticalPadding(node))
        func childPointer(_ i: Int) -> String { pointer + "/children/" + String(i) }

        switch node.kind {
        case .stack(let stack):
            let spacing = len(stack.spacing)
            let n = node.children.count
            // Cross-axis placement: the child's own `align`, else the stack's alignment.
            func fraction(_ child: ContentNode, horizontal: Bool) -> Double {
                if let a = child.align { return Double((horizontal ? a.horizontal : a.vertical) + 1) / 2 }
                switch stack.alignment {
                case .leading, .fill: return 0
                case .center: return 0.5
                case .trailing: return 1
                }
            }
            switch stack.axis {
            case .vertical:
                let widths = node.children.map { columnWidth($0, stack: stack, innerWidth: iw) }
                var heights: [Double]
                if stack.distribution == .equal {
                    let each = max(0, ih - spacing * Double(n - 1)) / Double(n)
                    heights = node.children.map { clampHeight($0, each) }
                } else {
                    heights = node.children.map { naturalHeightInColumn($0, stack: stack, innerWidth: iw) }
                    let spacers = node.children.indices.filter { if case .spacer = node.children[$0].kind { return true } else { return false } }
                    let leftover = ih - heights.reduce(0, +) - spacing * Double(n - 1)
                    distribute(leftover, into: &heights, children: node.children, spacers: spacers, distribution: stack.distribution, vertical: true)
                }
                var cy = iy
                for (i, child) in node.children.enumerated() {
                    let cx = ix + (iw - widths[i]) * fraction(child, horizontal: true)
                    place(child, pointer: childPointer(i), x: cx, y: cy, width: widths[i], height: heights[i], into: &plan)
                    cy += heights[i] + spacing
                }
            case .horizontal:
                let widths = rowWidths(node.children, stack: stack, innerWidth: iw)
                var cx = ix
                for (i, child) in node.children.enumerated() {
                    let stretch = stack.alignment == .fill && child.align == nil && child.frame.height == nil && !isAspectImage(child)
                    let ch = stretch ? clampHeight(child, ih) : height(child, width: widths[i], offered: nil)
                    let cy = iy + (ih - ch) * fraction(child, horizontal: false)
                    place(child, pointer: childPointer(i), x: cx, y: cy, width: widths[i], height: ch, into: &plan)
                    cx += widths[i] + spacing
                }
            }
        case .overlay:
            for (i, child) in node.children.enumerated() {
                let cw = width(child, offered: iw)
                let ch = height(child, width: cw, offered: ih)
                let a = child.align ?? .center
                let cx = ix + (iw - cw) * Double(a.horizontal + 1) / 2
                let cy = iy + (ih - ch) * Double(a.vertical + 1) / 2
                place(child, pointer: childPointer(i), x: cx, y: cy, width: cw, height: ch, into: &plan)
            }
        case .image, .text, .spacer:
            break
        }
    }

    func isAspectImage(_ node: ContentNode) -> Bool {
        if case .image(let image) = node.kind, image.aspectRatio != nil { return true }
        return false
    }

    func info(_ node: ContentNode, pointer: String) -> ContentNodeInfo {
        switch node.kind {
        case .stack: ContentNodeInfo(kind: .stack, pointer: pointer)
        case .overlay: ContentNodeInfo(kind: .overlay, pointer: pointer)
        case .spacer: ContentNodeInfo(kind: .spacer, pointer: pointer)
        case .image(let image): ContentNodeInfo(kind: .image, pointer: pointer, placeholder: image.placeholder)
        case .text(let text):
            ContentNodeInfo(kind: .text, pointer: pointer, role: text.role, lines: text.maxLines, lineHeight: len(text.effectiveLineHeight))
        }
    }
}

// Draws a `ScreenLayout` as a standalone SVG document: what the editor shows.
//
// - The screen: device width × content height, white with a dark outline; a dashed red line marks
//   the fold (the device height).
// - Sections: dashed grey outlines; headers and footers: grey bands labelled with the component.
// - Cells: one `<rect class="cell">` per cell, labelled with its cell style and index. In
//   horizontal sections, cells that reach beyond the screen width are drawn at lower opacity, and
//   the screen edge is marked across the section.
// - Warnings: listed as text under the screen.
// Coordinates are the layout's points (1 SVG user unit = 1 point).

public enum SVGRenderer {
    /// Space around the screen, in points.
    static let margin = 20.0
    static let warningLineHeight = 16.0
    static let dimmedOpacity = "0.35"

    public static func render(_ layout: ScreenLayout) -> String {
        let screenWidth = layout.device.width
        let contentHeight = layout.contentSize.height
        var right = screenWidth
        forEachSection(layout.sections) { section in
            right = max(right, section.frame.x + section.contentSize.width)
            for item in section.items { right = max(right, item.frame.maxX) }
        }
        let bottom = max(contentHeight, layout.device.height)
        let warningsTop = bottom + margin
        let viewWidth = right + 2 * margin
        var viewHeight = bottom + 2 * margin
        if !layout.warnings.isEmpty { viewHeight += margin + Double(layout.warnings.count) * warningLineHeight }

        var out = ""
        out.reserveCapacity(1024 + 160 * countItems(layout.sections))
        out += #"<?xml version="1.0" encoding="UTF-8"?>"#
        out += "\n"
        out += #"<svg xmlns="http://www.w3.org/2000/svg" version="1.1""#
        out += " viewBox=\"\(n(-margin)) \(n(-margin)) \(n(viewWidth)) \(n(viewHeight))\""
        out += " width=\"\(n(viewWidth))\" height=\"\(n(viewHeight))\""
        out += #" font-family="Helvetica, Arial, sans-serif" font-size="10">"#
        out += "\n"
        out += "<title>\(escape("Screen \(fmt(screenWidth))×\(fmt(layout.device.height)) @\(fmt(layout.device.scale))x"))</title>\n"
        out += rect("screen", LayoutFrame(x: 0, y: 0, width: screenWidth, height: contentHeight), ##"fill="#ffffff" stroke="#333333" stroke-width="1""##)
        for section in layout.sections {
            draw(section, screenWidth: screenWidth, into: &out)
        }
        // The fold: what is visible without scrolling.
        let fold = layout.device.height
        out += "<line class=\"fold\" x1=\"\(n(-margin / 2))\" y1=\"\(n(fold))\" x2=\"\(n(screenWidth + margin / 2))\" y2=\"\(n(fold))\""
        out += ##" stroke="#d0021b" stroke-width="1" stroke-dasharray="6 4"/>"##
        out += "\n"
        out += "<text class=\"fold-label\" x=\"\(n(screenWidth + 2))\" y=\"\(n(fold - 2))\" fill=\"#d0021b\">fold</text>\n"

        for (i, warning) in layout.warnings.enumerated() {
            let who = warning.componentIndex.map { "component \($0)" } ?? "screen"
            let y = warningsTop + Double(i + 1) * warningLineHeight
            out += "<text class=\"warning\" x=\"0\" y=\"\(n(y))\" fill=\"#b35900\">"
            out += escape("⚠ \(who): \(warning.message)")
            out += "</text>\n"
        }
        out += "</svg>\n"
        return out
    }

    private static func draw(_ section: SectionLayout, screenWidth: Double, into out: inout String) {
        out += "<g class=\"section\" data-component-index=\"\(section.componentIndex)\" data-component-type=\"\(escape(section.componentType))\">\n"
        out += rect("section", section.frame, ##"fill="none" stroke="#bbbbbb" stroke-dasharray="3 3""##)
        let name = "\(section.componentType) #\(section.componentIndex)"
        if let header = section.header {
            out += rect("header", header, ##"fill="#e6e6e6" stroke="#999999""##)
            out += label(header, "header · \(name)", fill: "#555555")
        }
        if let footer = section.footer {
            out += rect("footer", footer, ##"fill="#eeeeee" stroke="#999999""##)
            out += label(footer, "footer · \(name)", fill: "#555555")
        }
        let overflows = section.frame.x + section.contentSize.width > screenWidth + 1e-9
        for item in section.items {
            let dimmed = item.frame.maxX > screenWidth + 1e-9
            if dimmed { out += "<g class=\"offscreen\" opacity=\"\(dimmedOpacity)\">" }
            out += rect("cell", item.frame, ##"fill="#dbe9ff" stroke="#2f6fd6""##)
            if item.contentNodes == nil {
                out += label(item.frame, "\(item.cellStyle) \(item.index)", fill: "#1b3f7a")
            } else {
                drawContent(section.content(of: item), into: &out)
            }
            if dimmed { out += "</g>\n" }
        }
        if overflows && !section.items.isEmpty {
            // The screen's right edge across a section that scrolls beyond it.
            out += "<line class=\"screen-edge\" x1=\"\(n(screenWidth))\" y1=\"\(n(section.frame.y))\" x2=\"\(n(screenWidth))\" y2=\"\(n(section.frame.maxY))\""
            out += ##" stroke="#333333" stroke-dasharray="2 2"/>"##
            out += "\n"
        }
        for child in section.sections {
            draw(child, screenWidth: screenWidth, into: &out)
        }
        out += "</g>\n"
    }

    /// A cell's insides: images as neutral placeholders (a frame with its diagonals; avatars
    /// round), texts as one bar per line (the last of several shorter), containers not drawn.
    static func drawContent(_ nodes: [ContentNodeLayout], into out: inout String) {
        for node in nodes {
            let f = node.frame
            switch node.info.kind {
            case .image:
                let kind = node.info.placeholder?.rawValue ?? "image"
                if node.info.placeholder == .avatar {
                    out += "<ellipse class=\"content-image \(kind)\" cx=\"\(n(f.x + f.width / 2))\" cy=\"\(n(f.y + f.height / 2))\" rx=\"\(n(f.width / 2))\" ry=\"\(n(f.height / 2))\""
                    out += ##" fill="#b8c0cc"/>"##
                    out += "\n"
                } else {
                    out += rect("content-image \(kind)", f, ##"fill="#b8c0cc""##)
                    out += "<path class=\"content-image-cross\" d=\"M\(n(f.x)) \(n(f.y))L\(n(f.maxX)) \(n(f.maxY))M\(n(f.maxX)) \(n(f.y))L\(n(f.x)) \(n(f.maxY))\""
                    out += ##" stroke="#ffffff" stroke-width="1" opacity="0.6"/>"##
                    out += "\n"
                }
            case .text:
                let lines = shapes(node.info)
                let role = node.info.role?.rawValue ?? "body"
                let lineHeight = node.info.lineHeight ?? f.height / Double(lines)
                let bar = lineHeight * 0.6
                let fill = node.info.role == .title ? "#5b6472" : "#8a93a0"
                for line in 0..<lines {
                    let top = f.y + Double(line) * lineHeight + (lineHeight - bar) / 2
                    let width = line == lines - 1 && lines > 1 ? f.width * 0.7 : f.width
                    out += rect("content-text-line \(role)", LayoutFrame(x: f.x, y: top, width: width, height: bar), "fill=\"\(fill)\" rx=\"\(n(bar / 2))\"")
                }
            case .stack, .overlay, .spacer:
                break
            }
        }
    }

    /// One cell alone (the cell designer's drawing): the cell at the origin with its content, and
    /// the warnings under it.
    public static func renderCell(width: Double, height: Double, content: [ContentNodeLayout], warnings: [String]) -> String {
        let viewWidth = max(width, 120) + 2 * margin
        let viewHeight = height + 2 * margin + (warnings.isEmpty ? 0 : margin + Double(warnings.count) * warningLineHeight)
        var out = #"<?xml version="1.0" encoding="UTF-8"?>"#
        out += "\n"
        out += #"<svg xmlns="http://www.w3.org/2000/svg" version="1.1""#
        out += " viewBox=\"\(n(-margin)) \(n(-margin)) \(n(viewWidth)) \(n(viewHeight))\" width=\"\(n(viewWidth))\" height=\"\(n(viewHeight))\""
        out += #" font-family="Helvetica, Arial, sans-serif" font-size="10">"#
        out += "\n<title>\(escape("Cell \(fmt(width))×\(fmt(height))"))</title>\n"
        out += rect("cell", LayoutFrame(x: 0, y: 0, width: width, height: height), ##"fill="#dbe9ff" stroke="#2f6fd6""##)
        drawContent(content, into: &out)
        for (i, warning) in warnings.enumerated() {
            out += "<text class=\"warning\" x=\"0\" y=\"\(n(height + margin + Double(i + 1) * warningLineHeight))\" fill=\"#b35900\">\(escape("⚠ " + warning))</text>\n"
        }
        out += "</svg>\n"
        return out
    }

    private static func rect(_ cls: String, _ f: LayoutFrame, _ style: String) -> String {
        "<rect class=\"\(cls)\" x=\"\(n(f.x))\" y=\"\(n(f.y))\" width=\"\(n(max(0, f.width)))\" height=\"\(n(max(0, f.height)))\" \(style)/>\n"
    }

    private static func label(_ f: LayoutFrame, _ text: String, fill: String) -> String {
        let size = max(4, min(10, f.height - 2))
        return "<text x=\"\(n(f.x + 3))\" y=\"\(n(f.y + min(f.height - 1, size + 1)))\" font-size=\"\(n(size))\" fill=\"\(fill)\">\(escape(text))</text>\n"
    }

    private static func n(_ v: Double) -> String { fmt(v, decimals: 3) }

    /// Escapes text for XML content and attribute values.
    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                // Characters XML 1.0 does not allow at all are dropped.
                let v = scalar.value
                if v < 0x20 && v != 0x9 && v != 0xA && v != 0xD { continue }
                if v == 0xFFFE || v == 0xFFFF { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func forEachSection(_ sections: [SectionLayout], _ body: (SectionLayout) -> Void) {
        for section in sections {
            body(section)
            forEachSection(section.sections, body)
        }
    }

    /// The shapes `render` draws for the cells' content: one a node, one a line of a text (a
    /// text of 20 lines is 20 bars), so that a preview can bound its SVG before drawing it.
    public static func contentShapeCount(_ layout: ScreenLayout) -> Int {
        var count = 0
        forEachSection(layout.sections) { section in
            for item in section.items {
                for info in item.contentNodes?.nodes ?? [] { count += shapes(info) }
            }
        }
        return count
    }

    private static func shapes(_ info: ContentNodeInfo) -> Int {
        info.kind == .text ? max(1, info.lines ?? 1) : 1
    }

    private static func countItems(_ sections: [SectionLayout]) -> Int {
        sections.reduce(0) { $0 + $1.items.count + countItems($1.sections) }
    }
}

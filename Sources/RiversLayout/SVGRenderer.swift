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
        String(decoding: renderBytes(layout), as: UTF8.self)
    }

    /// The document as UTF-8 bytes: what the server sends, written without Strings in between.
    public static func renderBytes(_ layout: ScreenLayout) -> [UInt8] {
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

        var out = SVGOutput(capacity: 1024 + 200 * countItems(layout.sections))
        out.open(viewWidth: viewWidth, viewHeight: viewHeight)
        out.raw("<title>")
        out.text("Screen \(fmt(screenWidth))×\(fmt(layout.device.height)) @\(fmt(layout.device.scale))x")
        out.raw("</title>\n")
        out.rect("screen", LayoutFrame(x: 0, y: 0, width: screenWidth, height: contentHeight), ##"fill="#ffffff" stroke="#333333" stroke-width="1""##)
        for section in layout.sections {
            draw(section, screenWidth: screenWidth, into: &out)
        }
        // The fold: what is visible without scrolling.
        let fold = layout.device.height
        out.raw("<line class=\"fold\"")
        out.attr("x1", -margin / 2)
        out.attr("y1", fold)
        out.attr("x2", screenWidth + margin / 2)
        out.attr("y2", fold)
        out.raw(##" stroke="#d0021b" stroke-width="1" stroke-dasharray="6 4"/>"##)
        out.raw("\n<text class=\"fold-label\"")
        out.attr("x", screenWidth + 2)
        out.attr("y", fold - 2)
        out.raw(" fill=\"#d0021b\">fold</text>\n")

        for (i, warning) in layout.warnings.enumerated() {
            let who = warning.componentPath.map { "component " + Sample.key($0) } ?? "screen"
            out.warning("⚠ \(who): \(warning.message)", y: warningsTop + Double(i + 1) * warningLineHeight)
        }
        out.raw("</svg>\n")
        return out.bytes
    }

    private static func draw(_ section: SectionLayout, screenWidth: Double, into out: inout SVGOutput) {
        out.raw("<g class=\"section\" data-component-index=\"")
        out.raw(String(section.componentIndex))
        out.raw("\" data-component-type=\"")
        out.text(section.componentType)
        out.raw("\">\n")
        out.rect("section", section.frame, ##"fill="none" stroke="#bbbbbb" stroke-dasharray="3 3""##)
        let name = "\(section.componentType) #\(section.componentIndex)"
        if let header = section.header {
            out.rect("header", header, ##"fill="#e6e6e6" stroke="#999999""##)
            out.label(header, "header · \(name)", fill: "#555555")
        }
        if let footer = section.footer {
            out.rect("footer", footer, ##"fill="#eeeeee" stroke="#999999""##)
            out.label(footer, "footer · \(name)", fill: "#555555")
        }
        let overflows = section.frame.x + section.contentSize.width > screenWidth + 1e-9
        for item in section.items {
            let dimmed = item.frame.maxX > screenWidth + 1e-9
            if dimmed { out.raw("<g class=\"offscreen\" opacity=\"\(dimmedOpacity)\">") }
            out.rect("cell", item.frame, ##"fill="#dbe9ff" stroke="#2f6fd6""##)
            if item.contentNodes == nil {
                out.label(item.frame, item.cellStyle, index: item.index, fill: "#1b3f7a")
            } else {
                drawContent(section.content(of: item), into: &out)
            }
            if dimmed { out.raw("</g>\n") }
        }
        if overflows && !section.items.isEmpty {
            // The screen's right edge across a section that scrolls beyond it.
            out.raw("<line class=\"screen-edge\"")
            out.attr("x1", screenWidth)
            out.attr("y1", section.frame.y)
            out.attr("x2", screenWidth)
            out.attr("y2", section.frame.maxY)
            out.raw(##" stroke="#333333" stroke-dasharray="2 2"/>"##)
            out.raw("\n")
        }
        for child in section.sections {
            draw(child, screenWidth: screenWidth, into: &out)
        }
        out.raw("</g>\n")
    }

    /// A cell's insides: images as neutral placeholders (a frame with its diagonals; avatars
    /// round), texts as one bar per line (the last of several shorter), containers not drawn.
    static func drawContent(_ nodes: [ContentNodeLayout], into out: inout SVGOutput) {
        for node in nodes {
            let f = node.frame
            switch node.info.kind {
            case .image:
                let kind = node.info.placeholder?.rawValue ?? "image"
                if node.info.placeholder == .avatar {
                    out.raw("<ellipse class=\"content-image \(kind)\"")
                    out.attr("cx", f.x + f.width / 2)
                    out.attr("cy", f.y + f.height / 2)
                    out.attr("rx", f.width / 2)
                    out.attr("ry", f.height / 2)
                    out.raw(##" fill="#b8c0cc"/>"##)
                    out.raw("\n")
                } else {
                    out.rect("content-image \(kind)", f, ##"fill="#b8c0cc""##)
                    out.raw("<path class=\"content-image-cross\" d=\"M")
                    out.num(f.x); out.raw(" "); out.num(f.y)
                    out.raw("L"); out.num(f.maxX); out.raw(" "); out.num(f.maxY)
                    out.raw("M"); out.num(f.maxX); out.raw(" "); out.num(f.y)
                    out.raw("L"); out.num(f.x); out.raw(" "); out.num(f.maxY)
                    out.raw("\"")
                    out.raw(##" stroke="#ffffff" stroke-width="1" opacity="0.6"/>"##)
                    out.raw("\n")
                }
            case .text:
                let lines = shapes(node.info)
                let role = node.info.role?.rawValue ?? "body"
                let lineHeight = node.info.lineHeight ?? f.height / Double(lines)
                let bar = lineHeight * 0.6
                let fill = node.info.role == .title ? "#5b6472" : "#8a93a0"
                let style = "fill=\"\(fill)\" rx=\"\(fmt(bar / 2, decimals: 3))\""
                let cls = "content-text-line \(role)"
                for line in 0..<lines {
                    let top = f.y + Double(line) * lineHeight + (lineHeight - bar) / 2
                    let width = line == lines - 1 && lines > 1 ? f.width * 0.7 : f.width
                    out.rect(cls, LayoutFrame(x: f.x, y: top, width: width, height: bar), style)
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
        var out = SVGOutput(capacity: 1024)
        out.open(viewWidth: viewWidth, viewHeight: viewHeight)
        out.raw("<title>")
        out.text("Cell \(fmt(width))×\(fmt(height))")
        out.raw("</title>\n")
        out.rect("cell", LayoutFrame(x: 0, y: 0, width: width, height: height), ##"fill="#dbe9ff" stroke="#2f6fd6""##)
        drawContent(content, into: &out)
        for (i, warning) in warnings.enumerated() {
            out.warning("⚠ " + warning, y: height + margin + Double(i + 1) * warningLineHeight)
        }
        out.raw("</svg>\n")
        return String(decoding: out.bytes, as: UTF8.self)
    }

    /// Escapes text for XML content and attribute values.
    static func escape(_ s: String) -> String {
        var out = SVGOutput(capacity: s.utf8.count)
        out.text(s)
        return String(decoding: out.bytes, as: UTF8.self)
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

/// An SVG document being written as UTF-8 bytes.
struct SVGOutput {
    var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    /// Markup written as it is.
    mutating func raw(_ s: String) { bytes.append(contentsOf: s.utf8) }

    /// A coordinate: at most 3 decimals.
    mutating func num(_ v: Double) { writeFixed(v, decimals: 3, into: &bytes) }

    /// ` name="value"`.
    mutating func attr(_ name: String, _ v: Double) {
        bytes.append(UInt8(ascii: " "))
        raw(name)
        bytes.append(contentsOf: "=\"".utf8)
        num(v)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Text escaped for XML content and attribute values; characters XML 1.0 does not allow at
    /// all are dropped.
    mutating func text(_ s: String) {
        // U+FFFE and U+FFFF (EF BF BE and EF BF BF) are not XML characters: taken out first.
        if s.utf8.contains(0xEF), s.unicodeScalars.contains(where: { $0.value == 0xFFFE || $0.value == 0xFFFF }) {
            text(String(String.UnicodeScalarView(s.unicodeScalars.filter { $0.value != 0xFFFE && $0.value != 0xFFFF })))
            return
        }
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "&"): raw("&amp;")
            case UInt8(ascii: "<"): raw("&lt;")
            case UInt8(ascii: ">"): raw("&gt;")
            case UInt8(ascii: "\""): raw("&quot;")
            case UInt8(ascii: "'"): raw("&apos;")
            case 0x9, 0xA, 0xD: bytes.append(byte)
            case ..<0x20: continue
            default: bytes.append(byte)
            }
        }
    }

    mutating func open(viewWidth: Double, viewHeight: Double) {
        raw(#"<?xml version="1.0" encoding="UTF-8"?>"#)
        raw("\n")
        raw(#"<svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox=""#)
        num(-SVGRenderer.margin); raw(" "); num(-SVGRenderer.margin); raw(" "); num(viewWidth); raw(" "); num(viewHeight)
        raw("\"")
        attr("width", viewWidth)
        attr("height", viewHeight)
        raw(#" font-family="Helvetica, Arial, sans-serif" font-size="10">"#)
        raw("\n")
    }

    mutating func rect(_ cls: String, _ f: LayoutFrame, _ style: String) {
        raw("<rect class=\"")
        raw(cls)
        raw("\"")
        attr("x", f.x)
        attr("y", f.y)
        attr("width", max(0, f.width))
        attr("height", max(0, f.height))
        raw(" ")
        raw(style)
        raw("/>\n")
    }

    mutating func label(_ f: LayoutFrame, _ text: String, index: Int? = nil, fill: String) {
        let size = max(4, min(10, f.height - 2))
        raw("<text")
        attr("x", f.x + 3)
        attr("y", f.y + min(f.height - 1, size + 1))
        attr("font-size", size)
        raw(" fill=\"")
        raw(fill)
        raw("\">")
        self.text(text)
        if let index {
            raw(" ")
            raw(String(index))
        }
        raw("</text>\n")
    }

    mutating func warning(_ message: String, y: Double) {
        raw("<text class=\"warning\" x=\"0\"")
        attr("y", y)
        raw(" fill=\"#b35900\">")
        text(message)
        raw("</text>\n")
    }
}

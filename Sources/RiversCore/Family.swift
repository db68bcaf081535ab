/// A width and height in points.
public struct Size: Sendable, Hashable, Codable {
    public var width: Double
    public var height: Double
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
    public var json: JSONValue { ["width": .number(width), "height": .number(height)] }
}

/// Four edges' lengths at the reference size, each scalable or fixed: a family's section insets,
/// a content node's padding.
public struct Insets: Sendable, Hashable, Codable {
    public var top: Length
    public var left: Length
    public var bottom: Length
    public var right: Length
    public init(top: Length = .zero, left: Length = .zero, bottom: Length = .zero, right: Length = .zero) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }
    public init(all: Length) { self.init(top: all, left: all, bottom: all, right: all) }
    public var isZero: Bool { self == Insets() }
    public var json: JSONValue {
        ["top": top.json, "left": left.json, "bottom": bottom.json, "right": right.json]
    }
}

/// How wide a cell is: a share of the line (`columns`) or a width.
public enum CellWidth: Sendable, Hashable {
    case columns(Int)
    case points(Length)
}

/// How tall a cell is: a height, from its width (`aspect_ratio` is width ÷ height, 16:9 → 1.7778),
/// or `fit`: what its content needs at its width (the layout engine measures it).
public enum CellHeight: Sendable, Hashable {
    case points(Length)
    case aspectRatio(Double)
    case fit
}

/// A cell style belongs to a family; its size follows from the family's flow-layout rules, and
/// its `content` (optional) says what is inside the cell.
public struct CellStyle: Sendable, Hashable {
    public var id: String
    public var width: CellWidth
    public var height: CellHeight
    public var content: ContentNode?

    public init(id: String, width: CellWidth, height: CellHeight, content: ContentNode? = nil) {
        self.id = id
        self.width = width
        self.height = height
        self.content = content
    }
}

/// Per-screen flow-layout rules, like `UICollectionViewFlowLayout`: all lengths are given at the
/// reference size and scale with the device.
public struct Family: Sendable, Hashable {
    public var id: String
    public var name: String
    public var referenceSize: Size
    public var insets: Insets
    public var interitemSpacing: Length
    public var lineSpacing: Length
    /// The cell styles in order; looked up by id through an index, since a request may name many.
    public var cellStyles: [CellStyle] {
        didSet { cellStyleIndex = Self.index(cellStyles) }
    }
    private var cellStyleIndex: [String: Int]

    private static func index(_ styles: [CellStyle]) -> [String: Int] {
        var index: [String: Int] = [:]
        for (i, style) in styles.enumerated() where index[style.id] == nil { index[style.id] = i }
        return index
    }

    public init(
        id: String, name: String, referenceSize: Size, insets: Insets = Insets(), interitemSpacing: Length = .zero,
        lineSpacing: Length = .zero, cellStyles: [CellStyle] = []
    ) {
        self.id = id
        self.name = name
        self.referenceSize = referenceSize
        self.insets = insets
        self.interitemSpacing = interitemSpacing
        self.lineSpacing = lineSpacing
        self.cellStyles = cellStyles
        self.cellStyleIndex = Self.index(cellStyles)
    }

    public func cellStyle(_ id: String) -> CellStyle? {
        cellStyleIndex[id].map { cellStyles[$0] }
    }

    /// The width available to cells on a line at the reference size (where scalable and fixed
    /// lengths are equal).
    public var availableWidth: Double { referenceSize.width - insets.left.value - insets.right.value }

    /// The family's width rule, written once for the server (the layout engine uses it at any
    /// scale): `n` columns share the line between the insets, `spacing` between two of them.
    public static func columnWidth(lineWidth: Double, spacing: Double, columns n: Int) -> Double {
        (lineWidth - Double(n - 1) * spacing) / Double(n)
    }

    /// The width of a cell of `style` at the reference size:
    /// `columns: n` gives `(W − left − right − (n−1)·spacing) / n`.
    public func width(of style: CellStyle) -> Double {
        switch style.width {
        case .columns(let n): Self.columnWidth(lineWidth: availableWidth, spacing: interitemSpacing.value, columns: n)
        case .points(let w): w.value
        }
    }
}

// MARK: - Reading and writing

extension Family {
    static let keys: Set<String> = [
        "id", "name", "reference_size", "insets", "interitem_spacing", "line_spacing", "cell_styles",
        // Read-only members a client may send back unchanged.
        "revision", "created_at", "updated_at",
    ]
    static let cellStyleKeys: Set<String> = ["id", "columns", "width", "height", "aspect_ratio", "content", "computed"]

    /// Reads and validates a family body; every problem goes to `problems`.
    public static func read(_ json: JSONValue, problems: Problems) -> Family? {
        read(json, problems: problems, base: nil)
    }

    /// The family a JSON merge patch (RFC 7396) makes of `base`, read and checked as the whole
    /// body it stands for would be, with the same problems at the same pointers, but without
    /// making JSON of what the patch leaves out (the cell styles above all): a member left out is
    /// the base's typed value; an object the patch gives (`reference_size`, `insets`, a fixed
    /// length) is merged onto the base's; any other member, `null` included, is read as sent.
    /// The base's cell styles, when kept, are checked against the family's new insets and
    /// spacing. The id cannot change (`/id`); the read-only members are ignored.
    public static func read(mergePatch patch: JSONValue, onto base: Family, problems: Problems) -> Family? {
        let members = MergePatch.members(patch, id: base.id, keys: keys, problems: problems) { key in
            switch key {
            case "reference_size": base.referenceSize.json
            case "insets": base.insets.json
            case "interitem_spacing": base.interitemSpacing.json
            case "line_spacing": base.lineSpacing.json
            default: nil
            }
        }
        guard let members else { return nil }
        return read(.object(members), problems: problems, base: base)
    }

    /// `read`, with `base` supplying every member the body leaves out.
    static func read(_ json: JSONValue, problems: Problems, base: Family?) -> Family? {
        guard let r = ObjectReader(json, at: "", problems: problems) else { return nil }
        /// Whether the body gives `key` (always, without a base; `null` counts: it removes).
        func given(_ key: String) -> Bool { base == nil || r.object[key] != nil }
        r.rejectUnknownKeys(keys)
        let id = r.identifier("id", required: true, allowed: IdentifierRules.isUpperSnake, describe: "upper-case letters, digits and _ (like FAMILY_1)")
        let name = given("name") ? r.string("name", nonEmpty: true, maxLength: 200) : base!.name
        var referenceSize: Size?
        if !given("reference_size") {
            referenceSize = base!.referenceSize
        } else if let s = ObjectReader(r.object["reference_size"], at: r.at("reference_size"), problems: problems) {
            s.rejectUnknownKeys(["width", "height"])
            // From 1 point: the scale factor W ÷ width stays within 10,000, so no scaled length overflows.
            let w = s.number("width", required: true, minimum: 1, maximum: Limits.maxLength)
            let h = s.number("height", required: true, minimum: 1, maximum: Limits.maxLength)
            if let w, let h { referenceSize = Size(width: w, height: h) }
        }
        var insets = Insets()
        if !given("insets") {
            insets = base!.insets
        } else if let i = ObjectReader(r.object["insets"], at: r.at("insets"), problems: problems, required: false) {
            i.rejectUnknownKeys(["top", "left", "bottom", "right"])
            insets = Insets(
                top: i.length("top") ?? .zero, left: i.length("left") ?? .zero,
                bottom: i.length("bottom") ?? .zero, right: i.length("right") ?? .zero)
        }
        let interitem = given("interitem_spacing") ? r.length("interitem_spacing") ?? .zero : base!.interitemSpacing
        let line = given("line_spacing") ? r.length("line_spacing") ?? .zero : base!.lineSpacing

        var family = Family(
            id: id ?? "", name: name ?? id ?? "", referenceSize: referenceSize ?? Size(width: 1, height: 1),
            insets: insets, interitemSpacing: interitem, lineSpacing: line)
        if let refSize = referenceSize, insets.left.value + insets.right.value >= refSize.width {
            problems.add("/insets", "left and right insets (\(fmt(insets.left.value + insets.right.value))) leave no room in the reference width \(fmt(refSize.width))")
        }

        /// A cell style's width against the line between the insets, at the reference size.
        func checkWidth(_ style: CellStyle, at pointer: String) {
            guard referenceSize != nil, family.availableWidth > 0 else { return }
            let width = family.width(of: style)
            if width <= 0 {
                let columns = if case .columns(let n) = style.width { n } else { 0 }
                problems.add(JSONPointer.join(pointer, "columns"), "\(columns) columns with spacing \(fmt(interitem.value)) do not fit in \(fmt(family.availableWidth)) points")
            } else if width > family.availableWidth + 1e-9 {
                problems.add(JSONPointer.join(pointer, "width"), "\(fmt(width)) is wider than the \(fmt(family.availableWidth)) points between the insets")
            }
        }
        if !given("cell_styles") {
            for (index, style) in base!.cellStyles.enumerated() { checkWidth(style, at: JSONPointer.join("/cell_styles", index)) }
            family.cellStyles = base!.cellStyles
            return problems.isEmpty ? family : nil
        }

        var seen: [String: Int] = [:]
        var read: [CellStyle] = []
        var styles = r.array("cell_styles") ?? []
        if styles.count > Limits.maxCellStylesPerFamily {
            problems.add("/cell_styles", "a family holds at most \(Limits.maxCellStylesPerFamily) cell styles (got \(styles.count))")
            styles = []
        }
        for (index, item) in styles.enumerated() {
            let pointer = JSONPointer.join("/cell_styles", index)
            guard let c = ObjectReader(item, at: pointer, problems: problems) else { continue }
            c.rejectUnknownKeys(cellStyleKeys)
            let styleId = c.identifier("id", required: true, allowed: IdentifierRules.isUpperSnake, describe: "upper-case letters, digits and _ (like GRID_1)")
            if let styleId {
                if let first = seen[styleId] {
                    problems.add(c.at("id"), "duplicates the id of /cell_styles/\(first)")
                } else {
                    seen[styleId] = index
                }
            }
            let columns = c.integer("columns", minimum: 1, maximum: Limits.maxColumns)
            let width = c.length("width", exclusiveMinimum: 0)
            let fit = c.object["height"] == .string("fit")
            let height = fit ? nil : c.length("height", exclusiveMinimum: 0, maximum: Limits.maxCellHeight)
            var content: ContentNode?
            if c.has("content") {
                let contentProblems = Problems()
                content = ContentNode.read(c.object["content"]!, at: c.at("content"), problems: contentProblems)
                problems.add(contentProblems, under: "")
            }
            let ratio = c.number("aspect_ratio", minimum: Limits.aspectRatioRange.lowerBound, maximum: Limits.aspectRatioRange.upperBound)
            var cellWidth: CellWidth?
            switch (c.has("columns"), c.has("width")) {
            case (true, true): problems.add(pointer, "give either columns or width, not both")
            case (false, false): problems.add(pointer, "needs columns or width")
            case (true, false): if let columns { cellWidth = .columns(columns) }
            case (false, true): if let width { cellWidth = .points(width) }
            }
            var cellHeight: CellHeight?
            switch (c.has("height"), c.has("aspect_ratio")) {
            case (true, true): problems.add(pointer, "give either height or aspect_ratio, not both")
            case (false, false): problems.add(pointer, "needs height or aspect_ratio")
            case (true, false):
                if fit {
                    if c.has("content") { cellHeight = .fit } else { problems.add(c.at("height"), "\"fit\" takes the height the content needs: give the cell style content") }
                } else if let height {
                    cellHeight = .points(height)
                }
            case (false, true): if let ratio { cellHeight = .aspectRatio(ratio) }
            }
            guard let styleId, let cellWidth, let cellHeight else { continue }
            let style = CellStyle(id: styleId, width: cellWidth, height: cellHeight, content: content)
            checkWidth(style, at: pointer)
            read.append(style)
        }
        // Assigned once: each assignment rebuilds the id index.
        family.cellStyles = read
        return problems.isEmpty ? family : nil
    }

    /// The family as it is stored and shown. `computed` sizes: `computed(style)` gives a cell
    /// style's size at the reference size (the layout engine's `Family.computedSizes`), left out
    /// when nil.
    public func json(computed: (CellStyle) -> Size? = { _ in nil }) -> JSONValue {
        .object([
            "id": .string(id),
            "name": .string(name),
            "reference_size": referenceSize.json,
            "insets": insets.json,
            "interitem_spacing": interitemSpacing.json,
            "line_spacing": lineSpacing.json,
            "cell_styles": .array(cellStyles.map { style in
                var o: [String: JSONValue] = ["id": .string(style.id)]
                switch style.width {
                case .columns(let n): o["columns"] = .number(Double(n))
                case .points(let w): o["width"] = w.json
                }
                switch style.height {
                case .points(let h): o["height"] = h.json
                case .aspectRatio(let r): o["aspect_ratio"] = .number(r)
                case .fit: o["height"] = "fit"
                }
                if let content = style.content { o["content"] = content.json }
                if let size = computed(style) { o["computed"] = size.json }
                return .object(o)
            }),
        ])
    }
}

func fmt(_ n: Double) -> String { JSONValue.number(n).serializedString() }

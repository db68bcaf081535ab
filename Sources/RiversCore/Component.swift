/// Which way a component's items flow.
public enum ComponentAxis: String, Sendable, Codable {
    case vertical, horizontal
}

/// A kind of component that can be placed on a screen: built in, or a `ui_component` plugin.
public struct ComponentType: Sendable, Hashable, Codable {
    public var id: String
    public var name: String
    public var axis: ComponentAxis
    public var needsDataSource: Bool
    public var holdsChildren: Bool
    public var description: String
    /// The plugin identifier behind a plugin component type; nil for built-ins.
    public var plugin: String?

    public init(id: String, name: String, axis: ComponentAxis, needsDataSource: Bool, holdsChildren: Bool, description: String, plugin: String? = nil) {
        self.id = id
        self.name = name
        self.axis = axis
        self.needsDataSource = needsDataSource
        self.holdsChildren = holdsChildren
        self.description = description
        self.plugin = plugin
    }

    enum CodingKeys: String, CodingKey {
        case id, name, axis, description, plugin
        case needsDataSource = "needs_data_source"
        case holdsChildren = "holds_children"
    }

    public var json: JSONValue {
        var o: [String: JSONValue] = [
            "id": .string(id), "name": .string(name), "axis": .string(axis.rawValue),
            "needs_data_source": .bool(needsDataSource), "holds_children": .bool(holdsChildren),
            "description": .string(description),
        ]
        o["plugin"] = plugin.map(JSONValue.string) ?? .null
        return .object(o)
    }

    /// The built-in catalog.
    public static let builtIn: [ComponentType] = [
        ComponentType(id: "list", name: "List", axis: .vertical, needsDataSource: true, holdsChildren: false,
                      description: "Items one under another, usually one a row."),
        ComponentType(id: "grid", name: "Grid", axis: .vertical, needsDataSource: true, holdsChildren: false,
                      description: "Items in rows and columns."),
        ComponentType(id: "hero", name: "Hero", axis: .horizontal, needsDataSource: true, holdsChildren: false,
                      description: "Large featured items in a carousel."),
        ComponentType(id: "horizontal_list", name: "Horizontal list", axis: .horizontal, needsDataSource: true, holdsChildren: false,
                      description: "One row of items that scrolls sideways."),
        ComponentType(id: "html_ticker", name: "HTML ticker", axis: .horizontal, needsDataSource: true, holdsChildren: false,
                      description: "A scrolling line of short texts."),
        ComponentType(id: "tab_bar", name: "Tab bar", axis: .horizontal, needsDataSource: true, holdsChildren: false,
                      description: "Tabs, each opening its items below (cell_body_component_type)."),
        ComponentType(id: "screen_picker", name: "Screen picker", axis: .horizontal, needsDataSource: false, holdsChildren: false,
                      description: "Tabs that switch between other screens."),
        ComponentType(id: "banner", name: "Banner", axis: .vertical, needsDataSource: false, holdsChildren: false,
                      description: "One advertising or promotional banner."),
        ComponentType(id: "group", name: "Group", axis: .vertical, needsDataSource: false, holdsChildren: true,
                      description: "Holds other components and stacks them."),
    ]
}

/// What the model checks components against: the component types the app knows.
public struct ComponentCatalog: Sendable {
    public var types: [String: ComponentType]

    public init(_ types: [ComponentType]) {
        self.types = Dictionary(types.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public static let builtIn = ComponentCatalog(ComponentType.builtIn)
}

/// A header or footer of a component.
public struct SectionDecoration: Sendable, Hashable {
    public var visible: Bool
    public var style: String?

    public init(visible: Bool = false, style: String? = nil) {
        self.visible = visible
        self.style = style
    }

    public var json: JSONValue {
        ["visible": .bool(visible), "style": style.map(JSONValue.string) ?? .null]
    }
}

/// Where a component's items come from, and which screen a tap opens.
public struct ComponentData: Sendable, Hashable {
    public var source: String
    public var type: String
    public var target: String?
    public var connected: Bool?

    public init(source: String = "", type: String = "", target: String? = nil, connected: Bool? = nil) {
        self.source = source
        self.type = type
        self.target = target
        self.connected = connected
    }

    /// True when the component has a data source of its own.
    public var hasSource: Bool { !source.isEmpty || !type.isEmpty }

    public var json: JSONValue {
        var o: [String: JSONValue] = ["source": .string(source), "type": .string(type)]
        if let target { o["target"] = .string(target) }
        if let connected { o["connected"] = .bool(connected) }
        return .object(o)
    }
}

/// A component placed on a screen or in a layout.
public struct Component: Sendable, Hashable {
    public var id: String
    public var componentType: String
    public var cellStyles: [String]
    public var layout: String?
    public var header: SectionDecoration
    public var footer: SectionDecoration
    public var itemLimit: Int?
    /// Rules besides `item_limit`, kept as they are: `web_page_shows_navigation` (a boolean),
    /// `datasource_limit` (2018 documents), and any a client may read that Rivers does not model.
    public var rules: [String: JSONValue]
    /// The component's own advertising values, like a screen's.
    public var advertising: [String: JSONValue]
    public var data: ComponentData?
    /// Other style values (plugin style fields, `cell_body_component_type`, …).
    public var styles: [String: JSONValue]
    public var uiComponents: [Component]

    public init(
        id: String = UUIDText.random(), componentType: String, cellStyles: [String] = [], layout: String? = nil,
        header: SectionDecoration = .init(), footer: SectionDecoration = .init(), itemLimit: Int? = nil,
        rules: [String: JSONValue] = [:], advertising: [String: JSONValue] = [:],
        data: ComponentData? = nil, styles: [String: JSONValue] = [:], uiComponents: [Component] = []
    ) {
        self.rules = rules
        self.advertising = advertising
        self.id = id
        self.componentType = componentType
        self.cellStyles = cellStyles
        self.layout = layout
        self.header = header
        self.footer = footer
        self.itemLimit = itemLimit
        self.data = data
        self.styles = styles
        self.uiComponents = uiComponents
    }

    static let keys: Set<String> = [
        "id", "component_type", "cell_styles", "layout", "header", "footer", "rules", "advertising", "data", "styles",
        "ui_components",
    ]

    /// Reads a list of components; ids missing from the body are generated.
    /// A screen's or layout's list (`depth` 0) holds at most `Limits.maxComponentsPerScreen`
    /// components, group children included: counted before any is read.
    public static func readList(_ value: [JSONValue], at pointer: String, catalog: ComponentCatalog, problems: Problems, depth: Int = 0) -> [Component] {
        if depth == 0 {
            let total = count(value)
            if total > Limits.maxComponentsPerScreen {
                problems.add(pointer, "a screen holds at most \(Limits.maxComponentsPerScreen) components, group children included (got \(total))")
                return []
            }
        }
        var result: [Component] = []
        var seen: [String: String] = [:]
        for (index, item) in value.enumerated() {
            let p = JSONPointer.join(pointer, index)
            guard let c = read(item, at: p, catalog: catalog, problems: problems, depth: depth) else { continue }
            if let other = seen[c.id] {
                problems.add(JSONPointer.join(p, "id"), "duplicates the id of \(other)")
            }
            seen[c.id] = p
            result.append(c)
        }
        return result
    }

    /// Components in a list as sent, children of groups included.
    static func count(_ list: [JSONValue]) -> Int {
        list.reduce(list.count) { total, item in total + count(item["ui_components"]?.arrayValue ?? []) }
    }

    static func read(_ json: JSONValue, at pointer: String, catalog: ComponentCatalog, problems: Problems, depth: Int) -> Component? {
        guard let r = ObjectReader(json, at: pointer, problems: problems) else { return nil }
        r.rejectUnknownKeys(keys)
        let before = problems.count
        let id = r.identifier("id", allowed: IdentifierRules.isToken, describe: "letters, digits, '_', '-' or '.'") ?? UUIDText.random()
        let typeId = r.string("component_type", required: true)
        var type: ComponentType?
        if let typeId {
            type = catalog.types[typeId]
            if type == nil {
                problems.add(r.at("component_type"), "unknown component type \"\(typeId)\"; see GET /api/v1/component-types")
            }
        }
        let cellStyles = r.stringArray("cell_styles", maxCount: Limits.maxCellStylesPerComponent) ?? []
        let layout = r.string("layout")
        let header = readDecoration(r, "header")
        let footer = readDecoration(r, "footer")
        var itemLimit: Int?
        var otherRules: [String: JSONValue] = [:]
        if let rules = ObjectReader(r.object["rules"], at: r.at("rules"), problems: problems, required: false) {
            itemLimit = rules.integer("item_limit", minimum: 0, maximum: Limits.maxItemLimit, acceptNumericString: true)
            otherRules = rules.object.filter { $0.key != "item_limit" && !$0.value.isNull }
            _ = rules.bool("web_page_shows_navigation")
            _ = rules.integer("datasource_limit", minimum: 0, acceptNumericString: true)
        }
        let advertising = r.freeObject("advertising")
        var data: ComponentData?
        if let d = ObjectReader(r.object["data"], at: r.at("data"), problems: problems, required: false) {
            d.rejectUnknownKeys(["source", "type", "target", "connected"])
            data = ComponentData(
                source: d.string("source") ?? "", type: d.string("type") ?? "",
                target: d.uuid("target"), connected: d.bool("connected"))
        }
        let styles = r.freeObject("styles")
        for reserved in ["family", "cell_styles", "header", "footer", "layout"] where styles[reserved] != nil {
            problems.add(JSONPointer.join(r.at("styles"), reserved), "is set by the component's own \(reserved == "family" ? "screen" : reserved) field, not inside styles")
        }
        var children: [Component] = []
        if let list = r.array("ui_components") {
            if let type, !type.holdsChildren, !list.isEmpty {
                problems.add(r.at("ui_components"), "a \(type.id) cannot hold components; use a group")
            } else if depth >= 4 {
                problems.add(r.at("ui_components"), "groups nest at most 4 levels deep")
            } else {
                children = readList(list, at: r.at("ui_components"), catalog: catalog, problems: problems, depth: depth + 1)
            }
        }
        guard problems.count == before, let typeId else { return nil }
        return Component(
            id: id, componentType: typeId, cellStyles: cellStyles, layout: layout, header: header, footer: footer,
            itemLimit: itemLimit, rules: otherRules, advertising: advertising, data: data, styles: styles, uiComponents: children)
    }

    static func readDecoration(_ r: ObjectReader, _ key: String) -> SectionDecoration {
        guard let d = ObjectReader(r.object[key], at: r.at(key), problems: r.problems, required: false) else { return .init() }
        d.rejectUnknownKeys(["visible", "style"])
        return SectionDecoration(visible: d.bool("visible") ?? false, style: d.string("style"))
    }

    /// The component as the API shows it.
    public var json: JSONValue {
        var rules = self.rules
        if let itemLimit { rules["item_limit"] = .number(Double(itemLimit)) }
        var o: [String: JSONValue] = [
            "id": .string(id),
            "component_type": .string(componentType),
            "cell_styles": .array(cellStyles.map(JSONValue.string)),
            "layout": layout.map(JSONValue.string) ?? .null,
            "header": header.json,
            "footer": footer.json,
            "rules": .object(rules),
            "data": data?.json ?? .null,
            "styles": .object(styles),
            "ui_components": .array(uiComponents.map(\.json)),
        ]
        if !advertising.isEmpty { o["advertising"] = .object(advertising) }
        return .object(o)
    }

    /// This component and every nested one, depth first, each with its pointer below `base`.
    public func walk(at base: String, _ visit: (Component, String) -> Void) {
        visit(self, base)
        for (i, child) in uiComponents.enumerated() {
            child.walk(at: JSONPointer.join(JSONPointer.join(base, "ui_components"), i), visit)
        }
    }

    /// A list of components (as JSON) with fresh ids throughout: a screen started from a layout
    /// gets components of its own.
    public static func withFreshIds(_ list: JSONValue) -> JSONValue {
        guard let items = list.arrayValue else { return list }
        return .array(items.map { item in
            guard var o = item.objectValue else { return item }
            o["id"] = .string(UUIDText.random())
            if let children = o["ui_components"] { o["ui_components"] = withFreshIds(children) }
            return .object(o)
        })
    }
}

extension Array where Element == Component {
    /// Visits every component, nested ones included, with its pointer below `base`.
    public func walk(at base: String, _ visit: (Component, String) -> Void) {
        for (i, c) in enumerated() { c.walk(at: JSONPointer.join(base, i), visit) }
    }
}

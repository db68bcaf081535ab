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
    /// Members published as they are (see `Component.extra`).
    public var extra: [String: JSONValue]

    static let keys: Set<String> = ["visible", "style"]

    public init(visible: Bool = false, style: String? = nil, extra: [String: JSONValue] = [:]) {
        self.visible = visible
        self.style = style
        self.extra = extra
    }

    /// As the API shows it (`extra` a member of its own) or, `document`, as published.
    public func json(document: Bool = false) -> JSONValue {
        .object(["visible": .bool(visible), "style": style.map(JSONValue.string) ?? .null].withExtra(extra, document: document))
    }
}

/// Where a component's items come from, and which screen a tap opens.
public struct ComponentData: Sendable, Hashable {
    public var source: String
    public var type: String
    public var target: String?
    public var connected: Bool?
    /// Members published as they are (see `Component.extra`).
    public var extra: [String: JSONValue]

    static let documentKeys: Set<String> = ["source", "type", "target", "connected"]

    public init(source: String = "", type: String = "", target: String? = nil, connected: Bool? = nil, extra: [String: JSONValue] = [:]) {
        self.extra = extra
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
        if !extra.isEmpty { o["extra"] = .object(extra) }
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
    /// Members published as they are beside the modelled ones: what an imported document carried
    /// that Rivers does not model, so no value a client reads is lost.
    public var extra: [String: JSONValue]

    public init(
        id: String = UUIDText.random(), componentType: String, cellStyles: [String] = [], layout: String? = nil,
        header: SectionDecoration = .init(), footer: SectionDecoration = .init(), itemLimit: Int? = nil,
        rules: [String: JSONValue] = [:], advertising: [String: JSONValue] = [:],
        data: ComponentData? = nil, styles: [String: JSONValue] = [:], uiComponents: [Component] = [],
        extra: [String: JSONValue] = [:]
    ) {
        self.extra = extra
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

    /// The API's fields.
    static let keys: Set<String> = [
        "id", "component_type", "cell_styles", "layout", "header", "footer", "rules", "advertising", "data", "styles",
        "ui_components", "extra",
    ]
    /// The members of a component in a published document (what `extra` may not name).
    static let documentKeys: Set<String> = [
        "id", "component_type", "data", "styles", "rules", "advertising", "position", "ui_components",
    ]
    /// Style members the document writes from the component's own fields.
    static let reservedStyles: Set<String> = ["family", "cell_styles", "header", "footer", "layout"]
    /// Groups nest at most this deep.
    public static let maxDepth = 4

    /// Where the reader is in a screen's component tree.
    struct ListContext {
        /// Ids generated for components without one: random for API bodies; from the screen id
        /// and the place in the tree (`<screen id>-3-1`) for documents, so an import is repeatable.
        var documentScreenId: String?
        /// Every id read so far in the screen, with its pointer: ids are unique in a screen.
        var seen: [String: String] = [:]
        /// A connected screen's components take their items from the sender.
        var connected = false
    }

    /// Reads a screen's or layout's list of components; ids missing from the body are generated.
    /// The list holds at most `Limits.maxComponentsPerScreen`
    /// components, group children included: counted before any is read.
    public static func readList(
        _ value: [JSONValue], at pointer: String, catalog: ComponentCatalog, problems: Problems,
        documentScreenId: String? = nil, connected: Bool = false
    ) -> [Component] {
        let total = count(value)
        if total > Limits.maxComponentsPerScreen {
            problems.add(pointer, "a screen holds at most \(Limits.maxComponentsPerScreen) components, group children included (got \(total))")
            return []
        }
        var context = ListContext(documentScreenId: documentScreenId, connected: connected)
        return readList(value, at: pointer, catalog: catalog, problems: problems, path: [], context: &context)
    }

    static func readList(
        _ value: [JSONValue], at pointer: String, catalog: ComponentCatalog, problems: Problems, path: [Int], context: inout ListContext
    ) -> [Component] {
        var result: [Component] = []
        for (index, item) in value.enumerated() {
            let p = JSONPointer.join(pointer, index)
            if let c = read(item, at: p, catalog: catalog, problems: problems, path: path + [index + 1], context: &context) {
                result.append(c)
            }
        }
        return result
    }

    /// Components in a list as sent, children of groups included.
    static func count(_ list: [JSONValue]) -> Int {
        list.reduce(list.count) { total, item in total + count(item["ui_components"]?.arrayValue ?? []) }
    }

    /// One component, from an API body or (when `problems.mode` is `.document`) from a published
    /// document, where cell styles, layout, header and footer sit inside `styles` and members the
    /// model does not know are kept in `extra`.
    static func read(
        _ json: JSONValue, at pointer: String, catalog: ComponentCatalog, problems: Problems, path: [Int], context: inout ListContext
    ) -> Component? {
        guard let r = ObjectReader(json, at: pointer, problems: problems) else { return nil }
        let document = problems.mode == .document
        let before = problems.count
        let extra = r.extras(documentKeys: documentKeys, apiKeys: keys)
        if document { _ = r.integer("position", minimum: 0) }

        var id: String
        if let screenId = context.documentScreenId {
            id = RiversImport.generatedComponentId(screenId: screenId, path: path)
            if r.object["id"]?.stringValue?.isEmpty != true,  // "" is read as no id
               let given = r.identifier("id", allowed: IdentifierRules.isToken, describe: "letters, digits, '_', '-' or '.'") {
                id = given
            }
        } else {
            id = r.identifier("id", allowed: IdentifierRules.isToken, describe: "letters, digits, '_', '-' or '.'") ?? UUIDText.random()
        }
        if let other = context.seen[id] {
            problems.add(r.at("id"), "duplicates the id of the component at \(other)")
        } else {
            context.seen[id] = pointer
        }

        let typeId = r.string("component_type", required: true)
        var type: ComponentType?
        if let typeId {
            type = catalog.types[typeId]
            if type == nil {
                problems.add(r.at("component_type"), Message.unknownType(typeId))
            }
        }

        // Styles: free-form, except the members the component's own fields write.
        var styles = r.freeObject("styles")
        let stylesReader = ObjectReader(r.object["styles"], at: r.at("styles"), problems: problems, required: false)
        // Where cell styles, layout, header and footer are read from: the body, or the document's styles.
        let home = document ? stylesReader : r
        var cellStyles: [String] = []
        if let home {
            for (i, style) in (home.stringArray("cell_styles", maxCount: Limits.maxCellStylesPerComponent) ?? []).enumerated() {
                if style.isEmpty || style.utf8.count > 100 || !style.utf8.allSatisfy(IdentifierRules.isUpperSnake) {
                    problems.add(JSONPointer.join(home.at("cell_styles"), i), "must be a cell style id: upper-case letters, digits and _ (got \"\(style.prefix(100))\")")
                } else {
                    cellStyles.append(style)
                }
            }
        }
        let layout = home?.string("layout")
        let header = home.map { readDecoration($0, "header") } ?? .init()
        let footer = home.map { readDecoration($0, "footer") } ?? .init()
        if document {
            for reserved in reservedStyles { styles.removeValue(forKey: reserved) }
        } else {
            for reserved in reservedStyles.sorted() where styles[reserved] != nil {
                problems.add(JSONPointer.join(r.at("styles"), reserved), "is set by the component's own \(reserved == "family" ? "screen" : reserved) field, not inside styles")
            }
        }

        var itemLimit: Int?
        var otherRules: [String: JSONValue] = [:]
        if let rules = ObjectReader(r.object["rules"], at: r.at("rules"), problems: problems, required: false) {
            (itemLimit, otherRules) = readRules(rules)
        }
        let advertising = r.freeObject("advertising")

        var data: ComponentData?
        if let d = ObjectReader(r.object["data"], at: r.at("data"), problems: problems, required: false) {
            let dataExtra = d.extras(documentKeys: ComponentData.documentKeys)
            var source = d.string("source", acceptNumber: true) ?? ""
            var sourceType = d.string("type") ?? ""
            if context.connected, !source.isEmpty || !sourceType.isEmpty {
                if document {
                    problems.warn(r.at("data"), "source and type are left out: on a connected screen the items come from the sender")
                    source = ""
                    sourceType = ""
                } else {
                    for (key, value) in [("source", source), ("type", sourceType)] where !value.isEmpty {
                        problems.add(d.at(key), Message.dataOnConnectedScreen(key))
                    }
                }
            }
            data = ComponentData(source: source, type: sourceType, target: d.uuid("target"), connected: d.bool("connected"), extra: dataExtra)
        }

        var children: [Component] = []
        if let list = r.array("ui_components"), !list.isEmpty {
            if let type, !type.holdsChildren {
                problems.add(r.at("ui_components"), Message.holdsNoChildren(type))
            } else if path.count > maxDepth {
                problems.add(r.at("ui_components"), "groups nest at most \(maxDepth) levels deep")
            } else {
                children = readList(list, at: r.at("ui_components"), catalog: catalog, problems: problems, path: path, context: &context)
            }
        }
        guard problems.count == before, let typeId else { return nil }
        return Component(
            id: id, componentType: typeId, cellStyles: cellStyles, layout: layout, header: header, footer: footer,
            itemLimit: itemLimit, rules: otherRules, advertising: advertising, data: data, styles: styles, uiComponents: children,
            extra: extra)
    }

    /// The messages `read` and `checkKept` share.
    enum Message {
        static func unknownType(_ id: String) -> String {
            "unknown component type \"\(id)\": neither built in nor a ui_component plugin of this app; see GET /api/v1/component-types"
        }
        static func dataOnConnectedScreen(_ key: String) -> String {
            "a connected screen's components take their data from the sender: leave \(key) empty"
        }
        static func holdsNoChildren(_ type: ComponentType) -> String { "a \(type.id) cannot hold components; use a group" }
    }

    /// A component's `rules`: the item limit, and the others.
    static func readRules(_ rules: ObjectReader) -> (itemLimit: Int?, others: [String: JSONValue]) {
        let itemLimit = rules.integer("item_limit", minimum: 0, maximum: Limits.maxItemLimit, acceptNumericString: true)
        // Rules besides item_limit are kept as they are (clients read some Rivers does not
        // model); the known ones are checked for the type clients read.
        var others = rules.object.filter { $0.key != "item_limit" && !$0.value.isNull }
        // Clients read a boolean: a document's "true" is kept as true.
        if let web = rules.bool("web_page_shows_navigation") { others["web_page_shows_navigation"] = .bool(web) }
        checkDatasourceLimit(rules)
        return (itemLimit, others)
    }

    /// The checks `read` makes that depend on more than a component itself, for components kept
    /// as they are while other members of their screen change (a merge patch without
    /// `ui_components`): on a connected screen they take no data source, and their types are in
    /// the catalog, holding children only where the type does. Same pointers and messages.
    static func checkKept(_ list: [Component], at pointer: String, catalog: ComponentCatalog, connected: Bool, problems: Problems) {
        list.walk(at: pointer) { component, place in
            if let type = catalog.types[component.componentType] {
                if !type.holdsChildren, !component.uiComponents.isEmpty {
                    problems.add(place.pointer("ui_components"), Message.holdsNoChildren(type))
                }
            } else {
                problems.add(place.pointer("component_type"), Message.unknownType(component.componentType))
            }
            if connected, let data = component.data {
                for (key, value) in [("source", data.source), ("type", data.type)] where !value.isEmpty {
                    problems.add(place.pointer("data") + "/" + key, Message.dataOnConnectedScreen(key))
                }
            }
        }
    }

    static func readDecoration(_ r: ObjectReader, _ key: String) -> SectionDecoration {
        guard let d = ObjectReader(r.object[key], at: r.at(key), problems: r.problems, required: false) else { return .init() }
        let extra = d.extras(documentKeys: SectionDecoration.keys)
        return SectionDecoration(visible: d.bool("visible") ?? false, style: d.string("style"), extra: extra)
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
            "header": header.json(),
            "footer": footer.json(),
            "rules": .object(rules),
            "data": data?.json ?? .null,
            "styles": .object(styles),
            "ui_components": .array(uiComponents.map(\.json)),
        ]
        if !advertising.isEmpty { o["advertising"] = .object(advertising) }
        if !extra.isEmpty { o["extra"] = .object(extra) }
        return .object(o)
    }

    /// This component and every nested one, depth first, each with its place below `base` (the
    /// pointer is made only when asked for: a check that finds nothing builds no strings).
    public func walk(at base: String, _ visit: (Component, ComponentPlace) -> Void) {
        var place = ComponentPlace(base: base, indices: [])
        walk(place: &place, visit)
    }

    func walk(place: inout ComponentPlace, _ visit: (Component, ComponentPlace) -> Void) {
        visit(self, place)
        for (i, child) in uiComponents.enumerated() {
            place.indices.append(i)
            child.walk(place: &place, visit)
            place.indices.removeLast()
        }
    }

    /// This component with no `extra` members at any depth (its data's, header's and footer's too).
    public func droppingExtras() -> Component {
        var c = self
        c.extra = [:]
        c.data?.extra = [:]
        c.header.extra = [:]
        c.footer.extra = [:]
        c.uiComponents = uiComponents.map { $0.droppingExtras() }
        return c
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
    /// Visits every component, nested ones included, with its place below `base` (a list's pointer).
    public func walk(at base: String, _ visit: (Component, ComponentPlace) -> Void) {
        var place = ComponentPlace(base: base, indices: [0], listed: true)
        for (i, c) in enumerated() {
            place.indices[0] = i
            c.walk(place: &place, visit)
        }
    }
}

/// Where a component is: below `base`, the index in each list of `ui_components` on the way.
public struct ComponentPlace: Sendable {
    var base: String
    var indices: [Int]
    /// `base` is a list's pointer (the first index is in it), not a component's.
    var listed = false

    /// `/base/0/ui_components/2` for a listed place; `/base/ui_components/2` for a component's own.
    public var pointer: String {
        var pointer = base
        for (k, index) in indices.enumerated() {
            if k > 0 || !listed { pointer += "/ui_components" }
            pointer += "/" + String(index)
        }
        return pointer
    }

    /// The pointer of one of the component's members.
    public func pointer(_ member: String) -> String { JSONPointer.join(pointer, member) }
}

extension Component {
    /// `rules.datasource_limit` (2018 documents): a whole number from 0 to 1,000,000,000, or a
    /// string of 1 to 9 digits that white space may surround; a blank string is not a limit (422).
    static func checkDatasourceLimit(_ rules: ObjectReader) {
        guard let value = rules.object["datasource_limit"], !value.isNull else { return }
        if case .string(let text) = value {
            let digits = text.unicodeScalars.drop(while: isBlank).reversed().drop(while: isBlank)
            guard (1...9).contains(digits.count), digits.allSatisfy({ ("0"..."9").contains($0) }) else {
                rules.problems.add(rules.at("datasource_limit"), "must be a whole number or a string of 1 to 9 digits, not \(String(value.serializedString().prefix(100)))")
                return
            }
            return
        }
        _ = rules.integer("datasource_limit", minimum: 0, maximum: 1_000_000_000)
    }

    private static func isBlank(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: return true
        default: return false
        }
    }
}

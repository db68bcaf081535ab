/// A prepared template: an ordered set of components that a new screen starts from.
public struct LayoutTemplate: Sendable, Hashable {
    public var id: String
    public var name: String
    public var family: String
    public var uiComponents: [Component]

    public init(id: String, name: String, family: String, uiComponents: [Component]) {
        self.id = id
        self.name = name
        self.family = family
        self.uiComponents = uiComponents
    }

    static let keys: Set<String> = ["id", "name", "family", "ui_components", "revision", "created_at", "updated_at"]

    public static func read(_ json: JSONValue, catalog: ComponentCatalog, problems: Problems) -> LayoutTemplate? {
        guard let r = ObjectReader(json, at: "", problems: problems) else { return nil }
        r.rejectUnknownKeys(keys)
        let id = r.identifier("id", allowed: IdentifierRules.isToken, describe: "letters, digits, '_', '-' or '.'") ?? UUIDText.random()
        let name = r.string("name", required: true, nonEmpty: true, maxLength: 200)
        let family = r.string("family", required: true, nonEmpty: true)
        let components = Component.readList(r.array("ui_components") ?? [], at: "/ui_components", catalog: catalog, problems: problems)
        guard problems.isEmpty, let name, let family else { return nil }
        return LayoutTemplate(id: id, name: name, family: family, uiComponents: components)
    }

    public var json: JSONValue {
        .object([
            "id": .string(id), "name": .string(name), "family": .string(family),
            "ui_components": .array(uiComponents.map(\.json)),
        ])
    }
}

/// A screen of an app: a root screen (its components carry their own data sources), a connected
/// screen (child *i* of the sender's data fills component *i*), or a screen plugin.
public struct Screen: Sendable, Hashable {
    public static let generalContent = "general_content"
    /// Screen types that are built from components and need no plugin.
    public static let builtInTypes: Set<String> = [generalContent, "favorites"]

    public var id: String
    public var name: String
    public var type: String
    /// Generated on creation, unique in the app, never reused.
    public var screenType: String
    public var home: Bool
    /// Clients read these two: whether the app opens this screen as home when offline, and
    /// whether the screen works offline.
    public var homeOffline: Bool
    public var supportsOffline: Bool
    public var connected: Bool
    public var parent: String?
    public var family: String
    public var styles: [String: JSONValue]
    public var data: [String: JSONValue]
    public var rules: [String: JSONValue]
    public var general: [String: JSONValue]
    public var advertising: [String: JSONValue]
    public var hooks: JSONValue
    public var navigations: [JSONValue]
    public var uiComponents: [Component]
    /// A plugin screen's manifest version: the one it was created with, until upgraded.
    public var pluginVersion: String?

    public init(
        id: String = UUIDText.random(), name: String, type: String = Screen.generalContent, screenType: String = "",
        home: Bool = false, homeOffline: Bool = false, supportsOffline: Bool = false, connected: Bool = false,
        parent: String? = nil, family: String,
        styles: [String: JSONValue] = [:], data: [String: JSONValue] = [:], rules: [String: JSONValue] = [:],
        general: [String: JSONValue] = [:], advertising: [String: JSONValue] = [:],
        hooks: JSONValue = Screen.emptyHooks, navigations: [JSONValue] = [], uiComponents: [Component] = [],
        pluginVersion: String? = nil
    ) {
        self.pluginVersion = pluginVersion
        self.id = id
        self.name = name
        self.type = type
        self.screenType = screenType
        self.home = home
        self.homeOffline = homeOffline
        self.supportsOffline = supportsOffline
        self.connected = connected
        self.parent = parent
        self.family = family
        self.styles = styles
        self.data = data
        self.rules = rules
        self.general = general
        self.advertising = advertising
        self.hooks = hooks
        self.navigations = navigations
        self.uiComponents = uiComponents
    }

    public static let emptyHooks: JSONValue = ["preload_plugins": [], "postload_plugins": []]

    static let keys: Set<String> = [
        "id", "name", "type", "screen_type", "home", "home_offline", "supports_offline", "connected", "parent", "family",
        "styles", "data", "rules",
        "general", "advertising", "hooks", "navigations", "ui_components", "plugin_version",
        "revision", "created_at", "updated_at",
    ]

    /// What a screen body may contain beyond the screen itself.
    public struct ReadOptions: Sendable {
        public var catalog: ComponentCatalog
        /// Screen types besides the built-in ones (screen plugin identifiers).
        public var pluginScreenTypes: Set<String>
        public init(catalog: ComponentCatalog = .builtIn, pluginScreenTypes: Set<String> = []) {
            self.catalog = catalog
            self.pluginScreenTypes = pluginScreenTypes
        }
    }

    /// Reads and validates a screen body on its own (references to other resources are checked by
    /// `ScreenReferences`). `screen_type` is generated by the server and only read back.
    public static func read(_ json: JSONValue, options: ReadOptions = .init(), problems: Problems) -> Screen? {
        guard let r = ObjectReader(json, at: "", problems: problems) else { return nil }
        r.rejectUnknownKeys(keys)
        let id = r.uuid("id") ?? UUIDText.random()
        let name = r.string("name", required: true, nonEmpty: true, maxLength: 200)
        let type = r.string("type") ?? generalContent
        if !builtInTypes.contains(type) && !options.pluginScreenTypes.contains(type) {
            problems.add("/type", "unknown screen type \"\(type)\": use general_content or the identifier of a registered screen plugin")
        }
        let screenType = r.string("screen_type") ?? ""
        let home = r.bool("home") ?? false
        let homeOffline = r.bool("home_offline") ?? false
        let supportsOffline = r.bool("supports_offline") ?? false
        let connected = r.bool("connected") ?? false
        let parent = r.uuid("parent")
        if parent != nil, parent == id {
            problems.add("/parent", "a screen cannot be its own parent")
        }
        let family = r.identifier("family", required: true, allowed: IdentifierRules.isUpperSnake, describe: "a family id (like FAMILY_1)")
        let styles = r.freeObject("styles")
        if styles["family"] != nil {
            problems.add("/styles/family", "set the screen's family with the top-level family field")
        }
        let data = r.freeObject("data")
        for key in ["connected", "parent"] where data[key] != nil {
            problems.add(JSONPointer.join("/data", key), "set \(key) with the top-level \(key) field")
        }
        let rules = r.freeObject("rules")
        let general = r.freeObject("general")
        let advertising = r.freeObject("advertising")
        var hooks = emptyHooks
        if let given = r.object["hooks"], !given.isNull {
            let (parsed, errors) = ScreenHooks.parse(given, pointer: "/hooks")
            problems.add(contentsOf: errors)
            if let parsed { hooks = parsed.toJSON() }
        }
        var navigations: [JSONValue] = []
        for (i, item) in (r.array("navigations") ?? []).enumerated() {
            let (parsed, errors) = Navigation.parse(item, pointer: JSONPointer.join("/navigations", i))
            problems.add(contentsOf: errors)
            if let parsed { navigations.append(parsed.toJSON()) }
        }
        let pluginVersion = r.string("plugin_version", nonEmpty: true)
        let rawComponents = r.array("ui_components") ?? []
        let components = Component.readList(rawComponents, at: "/ui_components", catalog: options.catalog, problems: problems)
        if connected {
            // Checked on the JSON as sent, so pointers stay right when another component is invalid.
            func checkNoSource(_ list: [JSONValue], at pointer: String) {
                for (i, item) in list.enumerated() {
                    let p = JSONPointer.join(pointer, i)
                    let data = item["data"]
                    if let source = data?["source"]?.stringValue, !source.isEmpty {
                        problems.add(JSONPointer.join(JSONPointer.join(p, "data"), "source"), "a connected screen's components take their data from the sender: leave source empty")
                    }
                    if let type = data?["type"]?.stringValue, !type.isEmpty {
                        problems.add(JSONPointer.join(JSONPointer.join(p, "data"), "type"), "a connected screen's components take their data from the sender: leave type empty")
                    }
                    checkNoSource(item["ui_components"]?.arrayValue ?? [], at: JSONPointer.join(p, "ui_components"))
                }
            }
            checkNoSource(rawComponents, at: "/ui_components")
        }
        guard problems.isEmpty, let name, let family else { return nil }
        return Screen(
            id: id, name: name, type: type, screenType: screenType, home: home, homeOffline: homeOffline,
            supportsOffline: supportsOffline, connected: connected, parent: parent,
            family: family, styles: styles, data: data, rules: rules, general: general, advertising: advertising,
            hooks: hooks, navigations: navigations, uiComponents: components, pluginVersion: pluginVersion)
    }

    /// The screen as the API shows it (without revision and timestamps, which the store adds).
    public var json: JSONValue {
        .object([
            "id": .string(id), "name": .string(name), "type": .string(type), "screen_type": .string(screenType),
            "home": .bool(home), "home_offline": .bool(homeOffline), "supports_offline": .bool(supportsOffline),
            "connected": .bool(connected), "parent": parent.map(JSONValue.string) ?? .null,
            "family": .string(family), "styles": .object(styles), "data": .object(data), "rules": .object(rules),
            "general": .object(general), "advertising": .object(advertising), "hooks": hooks,
            "navigations": .array(navigations), "ui_components": .array(uiComponents.map(\.json)),
            "plugin_version": pluginVersion.map(JSONValue.string) ?? .null,
        ])
    }

    /// Every screen id this screen points at through a component or a navigation item.
    public var targets: Set<String> {
        var result: Set<String> = []
        uiComponents.walk(at: "") { component, _ in
            if let target = component.data?.target { result.insert(target) }
        }
        func collect(_ value: JSONValue) {
            guard let items = value["nav_items"]?.arrayValue else { return }
            for item in items {
                if let t = item["data"]?["target"]?.stringValue, let id = UUIDText.normalize(t) { result.insert(id) }
                collect(item)
            }
        }
        navigations.forEach(collect)
        if let hookLists = hooks.objectValue {
            for list in hookLists.values {
                for hook in list.arrayValue ?? [] {
                    if let s = hook["screen_id"]?.stringValue { result.insert(s) }
                }
            }
        }
        return result
    }
}

/// Checks of a screen or layout against the rest of its app: the family and its cell styles,
/// the parent and the screens it points at. They read the JSON of the body, so they can run on a
/// body as sent, beside its other problems, with pointers into it. Pure: the caller loads what
/// it needs.
public enum References {
    /// Every cell style a component names must be in the family.
    public static func checkCellStyles(json components: JSONValue?, family: Family?, familyId: String, familyPointer: String = "/family") -> [FieldError] {
        guard let family else {
            return [FieldError(familyPointer, "no family \"\(familyId)\" in this app")]
        }
        var errors: [FieldError] = []
        func visit(_ list: JSONValue?, at pointer: String) {
            for (i, component) in (list?.arrayValue ?? []).enumerated() {
                let p = JSONPointer.join(pointer, i)
                for (j, style) in (component["cell_styles"]?.arrayValue ?? []).enumerated() {
                    // The message names the family, not its styles: a long list repeated per
                    // reference would make the answer grow with the product of the two.
                    if let id = style.stringValue, family.cellStyle(id) == nil {
                        errors.append(FieldError(
                            p + "/cell_styles/\(j)",
                            "no cell style \"\(id.prefix(100))\" in family \(family.id), which has \(family.cellStyles.count) cell styles"))
                    }
                }
                visit(component["ui_components"], at: p + "/ui_components")
            }
        }
        visit(components, at: "/ui_components")
        return errors
    }

    public static func checkCellStyles(_ components: [Component], family: Family?, familyId: String, familyPointer: String = "/family") -> [FieldError] {
        checkCellStyles(json: .array(components.map(\.json)), family: family, familyId: familyId, familyPointer: familyPointer)
    }

    /// The parent and every target (components, nav items, hook screens) must be screens of the
    /// app; parents must not form a cycle. `parents` maps each screen id to its parent.
    public static func checkScreenLinks(json body: JSONValue, id: String, parents: [String: String?]) -> [FieldError] {
        var errors: [FieldError] = []
        func exists(_ target: String) -> Bool { target == id || parents[target] != nil }
        func screenId(_ value: JSONValue?) -> String? { value?.stringValue.flatMap(UUIDText.normalize) }
        if let parent = screenId(body["parent"]) {
            if !exists(parent) {
                errors.append(FieldError("/parent", "no screen \(parent) in this app"))
            } else {
                var seen: Set<String> = [id]
                var current: String? = parent
                while let c = current {
                    if seen.contains(c) {
                        errors.append(FieldError("/parent", "would make a cycle of parents through \(c)"))
                        break
                    }
                    seen.insert(c)
                    current = parents[c] ?? nil
                }
            }
        }
        func visitComponents(_ list: JSONValue?, at pointer: String) {
            for (i, component) in (list?.arrayValue ?? []).enumerated() {
                let p = JSONPointer.join(pointer, i)
                if let target = screenId(component["data"]?["target"]), !exists(target) {
                    errors.append(FieldError(p + "/data/target", "no screen \(target) in this app"))
                }
                visitComponents(component["ui_components"], at: p + "/ui_components")
            }
        }
        visitComponents(body["ui_components"], at: "/ui_components")
        func visitItems(_ items: [JSONValue], at pointer: String) {
            for (i, item) in items.enumerated() {
                let p = JSONPointer.join(pointer, i)
                if let target = screenId(item["data"]?["target"]), !exists(target) {
                    errors.append(FieldError(p + "/data/target", "no screen \(target) in this app"))
                }
                visitItems(item["nav_items"]?.arrayValue ?? [], at: p + "/nav_items")
            }
        }
        for (i, navigation) in (body["navigations"]?.arrayValue ?? []).enumerated() {
            visitItems(navigation["nav_items"]?.arrayValue ?? [], at: "/navigations/\(i)/nav_items")
        }
        for key in ["preload_plugins", "postload_plugins"] {
            for (i, hook) in (body["hooks"]?[key]?.arrayValue ?? []).enumerated() {
                if let target = screenId(hook["screen_id"]), !exists(target) {
                    errors.append(FieldError("/hooks/\(key)/\(i)/screen_id", "no screen \(target) in this app"))
                }
            }
        }
        return errors
    }

    public static func checkScreenLinks(_ screen: Screen, parents: [String: String?]) -> [FieldError] {
        checkScreenLinks(json: screen.json, id: screen.id, parents: parents)
    }
}

/// The generated `screen_type` of a screen: its name in lower snake case and the app's counter,
/// e.g. `show_page_7`. The counter only grows, so a value is never reused.
public enum ScreenTypeName {
    public static func make(name: String, number: Int) -> String {
        var out = ""
        var lastWasUnderscore = true
        for scalar in name.lowercased().unicodeScalars {
            if scalar.isASCII, (scalar.properties.isAlphabetic || ("0"..."9").contains(Character(scalar))) {
                out.unicodeScalars.append(scalar)
                lastWasUnderscore = false
            } else if !lastWasUnderscore {
                out.append("_")
                lastWasUnderscore = true
            }
            if out.count >= 40 { break }
        }
        while out.hasSuffix("_") { out.removeLast() }
        if out.isEmpty { out = "screen" }
        return "\(out)_\(number)"
    }
}

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
        read(json, catalog: catalog, problems: problems, base: nil)
    }

    /// The layout a JSON merge patch (RFC 7396) makes of `base`, read and checked as the whole
    /// body it stands for would be, with the same problems at the same pointers, but without
    /// making JSON of what the patch leaves out (its components above all, which are checked
    /// against the catalog as they are). The id cannot change (`/id`); the read-only members are
    /// ignored.
    public static func read(mergePatch patch: JSONValue, onto base: LayoutTemplate, catalog: ComponentCatalog, problems: Problems) -> LayoutTemplate? {
        // No member of a layout is an object: nothing of the base's is merged into.
        guard let members = MergePatch.members(patch, id: base.id, keys: keys, problems: problems, kept: { _ in nil }) else { return nil }
        return read(.object(members), catalog: catalog, problems: problems, base: base)
    }

    /// `read`, with `base` supplying every member the body leaves out.
    static func read(_ json: JSONValue, catalog: ComponentCatalog, problems: Problems, base: LayoutTemplate?) -> LayoutTemplate? {
        guard let r = ObjectReader(json, at: "", problems: problems) else { return nil }
        /// Whether the body gives `key` (always, without a base; `null` counts: it removes).
        func given(_ key: String) -> Bool { base == nil || r.object[key] != nil }
        r.rejectUnknownKeys(keys)
        let id = r.identifier("id", allowed: IdentifierRules.isToken, describe: "letters, digits, '_', '-' or '.'") ?? UUIDText.random()
        let name = given("name") ? r.string("name", required: true, nonEmpty: true, maxLength: 200) : base!.name
        let family = given("family") ? r.string("family", required: true, nonEmpty: true) : base!.family
        let components: [Component]
        if given("ui_components") {
            components = Component.readList(r.array("ui_components") ?? [], at: "/ui_components", catalog: catalog, problems: problems)
        } else {
            components = base!.uiComponents
            Component.checkKept(components, at: "/ui_components", catalog: catalog, connected: false, problems: problems)
        }
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
    public var hooks: ScreenHooks
    public var navigations: [Navigation]
    public var uiComponents: [Component]
    /// A plugin screen's manifest version: the one it was created with, until upgraded.
    public var pluginVersion: String?
    /// Members published as they are beside the modelled ones: what an imported document carried
    /// that Rivers does not model, so no value a client reads is lost.
    public var extra: [String: JSONValue]

    /// This screen with no `extra` members, its components' included: what a check reads.
    public func droppingExtras() -> Screen {
        var s = self
        s.extra = [:]
        s.uiComponents = uiComponents.map { $0.droppingExtras() }
        return s
    }

    public init(
        id: String = UUIDText.random(), name: String, type: String = Screen.generalContent, screenType: String = "",
        home: Bool = false, homeOffline: Bool = false, supportsOffline: Bool = false, connected: Bool = false,
        parent: String? = nil, family: String,
        styles: [String: JSONValue] = [:], data: [String: JSONValue] = [:], rules: [String: JSONValue] = [:],
        general: [String: JSONValue] = [:], advertising: [String: JSONValue] = [:],
        hooks: ScreenHooks = ScreenHooks(), navigations: [Navigation] = [], uiComponents: [Component] = [],
        pluginVersion: String? = nil, extra: [String: JSONValue] = [:]
    ) {
        self.extra = extra
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

    /// The API's fields.
    static let keys: Set<String> = [
        "id", "name", "type", "screen_type", "home", "home_offline", "supports_offline", "connected", "parent", "family",
        "styles", "data", "rules",
        "general", "advertising", "hooks", "navigations", "ui_components", "plugin_version", "extra",
        "revision", "created_at", "updated_at",
    ]
    /// The members of a screen in a published document (what `extra` may not name).
    static let documentKeys: Set<String> = [
        "id", "name", "type", "home", "home_offline", "supports_offline", "screen_type", "data", "styles",
        "ui_components", "navigations", "hooks", "rules", "general", "advertising",
    ]

    /// What a screen body may contain beyond the screen itself.
    public struct ReadOptions: Sendable {
        public var catalog: ComponentCatalog
        /// Screen types besides the built-in ones (screen plugin identifiers).
        public var pluginScreenTypes: Set<String>
        /// Navigation types a navigation may name (built in and registered plugins); nil reads
        /// any, as for stored screens, whose plugins were checked when they were written.
        public var navigationTypes: Set<String>?
        /// Plugins a hook may name; nil reads any.
        public var hookPlugins: Set<String>?
        public init(
            catalog: ComponentCatalog = .builtIn, pluginScreenTypes: Set<String> = [],
            navigationTypes: Set<String>? = PluginRegistry.builtInNavigationTypes, hookPlugins: Set<String>? = []
        ) {
            self.catalog = catalog
            self.pluginScreenTypes = pluginScreenTypes
            self.navigationTypes = navigationTypes
            self.hookPlugins = hookPlugins
        }
    }

    /// Reads and validates a screen on its own (references to other resources are checked by
    /// `References`), every problem at its pointer below `pointer`.
    ///
    /// With `problems.mode` `.api` it reads an API body: `screen_type` is generated by the server
    /// and only read back. With `.document` it reads a screen of a published rivers.json: the id
    /// is required, `connected` and `parent` sit in `data`, the family in `styles` (empty when the
    /// screen names none: the importer decides), component ids are generated from the screen's,
    /// and members the model does not know are kept in `extra`.
    public static func read(_ json: JSONValue, at pointer: String = "", options: ReadOptions = .init(), problems: Problems) -> Screen? {
        read(json, at: pointer, options: options, problems: problems, base: nil)
    }

    /// The screen a JSON merge patch (RFC 7396) makes of `base`, read and checked as the whole
    /// body it stands for would be, with the same problems at the same pointers, but without
    /// making JSON of `base` (issue 26: a PATCH makes no tree of the screen it changes). A member
    /// the patch leaves out is the base's typed value; a free-form object it names (`styles`,
    /// `data`, `rules`, `general`, `advertising`, `extra`, and the hooks' `extra`) is merged onto
    /// the base's; any other member it names, `null` included, is read as sent. Rules between
    /// members (a connected screen's components take no data source, component types are the
    /// catalog's, one nav bar and one menu, plugins the app has) are checked on what results. The
    /// id cannot change (`/id`); `home` left out or `null` is the base's.
    public static func read(mergePatch patch: JSONValue, onto base: Screen, options: ReadOptions = .init(), problems: Problems) -> Screen? {
        guard case .object(var members) = patch else {
            problems.add("", "a merge patch must be a JSON object, not \(patch.typeName)")
            return nil
        }
        let before = problems.count
        if let given = members.removeValue(forKey: "id"), !given.isNull, given.stringValue.flatMap(UUIDText.normalize) != base.id {
            problems.add("/id", "cannot be changed (this is \(base.id))")
        }
        for (key, member) in freeFormMembers {
            guard let value = members[key], case .object = value else { continue }
            members[key] = JSONValue.object(member(base)).mergePatched(with: value)
        }
        let screen = read(.object(members), at: "", options: options, problems: problems, base: base)
        return problems.count == before ? screen : nil
    }

    /// The members kept as JSON, which a merge patch merges into.
    static let freeFormMembers: [(String, @Sendable (Screen) -> [String: JSONValue])] = [
        ("styles", \.styles), ("data", \.data), ("rules", \.rules), ("general", \.general), ("advertising", \.advertising), ("extra", \.extra),
    ]

    /// `read`, with `base` (API bodies only) supplying every member the body leaves out.
    static func read(_ json: JSONValue, at pointer: String, options: ReadOptions, problems: Problems, base: Screen?) -> Screen? {
        guard let r = ObjectReader(json, at: pointer, problems: problems) else { return nil }
        let document = problems.mode == .document
        let base = document ? nil : base
        /// Whether the body gives `key` (always, without a base; `null` counts: it removes).
        func given(_ key: String) -> Bool { base == nil || r.object[key] != nil }
        let before = problems.count
        let readExtra = r.extras(documentKeys: documentKeys, apiKeys: keys)
        let extra = given("extra") ? readExtra : base!.extra
        let id = document ? r.uuid("id", required: true) : given("id") ? (r.uuid("id") ?? UUIDText.random()) : base!.id
        let name = given("name") ? r.string("name", required: true, nonEmpty: true, maxLength: Limits.maxNameLength) : base!.name
        let type: String
        if given("type") {
            type = r.string("type") ?? generalContent
            if !builtInTypes.contains(type) && !options.pluginScreenTypes.contains(type) {
                problems.add(r.at("type"), "unknown screen type \"\(type)\": use general_content or the identifier of a registered screen plugin")
            }
        } else {
            type = base!.type
        }
        let screenType = given("screen_type") ? (r.string("screen_type") ?? "") : base!.screenType
        let home = r.bool("home") ?? base?.home ?? false
        let homeOffline = given("home_offline") ? (r.bool("home_offline") ?? false) : base!.homeOffline
        let supportsOffline = given("supports_offline") ? (r.bool("supports_offline") ?? false) : base!.supportsOffline

        var data = given("data") ? r.freeObject("data") : base!.data
        var styles = given("styles") ? r.freeObject("styles") : base!.styles
        let connected: Bool
        let parent: String?
        let family: String?
        if document {
            let dataReader = ObjectReader(r.object["data"], at: r.at("data"), problems: problems, required: false)
            connected = dataReader?.bool("connected") ?? false
            parent = dataReader?.uuid("parent")
            let stylesReader = ObjectReader(r.object["styles"], at: r.at("styles"), problems: problems, required: false)
            let named = stylesReader?.object["family"]?.stringValue?.isEmpty == false
            family = named ? stylesReader?.identifier("family", allowed: IdentifierRules.isUpperSnake, describe: "a family id (like FAMILY_1)") : ""
            data.removeValue(forKey: "connected")
            data.removeValue(forKey: "parent")
            styles.removeValue(forKey: "family")
            // Only plugin screens publish data values; a root screen's data is {}.
            if !connected, builtInTypes.contains(type) {
                for key in data.keys.sorted() {
                    problems.warn(JSONPointer.join(r.at("data"), key), "is left out: a root screen's data is {} (only plugin screens carry data values)")
                }
                data = [:]
            }
        } else {
            connected = given("connected") ? (r.bool("connected") ?? false) : base!.connected
            parent = given("parent") ? r.uuid("parent") : base!.parent
            family = given("family")
                ? r.identifier("family", required: true, allowed: IdentifierRules.isUpperSnake, describe: "a family id (like FAMILY_1)") : base!.family
            if styles["family"] != nil {
                problems.add(JSONPointer.join(r.at("styles"), "family"), "set the screen's family with the top-level family field")
            }
            for key in ["connected", "parent"] where data[key] != nil {
                problems.add(JSONPointer.join(r.at("data"), key), "set \(key) with the top-level \(key) field")
            }
        }
        if parent != nil, parent == id {
            problems.add(document ? JSONPointer.join(r.at("data"), "parent") : r.at("parent"), "a screen cannot be its own parent")
        }
        let rules = given("rules") ? r.freeObject("rules") : base!.rules
        let general = given("general") ? r.freeObject("general") : base!.general
        let advertising = given("advertising") ? r.freeObject("advertising") : base!.advertising
        var hooks = ScreenHooks()
        if !given("hooks") {
            hooks = base!.hooks
        } else if r.has("hooks"), let read = ScreenHooks.read(r.object["hooks"]!, at: r.at("hooks"), problems: problems, base: base?.hooks) {
            hooks = read
        }
        var navigationPlace = 0
        // In a document, a navigation without an id gets `<screen id>-nav-<its 1-based place>`.
        let navigations = given("navigations")
            ? r.list("navigations") { json, pointer in
                navigationPlace += 1
                return Navigation.read(json, at: pointer, problems: problems, generatedId: document ? "\(id ?? "")-nav-\(navigationPlace)" : nil)
            }
            : base!.navigations
        checkPlugins(navigations: navigations, hooks: hooks, at: r, options: options, sent: given)
        let pluginVersion = document ? nil : given("plugin_version") ? r.string("plugin_version", nonEmpty: true) : base!.pluginVersion
        let components: [Component]
        if given("ui_components") {
            components = Component.readList(
                r.array("ui_components") ?? [], at: r.at("ui_components"), catalog: options.catalog, problems: problems,
                documentScreenId: document ? (id ?? "") : nil, connected: connected)
        } else {
            components = base!.uiComponents
            Component.checkKept(components, at: r.at("ui_components"), catalog: options.catalog, connected: connected, problems: problems)
        }
        guard problems.count == before, let id, let name, let family else { return nil }
        return Screen(
            id: id, name: name, type: type, screenType: screenType, home: home, homeOffline: homeOffline,
            supportsOffline: supportsOffline, connected: connected, parent: parent,
            family: family, styles: styles, data: data, rules: rules, general: general, advertising: advertising,
            hooks: hooks, navigations: navigations, uiComponents: components, pluginVersion: pluginVersion, extra: extra)
    }

    /// A screen has one nav bar and one menu; navigation types and hooks name what the app has.
    /// Pointers are found from the JSON as sent, since invalid entries are not in the typed lists;
    /// lists the body did not send (`sent`) are the typed ones, every entry of which is valid.
    static func checkPlugins(navigations: [Navigation], hooks: ScreenHooks, at r: ObjectReader, options: ReadOptions, sent: (String) -> Bool) {
        let problems = r.problems
        var categories: [String: Int] = [:]
        let entries: [(type: String, category: String)?] = sent("navigations")
            ? (r.object["navigations"]?.arrayValue ?? []).map { json in
                guard let type = json["navigation_type"]?.stringValue, let category = json["category"]?.stringValue else { return nil }
                return (type, category)
            }
            : navigations.map { ($0.navigationType, $0.category.rawValue) }
        for (i, entry) in entries.enumerated() {
            guard let (type, category) = entry else { continue }
            let p = JSONPointer.join(r.at("navigations"), i)
            if let first = categories[category] {
                problems.add(JSONPointer.join(p, "category"), "a screen has one \(category.prefix(100)); \(JSONPointer.join(r.at("navigations"), first)) is one already")
            } else {
                categories[category] = i
            }
            if let known = options.navigationTypes, !known.contains(type) {
                problems.add(
                    JSONPointer.join(p, "navigation_type"),
                    "\"\(type.prefix(100))\" is neither a built-in navigation (\(PluginRegistry.builtInNavigationTypes.sorted().joined(separator: ", "))) nor a registered plugin")
            }
        }
        guard let plugins = options.hookPlugins else { return }
        let sentHooks = sent("hooks") ? r.object["hooks"] : nil
        for (key, typed) in [("preload_plugins", hooks.preloadPlugins), ("postload_plugins", hooks.postloadPlugins)] {
            let identifiers: [String?] = sent("hooks") && (sentHooks?.objectValue == nil || sentHooks?[key] != nil)
                ? (sentHooks?[key]?.arrayValue ?? []).map { $0["identifier"]?.stringValue }
                : typed.map(\.identifier)
            for (i, id) in identifiers.enumerated() {
                if let id, !id.isEmpty, !plugins.contains(id) {
                    problems.add(JSONPointer.join(JSONPointer.join(JSONPointer.join(r.at("hooks"), key), i), "identifier"), "no plugin \(id.prefix(100)) is registered in this app")
                }
            }
        }
    }

    /// The screen as the API shows it (without revision and timestamps, which the store adds).
    public var json: JSONValue {
        JSONWork.count?.madeScreenTree()
        var o: [String: JSONValue] = [
            "id": .string(id), "name": .string(name), "type": .string(type), "screen_type": .string(screenType),
            "home": .bool(home), "home_offline": .bool(homeOffline), "supports_offline": .bool(supportsOffline),
            "connected": .bool(connected), "parent": parent.map(JSONValue.string) ?? .null,
            "family": .string(family), "styles": .object(styles), "data": .object(data), "rules": .object(rules),
            "general": .object(general), "advertising": .object(advertising), "hooks": hooks.toJSON(),
            "navigations": .array(navigations.map { $0.toJSON() }), "ui_components": .array(uiComponents.map(\.json)),
            "plugin_version": pluginVersion.map(JSONValue.string) ?? .null,
        ]
        if !extra.isEmpty { o["extra"] = .object(extra) }
        return .object(o)
    }

    /// Every screen id this screen points at through a component, a navigation item or a hook.
    public var targets: Set<String> {
        var result: Set<String> = []
        uiComponents.walk(at: "") { component, _ in
            if let target = component.data?.target { result.insert(target) }
        }
        for navigation in navigations { result.formUnion(navigation.allTargets) }
        result.formUnion(hooks.allTargets)
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

    /// The same check on typed components (what a publish reads), with the same pointers and
    /// messages; a pointer is made only for a problem.
    public static func checkCellStyles(_ components: [Component], family: Family?, familyId: String, familyPointer: String = "/family") -> [FieldError] {
        guard let family else {
            return [FieldError(familyPointer, "no family \"\(familyId)\" in this app")]
        }
        var errors: [FieldError] = []
        components.walk(at: "/ui_components") { component, place in
            for (j, id) in component.cellStyles.enumerated() where family.cellStyle(id) == nil {
                errors.append(FieldError(
                    place.pointer("cell_styles") + "/\(j)",
                    "no cell style \"\(id.prefix(100))\" in family \(family.id), which has \(family.cellStyles.count) cell styles"))
            }
        }
        return errors
    }

    /// The parent and every target (components, nav items, hook screens) must be screens of the
    /// app; parents must not form a cycle. `parents` maps each screen id to its parent.
    public static func checkScreenLinks(json body: JSONValue, id: String, parents: [String: String?]) -> [FieldError] {
        func exists(_ target: String) -> Bool { target == id || parents[target] != nil }
        func screenId(_ value: JSONValue?) -> String? { value?.stringValue.flatMap(UUIDText.normalize) }
        var errors = checkParent(screenId(body["parent"]), id: id, parents: parents)
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

    /// The same check on a typed screen (what a write and a publish read), with the same pointers
    /// and messages, and no JSON made of it.
    public static func checkScreenLinks(_ screen: Screen, parents: [String: String?]) -> [FieldError] {
        let id = screen.id
        func exists(_ target: String) -> Bool { target == id || parents[target] != nil }
        var errors = checkParent(screen.parent, id: id, parents: parents)
        screen.uiComponents.walk(at: "/ui_components") { component, place in
            if let target = component.data?.target, !exists(target) {
                errors.append(FieldError(place.pointer("data") + "/target", "no screen \(target) in this app"))
            }
        }
        func visitItems(_ items: [NavItem], at pointer: String) {
            for (i, item) in items.enumerated() {
                let p = JSONPointer.join(pointer, i)
                if let target = item.data.target, !exists(target) {
                    errors.append(FieldError(p + "/data/target", "no screen \(target) in this app"))
                }
                visitItems(item.navItems, at: p + "/nav_items")
            }
        }
        for (i, navigation) in screen.navigations.enumerated() {
            visitItems(navigation.navItems, at: "/navigations/\(i)/nav_items")
        }
        for (key, hooks) in [("preload_plugins", screen.hooks.preloadPlugins), ("postload_plugins", screen.hooks.postloadPlugins)] {
            for (i, hook) in hooks.enumerated() {
                if let target = hook.screenId, !exists(target) {
                    errors.append(FieldError("/hooks/\(key)/\(i)/screen_id", "no screen \(target) in this app"))
                }
            }
        }
        return errors
    }

    /// The parent must be a screen of the app, and parents must not form a cycle.
    static func checkParent(_ parent: String?, id: String, parents: [String: String?]) -> [FieldError] {
        guard let parent else { return [] }
        guard parent == id || parents[parent] != nil else { return [FieldError("/parent", "no screen \(parent) in this app")] }
        var seen: Set<String> = [id]
        var current: String? = parent
        while let c = current {
            if seen.contains(c) { return [FieldError("/parent", "would make a cycle of parents through \(c)")] }
            seen.insert(c)
            current = parents[c] ?? nil
        }
        return []
    }
}

/// The generated `screen_type` of a screen: its name in lower snake case and the app's counter,
/// e.g. `show_page_7`. The counter only grows, so a value is never reused.
public enum ScreenTypeName {
    /// The counter at the end of a value shaped like a generated one (`show_page_7` → 7).
    public static func number(of screenType: String) -> Int? {
        guard let underscore = screenType.lastIndex(of: "_") else { return nil }
        let digits = screenType[screenType.index(after: underscore)...]
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(digits)
    }

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

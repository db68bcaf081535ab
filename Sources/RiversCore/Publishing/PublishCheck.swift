/// Everything that stops an app from being published, checked on the whole app at once.
///
/// Every problem is reported (not just the first), each with a pointer below `/screens/<screen id>`
/// (`/screens` for problems of the app as a whole). Pure: the caller loads the app.
public enum PublishCheck {
    /// The problems of an app's screens with its families and plugins: the screen types it knows
    /// are the built-in ones and its screen plugins'.
    public static func problems(screens: [Screen], families: [String: Family], registry: PluginRegistry) -> [FieldError] {
        problems(
            screens: screens, families: families, knownScreenTypes: Screen.builtInTypes.union(registry.screenPlugins.keys),
            catalog: registry.catalog)
    }

    public static func problems(
        screens: [Screen], families: [String: Family], knownScreenTypes: Set<String>, catalog: ComponentCatalog
    ) -> [FieldError] {
        guard !screens.isEmpty else {
            return [FieldError("/screens", "the app has no screens: add at least one screen, and make it the home screen")]
        }
        var errors: [FieldError] = []
        let screenTypes = Screen.builtInTypes.union(knownScreenTypes)

        // Every screen id, and each screen's parent (the first screen with an id wins).
        var parents: [String: String?] = [:]
        var names: [String: String] = [:]
        for screen in screens where parents[screen.id] == nil {
            parents[screen.id] = .some(screen.parent)
            names[screen.id] = screen.name
        }
        func exists(_ id: String) -> Bool {
            parents[UUIDText.normalize(id) ?? id] != nil
        }
        // Found in one pass: following each screen's chain of parents to its root was quadratic
        // in a long chain's length.
        let onCycles = screensOnCycles(parents)
        func describe(_ id: String) -> String {
            if let name = names[id] { return "\(id) (\(name))" }
            return id
        }

        // Home screen: exactly one.
        let homes = screens.filter(\.home)
        if homes.isEmpty {
            errors.append(FieldError("/screens", "no home screen: set home on exactly one screen"))
        } else if homes.count > 1 {
            let list = homes.map { "\"\($0.name)\"" }.listed()
            for screen in homes {
                errors.append(FieldError(JSONPointer.join(base(screen), "home"), "\(homes.count) screens are home (\(list)): exactly one may be"))
            }
        }

        var seenIds: Set<String> = []
        var screenTypeOwner: [String: Screen] = [:]
        for screen in screens {
            let p = base(screen)

            if !seenIds.insert(screen.id).inserted {
                errors.append(FieldError(JSONPointer.join(p, "id"), "another screen has the same id"))
            }

            if !screenTypes.contains(screen.type) {
                errors.append(FieldError(JSONPointer.join(p, "type"), "unknown screen type \"\(screen.type)\": no screen plugin with this identifier is available to the app"))
            }

            if screen.screenType.isEmpty {
                errors.append(FieldError(JSONPointer.join(p, "screen_type"), "is empty: every screen needs a screen_type for content to open it"))
            } else if let owner = screenTypeOwner[screen.screenType] {
                errors.append(FieldError(JSONPointer.join(p, "screen_type"), "\"\(screen.screenType)\" is also the screen_type of screen \(describe(owner.id))"))
            } else {
                screenTypeOwner[screen.screenType] = screen
            }

            // Family and cell styles.
            if screen.family.isEmpty {
                errors.append(FieldError(JSONPointer.join(p, "family"), "is required: every screen needs a family"))
            } else if let family = families[screen.family] {
                for error in References.checkCellStyles(screen.uiComponents, family: family, familyId: screen.family) {
                    errors.append(FieldError(p + error.pointer, error.message))
                }
            } else {
                errors.append(FieldError(JSONPointer.join(p, "family"), "no family \"\(screen.family)\" in this app"))
            }

            // Components: known types and targets (data sources are warnings: see `warnings`).
            screen.uiComponents.walk(at: JSONPointer.join(p, "ui_components")) { component, place in
                if catalog.types[component.componentType] == nil {
                    errors.append(FieldError(place.pointer("component_type"), "unknown component type \"\(component.componentType)\""))
                }
                if let target = component.data?.target, !target.isEmpty, !exists(target) {
                    errors.append(FieldError(place.pointer("data") + "/target", "no screen \(target) in this app"))
                }
            }

            // Parent.
            if screen.connected, screen.parent == nil || screen.parent == "" {
                errors.append(FieldError(JSONPointer.join(p, "parent"), "a connected screen needs a parent: the screen whose items open it"))
            }
            if screen.connected, screen.home {
                errors.append(FieldError(JSONPointer.join(p, "home"), "the home screen cannot be a connected screen: nothing sends it items"))
            }
            if let parent = screen.parent, !parent.isEmpty {
                if !exists(parent) {
                    errors.append(FieldError(JSONPointer.join(p, "parent"), "no screen \(parent) in this app"))
                } else if onCycles.contains(screen.id), let cycle = cycle(from: screen.id, parents: parents) {
                    errors.append(FieldError(JSONPointer.join(p, "parent"), "is on a cycle of parents: \(cycle.map(describe).listed(separator: " → "))"))
                }
            }

            // Navigation items, at any depth.
            for (n, navigation) in screen.navigations.enumerated() {
                checkNavItems(navigation.navItems, at: JSONPointer.join(JSONPointer.join(p, "navigations"), n), exists: exists, errors: &errors)
            }

            // Hooks that are screens.
            for (key, hooks) in [("preload_plugins", screen.hooks.preloadPlugins), ("postload_plugins", screen.hooks.postloadPlugins)] {
                for (k, hook) in hooks.enumerated() {
                    if let id = hook.screenId, !exists(id) {
                        errors.append(FieldError("\(p)/hooks/\(key)/\(k)/screen_id", "no screen \(id) in this app"))
                    }
                }
            }
        }
        return errors
    }

    /// Data source types clients know (`docs/spec/rivers-format.md`); a data-source plugin's
    /// identifier counts too.
    public static let knownDataSourceTypes: [String] = [
        "APPLICASTER_CATEGORY", "APPLICASTER_COLLECTION", "APPLICASTER_ATOM_FEED", "APPLICASTER_FAVORITES", "WEB_URL", "BANNER",
        "DOWNLOADS", "USER_ACCOUNT_COMPONENT",
    ]
    /// Component rules clients read; others are published as they are, with a warning.
    public static let knownRules: Set<String> = ["item_limit", "web_page_shows_navigation", "datasource_limit"]

    /// What a publish goes ahead with but deserves a look: a component on a root screen with no
    /// data source (real documents have them; it shows nothing until it has one), a data source
    /// type no client knows (clients map it to nothing), rules no client is known to read.
    public static func warnings(screens: [Screen], catalog: ComponentCatalog, plugins: Set<String> = []) -> [FieldError] {
        var warnings: [FieldError] = []
        let known = Set(knownDataSourceTypes).union(plugins)
        for screen in screens {
            screen.uiComponents.walk(at: JSONPointer.join(base(screen), "ui_components")) { component, place in
                var dataPointer: String { place.pointer("data") }
                if !screen.connected, let type = catalog.types[component.componentType], type.needsDataSource,
                   !(component.data?.hasSource ?? false) {
                    warnings.append(FieldError(dataPointer, "a \(type.id) on a root screen has no data source (source and type): it shows no items until it has one"))
                }
                if let type = component.data?.type, !type.isEmpty, !known.contains(type) {
                    warnings.append(FieldError(
                        JSONPointer.join(dataPointer, "type"),
                        "\"\(type.prefix(100))\" is not a data source type clients know, so they show nothing for it; known: \(knownDataSourceTypes.listed()) or a data-source plugin"))
                }
                for key in component.rules.keys.sorted() where !knownRules.contains(key) {
                    warnings.append(FieldError(JSONPointer.join(place.pointer("rules"), key), "is published as it is: no client Rivers knows reads this rule"))
                }
            }
        }
        return warnings
    }

    static func base(_ screen: Screen) -> String {
        JSONPointer.join("/screens", screen.id)
    }

    /// The screens on a cycle of parents. Each screen has one parent at most, so one walk from
    /// every screen not yet seen finds them all, each screen visited once.
    static func screensOnCycles(_ parents: [String: String?]) -> Set<String> {
        enum Mark { case onPath, done }
        var marks: [String: Mark] = [:]
        var found: Set<String> = []
        for start in parents.keys where marks[start] == nil {
            var path: [String] = []
            var current: String? = start
            while let c = current, parents[c] != nil, marks[c] == nil {
                marks[c] = .onPath
                path.append(c)
                current = (parents[c] ?? nil).map { UUIDText.normalize($0) ?? $0 }
            }
            if let c = current, marks[c] == .onPath, let first = path.firstIndex(of: c) { found.formUnion(path[first...]) }
            for id in path { marks[id] = .done }
        }
        return found
    }

    /// The cycle through `id` (`[id, parent, …, id]`) when following parents from `id` comes back to
    /// it; nil when the chain ends or runs into a cycle that `id` is not on.
    static func cycle(from id: String, parents: [String: String?]) -> [String]? {
        var path = [id]
        var seen: Set<String> = [id]
        var current = parents[id] ?? nil
        while let c = current.map({ UUIDText.normalize($0) ?? $0 }), parents[c] != nil {
            path.append(c)
            if c == id { return path }
            if !seen.insert(c).inserted { return nil }
            current = parents[c] ?? nil
        }
        return nil
    }

    static func checkNavItems(_ items: [NavItem], at pointer: String, exists: (String) -> Bool, errors: inout [FieldError]) {
        let listPointer = JSONPointer.join(pointer, "nav_items")
        for (k, item) in items.enumerated() {
            let itemPointer = JSONPointer.join(listPointer, k)
            if let id = item.data.target, !exists(id) {
                errors.append(FieldError("\(itemPointer)/data/target", "no screen \(id) in this app"))
            }
            checkNavItems(item.navItems, at: itemPointer, exists: exists, errors: &errors)
        }
    }
}

/// What `/problems` says about an app: what stops a publish, and what a publish goes ahead with.
public struct PublishReport: Sendable, Hashable {
    public var problems: [FieldError]
    public var warnings: [FieldError]

    public init(problems: [FieldError], warnings: [FieldError]) {
        self.problems = problems
        self.warnings = warnings
    }
}

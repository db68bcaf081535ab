/// Navigations (nav bar, menu), nav items and hooks as they appear in a screen of `rivers.json`.
///
/// Each `parse(_:pointer:)` reports every problem (pointers start at `pointer`) and returns a value
/// only when there is none. `toJSON()` writes exactly the keys the spec shows, every time.
///
/// Decisions where the spec is silent:
/// - Unknown keys are errors (these objects come from our own editor; nothing may be dropped silently).
/// - `styles`, `rules`, `assets` default to `{}`, `nav_items` to `[]`, `data` to all-null.
/// - Ids of navigations and nav items are non-empty strings (not necessarily UUIDs), generated
///   when absent; nav item ids must be unique within a navigation. Nav items carry `position`
///   (1-based, from their order in their list). Screen links (`data.target`, hook `screen_id`) are UUIDs,
///   read in either case and kept in lower case (as screen ids are written).
/// - A web link (`data.type` = `WEB_URL`) needs a non-empty `source` and cannot also have a `target`.
/// - Any nav item may nest `nav_items` (the spec shows it for `nested_menu`, but does not forbid it).

// MARK: - Hook

/// A pre- or post-load plugin of a screen: `{identifier, type, weight, screen_id?}`.
public struct Hook: Sendable, Hashable {
    public var identifier: String
    public var type: String
    /// Order among the screen's hooks; 0 when not given.
    public var weight: Double
    /// Set when the hook is itself a screen (a UUID).
    public var screenId: String?

    public init(identifier: String, type: String, weight: Double = 0, screenId: String? = nil) {
        self.identifier = identifier
        self.type = type
        self.weight = weight
        self.screenId = screenId
    }

    static let keys: Set<String> = ["identifier", "type", "weight", "screen_id"]

    public static func parse(_ json: JSONValue, pointer: String) -> (value: Hook?, errors: [FieldError]) {
        var log = NavigationReader(base: pointer)
        guard case .object(let o) = json else {
            return (nil, [FieldError(pointer, "a hook must be an object, got \(json.typeName)")])
        }
        log.rejectUnknown(o, allowed: keys)
        let identifier = log.requiredString(o, "identifier")
        let type = log.requiredString(o, "type")
        var weight: Double = 0
        switch o["weight"] {
        case nil, .null?: break
        case .number(let n)?: weight = n
        case let other?: log.error("weight", "must be a number, got \(other.typeName)")
        }
        let screenId = log.optionalUUID(o, "screen_id")
        guard log.errors.isEmpty, let identifier, let type else { return (nil, log.errors) }
        return (Hook(identifier: identifier, type: type, weight: weight, screenId: screenId), [])
    }

    /// `{identifier, type, weight}` plus `screen_id` only when the hook is a screen.
    public func toJSON() -> JSONValue {
        var o: [String: JSONValue] = ["identifier": .string(identifier), "type": .string(type), "weight": .number(weight)]
        if let screenId { o["screen_id"] = .string(screenId) }
        return .object(o)
    }
}

/// A screen's `hooks` object: `{"preload_plugins": [hook…], "postload_plugins": [hook…]}`.
public struct ScreenHooks: Sendable, Hashable {
    public var preloadPlugins: [Hook]
    public var postloadPlugins: [Hook]

    public init(preloadPlugins: [Hook] = [], postloadPlugins: [Hook] = []) {
        self.preloadPlugins = preloadPlugins
        self.postloadPlugins = postloadPlugins
    }

    public static func parse(_ json: JSONValue, pointer: String) -> (value: ScreenHooks?, errors: [FieldError]) {
        var log = NavigationReader(base: pointer)
        guard case .object(let o) = json else {
            return (nil, [FieldError(pointer, "hooks must be an object, got \(json.typeName)")])
        }
        log.rejectUnknown(o, allowed: ["preload_plugins", "postload_plugins"])
        let pre = log.list(o, "preload_plugins", Hook.parse)
        let post = log.list(o, "postload_plugins", Hook.parse)
        guard log.errors.isEmpty else { return (nil, log.errors) }
        return (ScreenHooks(preloadPlugins: pre, postloadPlugins: post), [])
    }

    public func toJSON() -> JSONValue {
        .object([
            "preload_plugins": .array(preloadPlugins.map { $0.toJSON() }),
            "postload_plugins": .array(postloadPlugins.map { $0.toJSON() }),
        ])
    }

    /// Screen ids the hooks open, in order, without repeats.
    public var allTargets: [String] {
        var seen: Set<String> = []
        return (preloadPlugins + postloadPlugins).compactMap(\.screenId).filter { seen.insert($0).inserted }
    }
}

// MARK: - Navigation

public enum NavigationCategory: String, Sendable, Hashable, CaseIterable {
    case navBar = "nav_bar"
    case menu
}

/// `{id, name, category, navigation_type, styles, rules, assets, nav_items}`.
public struct Navigation: Sendable, Hashable {
    public var id: String
    public var name: String?
    public var category: NavigationCategory
    /// The navigation plugin's identifier (e.g. `navigation_bar`, `two_level_rn_menu`).
    public var navigationType: String
    public var styles: [String: JSONValue]
    public var rules: [String: JSONValue]
    public var assets: [String: JSONValue]
    public var navItems: [NavItem]

    public init(
        id: String, name: String? = nil, category: NavigationCategory, navigationType: String,
        styles: [String: JSONValue] = [:], rules: [String: JSONValue] = [:], assets: [String: JSONValue] = [:],
        navItems: [NavItem] = []
    ) {
        self.id = id
        self.name = name
        self.category = category
        self.navigationType = navigationType
        self.styles = styles
        self.rules = rules
        self.assets = assets
        self.navItems = navItems
    }

    static let keys: Set<String> = ["id", "name", "category", "navigation_type", "styles", "rules", "assets", "nav_items"]

    public static func parse(_ json: JSONValue, pointer: String) -> (value: Navigation?, errors: [FieldError]) {
        var log = NavigationReader(base: pointer)
        guard case .object(let o) = json else {
            return (nil, [FieldError(pointer, "a navigation must be an object, got \(json.typeName)")])
        }
        log.rejectUnknown(o, allowed: keys)
        let id = log.idOrGenerated(o)
        let name = log.optionalString(o, "name")
        if let name, name.unicodeScalars.count > Limits.maxNameLength {
            log.error("name", "must be at most \(Limits.maxNameLength) characters")
        }
        var category: NavigationCategory?
        switch o["category"] {
        case nil: log.error("category", "\"category\" is required (nav_bar or menu)")
        case .string(let s)?:
            category = NavigationCategory(rawValue: s)
            if category == nil { log.error("category", "\"\(s)\" is not a navigation category: expected nav_bar or menu") }
        case let other?: log.error("category", "must be a string (nav_bar or menu), got \(other.typeName)")
        }
        let navigationType = log.requiredString(o, "navigation_type")
        let styles = log.object(o, "styles")
        let rules = log.object(o, "rules")
        let assets = log.object(o, "assets")
        let items = log.list(o, "nav_items", NavItem.parse)

        // Nav item ids are unique within the navigation, nested items included.
        var firstSeen: [String: String] = [:]
        func visit(_ list: [NavItem], _ base: String) {
            for (i, item) in list.enumerated() {
                let p = JSONPointer.join(base, i)
                if let first = firstSeen[item.id] {
                    log.errors.append(FieldError(JSONPointer.join(p, "id"), "duplicate nav item id \"\(item.id)\" (already used at \(first))"))
                } else {
                    firstSeen[item.id] = JSONPointer.join(p, "id")
                }
                visit(item.navItems, JSONPointer.join(p, "nav_items"))
            }
        }
        visit(items, JSONPointer.join(pointer, "nav_items"))

        guard log.errors.isEmpty, let id, let category, let navigationType else { return (nil, log.errors) }
        return (
            Navigation(
                id: id, name: name, category: category, navigationType: navigationType, styles: styles, rules: rules,
                assets: assets, navItems: items), []
        )
    }

    public func toJSON() -> JSONValue {
        .object([
            "id": .string(id),
            "name": name.map(JSONValue.string) ?? .null,
            "category": .string(category.rawValue),
            "navigation_type": .string(navigationType),
            "styles": .object(styles),
            "rules": .object(rules),
            "assets": .object(assets),
            "nav_items": NavItem.listJSON(navItems),
        ])
    }

    /// Every screen id a nav item of this navigation opens, depth first, without repeats.
    public var allTargets: [String] {
        var seen: Set<String> = []
        return navItems.flatMap(\.allTargets).filter { seen.insert($0).inserted }
    }
}

// MARK: - Nav item

/// A nav item's `data`: `{source, type, connected, target}` — all four always written, `null` when unset.
public struct NavItemData: Sendable, Hashable {
    public var source: String?
    public var type: String?
    public var connected: Bool?
    /// A screen id (UUID) for a screen link.
    public var target: String?

    public init(source: String? = nil, type: String? = nil, connected: Bool? = nil, target: String? = nil) {
        self.source = source
        self.type = type
        self.connected = connected
        self.target = target
    }

    public static let webURLType = "WEB_URL"

    /// A screen link: `target` is set.
    public static func screen(_ id: String) -> NavItemData { NavItemData(target: id) }
    /// A web link: `type` is `WEB_URL` and `source` the address.
    public static func web(_ url: String) -> NavItemData { NavItemData(source: url, type: webURLType) }

    public var isWebLink: Bool { type == Self.webURLType }

    /// Schemes that run code or read local data where an app opens the link.
    static let refusedSchemes: Set<String> = ["javascript", "vbscript", "data", "file", "blob", "about", "content", "filesystem"]

    /// What apps may open: `http://` and `https://` addresses, and app deep links (`scheme://…`,
    /// the scheme made of letters, digits, `+`, `-`, `.`), except schemes that run code or read
    /// local files. Checked on the text as written: no leading spaces or control characters.
    public static func isOpenableLink(_ link: String) -> Bool {
        guard let colon = link.firstIndex(of: ":") else { return false }
        let scheme = link[..<colon]
        guard let first = scheme.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic,
              scheme.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)) }),
              !refusedSchemes.contains(scheme.lowercased()),
              link[colon...].hasPrefix("://"), link.count > scheme.count + 3,
              !link.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == " " })
        else { return false }
        return true
    }

    static let keys: Set<String> = ["source", "type", "connected", "target"]

    public static func parse(_ json: JSONValue, pointer: String) -> (value: NavItemData?, errors: [FieldError]) {
        var log = NavigationReader(base: pointer)
        guard case .object(let o) = json else {
            return (nil, [FieldError(pointer, "data must be an object {source, type, connected, target}, got \(json.typeName)")])
        }
        log.rejectUnknown(o, allowed: keys)
        let source = log.optionalString(o, "source")
        let type = log.optionalString(o, "type")
        var connected: Bool?
        switch o["connected"] {
        case nil, .null?: break
        case .bool(let b)?: connected = b
        case let other?: log.error("connected", "must be a boolean, got \(PluginJSON.got(other))")
        }
        let target = log.optionalUUID(o, "target")
        if type == webURLType {
            if (source ?? "").trimmingCharacters(in: .whitespaces).isEmpty {
                log.error("source", "a web link (type WEB_URL) needs a non-empty \"source\"")
            } else if let source, !isOpenableLink(source) {
                log.error("source", "a web link must be an http or https address, or an app link such as myapp://path")
            }
            if o["target"].map({ !$0.isNull }) ?? false {
                log.error("target", "a web link (type WEB_URL) cannot also target a screen")
            }
        }
        guard log.errors.isEmpty else { return (nil, log.errors) }
        return (NavItemData(source: source, type: type, connected: connected, target: target), [])
    }

    public func toJSON() -> JSONValue {
        .object([
            "source": source.map(JSONValue.string) ?? .null,
            "type": type.map(JSONValue.string) ?? .null,
            "connected": connected.map(JSONValue.bool) ?? .null,
            "target": target.map(JSONValue.string) ?? .null,
        ])
    }
}

/// `{id, title, type, data, assets, styles, rules, nav_items}`; `type` is e.g. `button`, `label`,
/// `header`, `nested_menu`, `chromecast`, `live_drawer`.
public struct NavItem: Sendable, Hashable {
    public var id: String
    public var title: String
    public var type: String
    public var data: NavItemData
    public var assets: [String: JSONValue]
    public var styles: [String: JSONValue]
    public var rules: [String: JSONValue]
    public var navItems: [NavItem]

    public init(
        id: String, title: String, type: String, data: NavItemData = NavItemData(), assets: [String: JSONValue] = [:],
        styles: [String: JSONValue] = [:], rules: [String: JSONValue] = [:], navItems: [NavItem] = []
    ) {
        self.id = id
        self.title = title
        self.type = type
        self.data = data
        self.assets = assets
        self.styles = styles
        self.rules = rules
        self.navItems = navItems
    }

    static let keys: Set<String> = ["id", "title", "type", "position", "data", "assets", "styles", "rules", "nav_items"]

    public static func parse(_ json: JSONValue, pointer: String) -> (value: NavItem?, errors: [FieldError]) {
        var log = NavigationReader(base: pointer)
        guard case .object(let o) = json else {
            return (nil, [FieldError(pointer, "a nav item must be an object, got \(json.typeName)")])
        }
        log.rejectUnknown(o, allowed: keys)
        let id = log.idOrGenerated(o)
        // `position` is accepted as sent back, but the order of the list decides it.
        switch o["position"] {
        case nil, .null?: break
        case .number(let n)? where n >= 1 && n.rounded() == n: break
        case let other?: log.error("position", "must be a whole number from 1, got \(PluginJSON.got(other))")
        }
        var title: String?
        switch o["title"] {
        case nil: log.error("title", "\"title\" is required (it may be empty)")
        case .string(let s)?: title = s
        case let other?: log.error("title", "must be a string, got \(other.typeName)")
        }
        let type = log.requiredString(o, "type")
        var data = NavItemData()
        if let d = o["data"], !d.isNull {
            let (value, errors) = NavItemData.parse(d, pointer: JSONPointer.join(pointer, "data"))
            log.errors += errors
            if let value { data = value }
        }
        let assets = log.object(o, "assets")
        let styles = log.object(o, "styles")
        let rules = log.object(o, "rules")
        let items = log.list(o, "nav_items", NavItem.parse)
        guard log.errors.isEmpty, let id, let title, let type else { return (nil, log.errors) }
        return (
            NavItem(id: id, title: title, type: type, data: data, assets: assets, styles: styles, rules: rules, navItems: items),
            []
        )
    }

    /// The item at `position` (1-based) of its list: clients match items by it (the QA reader
    /// fails without it).
    public func toJSON(position: Int = 1) -> JSONValue {
        .object([
            "id": .string(id),
            "title": .string(title),
            "type": .string(type),
            "position": .number(Double(position)),
            "data": data.toJSON(),
            "assets": .object(assets),
            "styles": .object(styles),
            "rules": .object(rules),
            "nav_items": Self.listJSON(navItems),
        ])
    }

    static func listJSON(_ items: [NavItem]) -> JSONValue {
        .array(items.enumerated().map { $1.toJSON(position: $0 + 1) })
    }

    /// Stored navigations (raw JSON) with every nav item's `position` set from its place in its
    /// list, for what was stored before positions were written.
    public static func numbered(_ navigation: JSONValue) -> JSONValue {
        guard var o = navigation.objectValue, let items = o["nav_items"]?.arrayValue else { return navigation }
        o["nav_items"] = .array(items.enumerated().map { i, item in
            guard var io = numbered(item).objectValue else { return item }
            io["position"] = .number(Double(i + 1))
            return .object(io)
        })
        return .object(o)
    }

    /// This item's target then its nested items' targets, depth first (repeats kept).
    public var allTargets: [String] {
        (data.target.map { [$0] } ?? []) + navItems.flatMap(\.allTargets)
    }
}

// MARK: - Reading helpers

/// Collects errors while reading one object whose pointer is `base`.
struct NavigationReader {
    let base: String
    var errors: [FieldError] = []

    mutating func error(_ key: String, _ message: String) {
        errors.append(FieldError(JSONPointer.join(base, key), message))
    }

    mutating func rejectUnknown(_ o: [String: JSONValue], allowed: Set<String>) {
        for key in o.keys.sorted() where !allowed.contains(key) {
            error(key, "unknown key \"\(key)\"; expected \(allowed.sorted().joined(separator: ", "))")
        }
    }

    mutating func requiredString(_ o: [String: JSONValue], _ key: String) -> String? {
        switch o[key] {
        case nil: error(key, "\"\(key)\" is required")
        case .string(let s)?:
            if s.trimmingCharacters(in: .whitespaces).isEmpty { error(key, "must not be empty") } else { return s }
        case let other?: error(key, "must be a string, got \(PluginJSON.got(other))")
        }
        return nil
    }

    /// `id` as given, or a new UUID when it is absent (as for components).
    mutating func idOrGenerated(_ o: [String: JSONValue]) -> String? {
        switch o["id"] {
        case nil, .null?: return UUIDText.random()
        default: return requiredString(o, "id")
        }
    }

    mutating func optionalString(_ o: [String: JSONValue], _ key: String) -> String? {
        switch o[key] {
        case nil, .null?: return nil
        case .string(let s)?: return s
        case let other?:
            error(key, "must be a string or null, got \(PluginJSON.got(other))")
            return nil
        }
    }

    mutating func optionalUUID(_ o: [String: JSONValue], _ key: String) -> String? {
        switch o[key] {
        case nil, .null?: return nil
        case .string(let s)?:
            if let id = PluginJSON.normalizedUUID(s) { return id }
            error(key, "\"\(s)\" is not a screen id (a UUID like 87706774-8436-4273-87bd-9a5cfa9f37ff)")
            return nil
        case let other?:
            error(key, "must be a screen id string, got \(PluginJSON.got(other))")
            return nil
        }
    }

    mutating func object(_ o: [String: JSONValue], _ key: String) -> [String: JSONValue] {
        switch o[key] {
        case nil: return [:]
        case .object(let v)?: return v
        case let other?:
            error(key, "must be an object, got \(other.typeName)")
            return [:]
        }
    }

    mutating func list<T>(
        _ o: [String: JSONValue], _ key: String, _ parse: (JSONValue, String) -> (value: T?, errors: [FieldError])
    ) -> [T] {
        switch o[key] {
        case nil: return []
        case .array(let items)?:
            var out: [T] = []
            for (i, item) in items.enumerated() {
                let (value, errs) = parse(item, JSONPointer.join(JSONPointer.join(base, key), i))
                errors += errs
                if let value { out.append(value) }
            }
            return out
        case let other?:
            error(key, "must be an array, got \(other.typeName)")
            return []
        }
    }
}

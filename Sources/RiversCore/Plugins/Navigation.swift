/// Navigations (nav bar, menu), nav items and hooks as they appear in a screen of `rivers.json`.
///
/// Each `parse(_:pointer:)` reports every problem (pointers start at `pointer`) and returns a value
/// only when there is none. `toJSON()` writes exactly the keys the spec shows, every time.
///
/// Decisions where the spec is silent:
/// - Unknown keys are errors (these objects come from our own editor; nothing may be dropped silently).
/// - Read by `ObjectReader`, like every other body: the same messages and pointers.
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
    /// Members published as they are (see `Component.extra`).
    public var extra: [String: JSONValue] = [:]

    public init(identifier: String, type: String, weight: Double = 0, screenId: String? = nil) {
        self.identifier = identifier
        self.type = type
        self.weight = weight
        self.screenId = screenId
    }

    static let keys: Set<String> = ["identifier", "type", "weight", "screen_id"]

    public static func read(_ json: JSONValue, at pointer: String, problems: Problems) -> Hook? {
        guard let r = ObjectReader(json, at: pointer, problems: problems) else { return nil }
        let before = problems.count
        let extra = r.extras(documentKeys: keys)
        let identifier = r.string("identifier", required: true, nonEmpty: true)
        let type = r.string("type", required: true, nonEmpty: true)
        let weight = r.number("weight", minimum: -Double(Limits.maxInteger)) ?? 0
        let screenId = r.uuid("screen_id")
        guard problems.count == before, let identifier, let type else { return nil }
        var hook = Hook(identifier: identifier, type: type, weight: weight, screenId: screenId)
        hook.extra = extra
        return hook
    }

    /// `{identifier, type, weight}` plus `screen_id` only when the hook is a screen; `extra` as
    /// its own member for the API, merged in for the document.
    public func toJSON(document: Bool = false) -> JSONValue {
        var o: [String: JSONValue] = ["identifier": .string(identifier), "type": .string(type), "weight": .number(weight)]
        if let screenId { o["screen_id"] = .string(screenId) }
        return .object(o.withExtra(extra, document: document))
    }
}

/// A screen's `hooks` object: `{"preload_plugins": [hook…], "postload_plugins": [hook…]}`.
public struct ScreenHooks: Sendable, Hashable {
    public var preloadPlugins: [Hook]
    public var postloadPlugins: [Hook]
    /// Members published as they are beside the two lists (see `Component.extra`).
    public var extra: [String: JSONValue] = [:]

    static let keys: Set<String> = ["preload_plugins", "postload_plugins"]

    public init(preloadPlugins: [Hook] = [], postloadPlugins: [Hook] = []) {
        self.preloadPlugins = preloadPlugins
        self.postloadPlugins = postloadPlugins
    }

    /// Reads a `hooks` object; with `base`, as a merge patch onto it: a list it leaves out is the
    /// base's, its `extra` is merged onto the base's (see `Screen.read(mergePatch:onto:…)`).
    public static func read(_ json: JSONValue, at pointer: String, problems: Problems, base: ScreenHooks? = nil) -> ScreenHooks? {
        var json = json
        if let base, case .object(var members) = json, let patch = members["extra"], case .object = patch {
            members["extra"] = JSONValue.object(base.extra).mergePatched(with: patch)
            json = .object(members)
        }
        guard let r = ObjectReader(json, at: pointer, problems: problems) else { return nil }
        func given(_ key: String) -> Bool { base == nil || r.object[key] != nil }
        let before = problems.count
        let readExtra = r.extras(documentKeys: keys)
        let extra = given("extra") ? readExtra : base!.extra
        let pre = given("preload_plugins") ? r.list("preload_plugins") { Hook.read($0, at: $1, problems: problems) } : base!.preloadPlugins
        let post = given("postload_plugins") ? r.list("postload_plugins") { Hook.read($0, at: $1, problems: problems) } : base!.postloadPlugins
        guard problems.count == before else { return nil }
        var hooks = ScreenHooks(preloadPlugins: pre, postloadPlugins: post)
        hooks.extra = extra
        return hooks
    }

    public var isEmpty: Bool { preloadPlugins.isEmpty && postloadPlugins.isEmpty }

    public func toJSON(document: Bool = false) -> JSONValue {
        let o: [String: JSONValue] = [
            "preload_plugins": .array(preloadPlugins.map { $0.toJSON(document: document) }),
            "postload_plugins": .array(postloadPlugins.map { $0.toJSON(document: document) }),
        ]
        return .object(o.withExtra(extra, document: document))
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
    /// Members published as they are (see `Component.extra`).
    public var extra: [String: JSONValue] = [:]

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

    /// `generatedId`: the id of a navigation that has none, and the start of its items' (`<id>-2`,
    /// `<id>-2-1` for the first item nested in the second): given when reading a document, so
    /// that importing one twice gives the same ids; nil makes random ones.
    public static func read(_ json: JSONValue, at pointer: String, problems: Problems, generatedId: String? = nil) -> Navigation? {
        guard let r = ObjectReader(json, at: pointer, problems: problems) else { return nil }
        let before = problems.count
        let extra = r.extras(documentKeys: keys)
        let id = r.idOrGenerated(generated: generatedId)
        let name = r.string("name", maxLength: Limits.maxNameLength)
        var category: NavigationCategory?
        if let s = r.string("category", required: true) {
            category = NavigationCategory(rawValue: s)
            if category == nil { problems.add(r.at("category"), "must be nav_bar or menu (got \"\(s.prefix(100))\")") }
        }
        let navigationType = r.string("navigation_type", required: true, nonEmpty: true)
        let styles = r.freeObject("styles")
        let rules = r.freeObject("rules")
        let assets = r.freeObject("assets")
        let items = NavItem.readList(r, problems: problems, generatedIdPrefix: generatedId.map { _ in id ?? "" })

        // Nav item ids are unique within the navigation, nested items included.
        var firstSeen: [String: String] = [:]
        func visit(_ list: [NavItem], _ base: String) {
            for (i, item) in list.enumerated() {
                let p = JSONPointer.join(base, i)
                if let first = firstSeen[item.id] {
                    problems.add(JSONPointer.join(p, "id"), "duplicates the id of the nav item at \(first)")
                } else {
                    firstSeen[item.id] = p
                }
                visit(item.navItems, JSONPointer.join(p, "nav_items"))
            }
        }
        visit(items, r.at("nav_items"))

        guard problems.count == before, let id, let category, let navigationType else { return nil }
        var navigation = Navigation(
            id: id, name: name, category: category, navigationType: navigationType, styles: styles, rules: rules,
            assets: assets, navItems: items)
        navigation.extra = extra
        return navigation
    }

    public func toJSON(document: Bool = false) -> JSONValue {
        let o: [String: JSONValue] = [
            "id": .string(id),
            "name": name.map(JSONValue.string) ?? .null,
            "category": .string(category.rawValue),
            "navigation_type": .string(navigationType),
            "styles": .object(styles),
            "rules": .object(rules),
            "assets": .object(assets),
            "nav_items": NavItem.listJSON(navItems, document: document),
        ]
        return .object(o.withExtra(extra, document: document))
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
    /// Members published as they are (see `Component.extra`).
    public var extra: [String: JSONValue] = [:]

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

    public static func read(_ json: JSONValue, at pointer: String, problems: Problems) -> NavItemData? {
        guard let r = ObjectReader(json, at: pointer, problems: problems) else { return nil }
        let before = problems.count
        let extra = r.extras(documentKeys: keys)
        let source = r.string("source", acceptNumber: true)
        let type = r.string("type")
        let connected = r.bool("connected")
        let target = r.uuid("target")
        if type == webURLType {
            if (source ?? "").trimmingWhitespace().isEmpty {
                problems.add(r.at("source"), "a web link (type WEB_URL) needs a non-empty \"source\"")
            } else if let source, !isOpenableLink(source) {
                problems.add(r.at("source"), "a web link must be an http or https address, or an app link such as myapp://path")
            }
            if r.has("target") {
                problems.add(r.at("target"), "a web link (type WEB_URL) cannot also target a screen")
            }
        }
        guard problems.count == before else { return nil }
        var data = NavItemData(source: source, type: type, connected: connected, target: target)
        data.extra = extra
        return data
    }

    public func toJSON(document: Bool = false) -> JSONValue {
        let o: [String: JSONValue] = [
            "source": source.map(JSONValue.string) ?? .null,
            "type": type.map(JSONValue.string) ?? .null,
            "connected": connected.map(JSONValue.bool) ?? .null,
            "target": target.map(JSONValue.string) ?? .null,
        ]
        return .object(o.withExtra(extra, document: document))
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
    /// Members published as they are (see `Component.extra`).
    public var extra: [String: JSONValue] = [:]

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

    public static func read(_ json: JSONValue, at pointer: String, problems: Problems, generatedId: String? = nil) -> NavItem? {
        guard let r = ObjectReader(json, at: pointer, problems: problems) else { return nil }
        let before = problems.count
        let extra = r.extras(documentKeys: keys)
        let id = r.idOrGenerated(generated: generatedId)
        // `position` is accepted as sent back, but the order of the list decides it.
        _ = r.integer("position", minimum: 1)
        // Required, but may be empty (an icon-only item).
        let title = r.string("title", required: true)
        let type = r.string("type", required: true, nonEmpty: true)
        var data = NavItemData()
        if r.has("data"), let value = NavItemData.read(r.object["data"]!, at: r.at("data"), problems: problems) { data = value }
        let assets = r.freeObject("assets")
        let styles = r.freeObject("styles")
        let rules = r.freeObject("rules")
        let items = readList(r, problems: problems, generatedIdPrefix: generatedId)
        guard problems.count == before, let id, let title, let type else { return nil }
        var item = NavItem(id: id, title: title, type: type, data: data, assets: assets, styles: styles, rules: rules, navItems: items)
        item.extra = extra
        return item
    }

    /// The `nav_items` of `r`; an item without an id gets `<generatedIdPrefix>-<its 1-based place>`
    /// when a prefix is given (a document), a random one otherwise.
    static func readList(_ r: ObjectReader, problems: Problems, generatedIdPrefix: String?) -> [NavItem] {
        var place = 0
        return r.list("nav_items") { json, pointer in
            place += 1
            return NavItem.read(json, at: pointer, problems: problems, generatedId: generatedIdPrefix.map { "\($0)-\(place)" })
        }
    }

    /// The item at `position` (1-based) of its list: clients match items by it (the QA reader
    /// fails without it).
    public func toJSON(position: Int = 1, document: Bool = false) -> JSONValue {
        let o: [String: JSONValue] = [
            "id": .string(id),
            "title": .string(title),
            "type": .string(type),
            "position": .number(Double(position)),
            "data": data.toJSON(document: document),
            "assets": .object(assets),
            "styles": .object(styles),
            "rules": .object(rules),
            "nav_items": Self.listJSON(navItems, document: document),
        ]
        return .object(o.withExtra(extra, document: document))
    }

    static func listJSON(_ items: [NavItem], document: Bool = false) -> JSONValue {
        .array(items.enumerated().map { $1.toJSON(position: $0 + 1, document: document) })
    }

    /// This item's target then its nested items' targets, depth first (repeats kept).
    public var allTargets: [String] {
        (data.target.map { [$0] } ?? []) + navItems.flatMap(\.allTargets)
    }
}

extension Dictionary where Key == String, Value == JSONValue {
    /// These members with `extra`: merged in for the published document (the reader keeps its
    /// keys apart from the modelled ones), as an `extra` member of its own for the API.
    func withExtra(_ extra: [String: JSONValue], document: Bool) -> [String: JSONValue] {
        guard !extra.isEmpty else { return self }
        if !document { return merging(["extra": .object(extra)]) { current, _ in current } }
        return merging(extra) { current, _ in current }
    }
}

// MARK: - Reading for tests and messages

extension Hook {
    /// `read` with its problems returned: the value only when there are none.
    public static func parse(_ json: JSONValue, pointer: String) -> (value: Hook?, errors: [FieldError]) {
        collecting { read(json, at: pointer, problems: $0) }
    }
}

extension ScreenHooks {
    public static func parse(_ json: JSONValue, pointer: String) -> (value: ScreenHooks?, errors: [FieldError]) {
        collecting { read(json, at: pointer, problems: $0) }
    }
}

extension Navigation {
    public static func parse(_ json: JSONValue, pointer: String) -> (value: Navigation?, errors: [FieldError]) {
        collecting { read(json, at: pointer, problems: $0) }
    }
}

extension NavItemData {
    public static func parse(_ json: JSONValue, pointer: String) -> (value: NavItemData?, errors: [FieldError]) {
        collecting { read(json, at: pointer, problems: $0) }
    }
}

extension NavItem {
    public static func parse(_ json: JSONValue, pointer: String) -> (value: NavItem?, errors: [FieldError]) {
        collecting { read(json, at: pointer, problems: $0) }
    }
}

/// Runs one reader with problems of its own and returns the value only when none were found.
func collecting<T>(_ read: (Problems) -> T?) -> (value: T?, errors: [FieldError]) {
    let problems = Problems()
    let value = read(problems)
    return problems.isEmpty ? (value, []) : (nil, problems.errors)
}

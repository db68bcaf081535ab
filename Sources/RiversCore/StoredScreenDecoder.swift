import Foundation

/// Reads a stored screen's text straight into a `Screen`, in one walk over its bytes (issue 26:
/// decoding straight into types). The modelled members are matched by their bytes and decoded
/// as they are met, with no tree and no dictionary of them; only free-form objects (styles,
/// rules, data, …), navigations and hooks become `JSONValue`s, as the model keeps them.
///
/// It is a fast path, never a second set of rules: it returns a screen only where `Screen.read`
/// (API mode) would return the same screen with no problem, and nil for anything else, however
/// small (an unknown member, a value of another type, a string near a length limit, an escape in
/// a member name, a duplicate key), and the caller then reads the text the full way, which says
/// what is wrong and where. Stored screens were valid when written, so nil is rare.
/// `StoredScreenDecoderTests` holds it to `Screen.read` over valid screens and thousands of
/// damaged ones.
public struct StoredScreenDecoder {
    var parser: JSONTextParser
    let options: Screen.ReadOptions
    let anyType: Bool
    var componentIds: Set<String> = []
    var componentCount = 0

    /// The text holds something the fast path does not vouch for.
    struct Unsure: Error {}

    /// `anyType`: the screen's own type counts as known (as when the caller reads it with its
    /// type added to `options`, which a stored screen whose plugin is gone needs).
    public static func decode(_ bytes: [UInt8], options: Screen.ReadOptions, anyType: Bool = false) -> Screen? {
        var decoder = StoredScreenDecoder(parser: JSONTextParser(bytes: bytes), options: options, anyType: anyType)
        guard let screen = try? decoder.screen() else { return nil }
        // Counted as the one parse of the text (a text left to the full reader counts there).
        JSONWork.count?.parsed(bytes.count)
        return screen
    }

    // MARK: The screen

    static let screenKeys: [StaticString] = [
        "id", "name", "type", "screen_type", "home", "home_offline", "supports_offline", "connected", "parent", "family",
        "styles", "data", "rules", "general", "advertising", "hooks", "navigations", "ui_components", "plugin_version",
        "extra", "revision", "created_at", "updated_at",
    ]

    mutating func screen() throws(Unsure) -> Screen {
        parser.skipWhitespace()
        var id: String?, name: String?, family: String?
        var type = Screen.generalContent, screenType = "", pluginVersion: String?, parent: String?
        var home = false, homeOffline = false, supportsOffline = false, connected = false
        var styles: [String: JSONValue] = [:], data: [String: JSONValue] = [:], rules: [String: JSONValue] = [:]
        var general: [String: JSONValue] = [:], advertising: [String: JSONValue] = [:], extra: [String: JSONValue] = [:]
        var hooks = ScreenHooks(), navigations: [Navigation] = [], components: [Component] = []
        try members(Self.screenKeys) { (d: inout StoredScreenDecoder, key: Int) throws(Unsure) in
            switch key {
            case 0: id = try d.uuid()
            case 1:
                guard let s = try d.string(), s.utf8.count <= Limits.maxNameLength, !s.trimmingWhitespace().isEmpty else { throw Unsure() }
                name = s
            case 2: type = try d.string() ?? Screen.generalContent
            case 3: screenType = try d.string() ?? ""
            case 4: home = try d.bool() ?? false
            case 5: homeOffline = try d.bool() ?? false
            case 6: supportsOffline = try d.bool() ?? false
            case 7: connected = try d.bool() ?? false
            case 8: parent = try d.optionalUUID()
            case 9: family = try d.identifier(IdentifierRules.isUpperSnake)
            case 10: styles = try d.freeObject()
            case 11: data = try d.freeObject()
            case 12: rules = try d.freeObject()
            case 13: general = try d.freeObject()
            case 14: advertising = try d.freeObject()
            case 15: hooks = try d.read { value, problems in ScreenHooks.read(value, at: "", problems: problems) } ?? hooks
            case 16:
                navigations = try d.read { value, problems in
                    value.arrayValue?.compactMap { Navigation.read($0, at: "", problems: problems) }
                } ?? []
            case 17:
                guard !(try d.null()) else { break }
                components = try d.components(level: 1)
            case 18:
                guard let s = try d.string() else { break }
                guard !s.trimmingWhitespace().isEmpty else { throw Unsure() }
                pluginVersion = s
            case 19:
                extra = try d.freeObject()
                if extra.keys.contains(where: Screen.documentKeys.contains) { throw Unsure() }
            default: _ = try d.valueUnlessNull()  // bookkeeping, which the store adds
            }
        }
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count, let id, let name, let family else { throw Unsure() }
        guard anyType || Screen.builtInTypes.contains(type) || options.pluginScreenTypes.contains(type) else { throw Unsure() }
        guard styles["family"] == nil, data["connected"] == nil, data["parent"] == nil, parent != id else { throw Unsure() }
        guard componentCount <= Limits.maxComponentsPerScreen else { throw Unsure() }
        // The reader's own checks between members, on the typed values.
        let problems = Problems()
        Screen.checkPlugins(
            navigations: navigations, hooks: hooks, at: ObjectReader(JSONValue.emptyObject, at: "", problems: problems)!,
            options: options, sent: { _ in false })
        if connected { Component.checkKept(components, at: "", catalog: options.catalog, connected: true, problems: problems) }
        guard problems.isEmpty else { throw Unsure() }
        return Screen(
            id: id, name: name, type: type, screenType: screenType, home: home, homeOffline: homeOffline,
            supportsOffline: supportsOffline, connected: connected, parent: parent, family: family,
            styles: styles, data: data, rules: rules, general: general, advertising: advertising,
            hooks: hooks, navigations: navigations, uiComponents: components, pluginVersion: pluginVersion, extra: extra)
    }

    // MARK: Components

    static let componentKeys: [StaticString] = [
        "id", "component_type", "cell_styles", "layout", "header", "footer", "rules", "advertising", "data", "styles",
        "ui_components", "extra",
    ]

    mutating func components(level: Int) throws(Unsure) -> [Component] {
        var list: [Component] = []
        try elements { (d: inout StoredScreenDecoder) throws(Unsure) in list.append(try d.component(level: level)) }
        return list
    }

    mutating func component(level: Int) throws(Unsure) -> Component {
        componentCount += 1
        var id: String?, typeId: String?, layout: String?, itemLimit: Int?, data: ComponentData?
        var cellStyles: [String] = [], header = SectionDecoration(), footer = SectionDecoration()
        var rules: [String: JSONValue] = [:], advertising: [String: JSONValue] = [:], styles: [String: JSONValue] = [:]
        var extra: [String: JSONValue] = [:], children: [Component] = []
        var childrenSent = false
        try members(Self.componentKeys) { (d: inout StoredScreenDecoder, key: Int) throws(Unsure) in
            switch key {
            case 0: id = try d.identifier(IdentifierRules.isToken)
            case 1: typeId = try d.string()
            case 2:
                guard !(try d.null()) else { break }
                try d.elements { (d: inout StoredScreenDecoder) throws(Unsure) in
                    guard let style = try d.string(), !style.isEmpty, style.utf8.count <= 100, style.utf8.allSatisfy(IdentifierRules.isUpperSnake) else {
                        throw Unsure()
                    }
                    cellStyles.append(style)
                }
                guard cellStyles.count <= Limits.maxCellStylesPerComponent else { throw Unsure() }
            case 3: layout = try d.string()
            case 4: header = try d.decoration()
            case 5: footer = try d.decoration()
            case 6:
                (itemLimit, rules) = try d.read { value, problems in
                    ObjectReader(value, at: "", problems: problems).map(Component.readRules)
                } ?? (nil, [:])
            case 7: advertising = try d.freeObject()
            case 8: data = try d.componentData()
            case 9: styles = try d.freeObject()
            case 10:
                guard !(try d.null()) else { break }
                childrenSent = true
                children = try d.components(level: level + 1)
            default:
                extra = try d.freeObject()
                if extra.keys.contains(where: Component.documentKeys.contains) { throw Unsure() }
            }
        }
        guard let id, let typeId, let type = options.catalog.types[typeId], componentIds.insert(id).inserted else { throw Unsure() }
        if childrenSent, !children.isEmpty, !type.holdsChildren || level > Component.maxDepth { throw Unsure() }
        if styles.keys.contains(where: Component.reservedStyles.contains) { throw Unsure() }
        return Component(
            id: id, componentType: typeId, cellStyles: cellStyles, layout: layout, header: header, footer: footer,
            itemLimit: itemLimit, rules: rules, advertising: advertising, data: data, styles: styles, uiComponents: children,
            extra: extra)
    }

    static let decorationKeys: [StaticString] = ["visible", "style", "extra"]

    mutating func decoration() throws(Unsure) -> SectionDecoration {
        var decoration = SectionDecoration()
        guard !(try null()) else { return decoration }
        try members(Self.decorationKeys) { (d: inout StoredScreenDecoder, key: Int) throws(Unsure) in
            switch key {
            case 0: decoration.visible = try d.bool() ?? false
            case 1: decoration.style = try d.string()
            default:
                decoration.extra = try d.freeObject()
                if decoration.extra.keys.contains(where: SectionDecoration.keys.contains) { throw Unsure() }
            }
        }
        return decoration
    }

    static let dataKeys: [StaticString] = ["source", "type", "target", "connected", "extra"]

    mutating func componentData() throws(Unsure) -> ComponentData? {
        guard !(try null()) else { return nil }
        var data = ComponentData()
        try members(Self.dataKeys) { (d: inout StoredScreenDecoder, key: Int) throws(Unsure) in
            switch key {
            case 0: data.source = try d.string() ?? ""
            case 1: data.type = try d.string() ?? ""
            case 2: data.target = try d.optionalUUID()
            case 3: data.connected = try d.bool()
            default:
                data.extra = try d.freeObject()
                if data.extra.keys.contains(where: ComponentData.documentKeys.contains) { throw Unsure() }
            }
        }
        return data
    }

    // MARK: Values

    var next: UInt8? {
        parser.index < parser.bytes.count ? parser.bytes[parser.index] : nil
    }

    /// An object's members: each name must be one of `names` (matched by its bytes) and appear
    /// once; `visit` decodes the value of the name at that index.
    mutating func members(_ names: [StaticString], _ visit: (inout StoredScreenDecoder, Int) throws(Unsure) -> Void) throws(Unsure) {
        guard try !opens(UInt8(ascii: "{"), UInt8(ascii: "}")) else { return }
        var seen: UInt64 = 0
        while true {
            parser.skipWhitespace()
            let key = try name(names)
            guard seen & (1 << UInt64(key)) == 0 else { throw Unsure() }
            seen |= 1 << UInt64(key)
            parser.skipWhitespace()
            guard next == UInt8(ascii: ":") else { throw Unsure() }
            parser.index += 1
            parser.skipWhitespace()
            try visit(&self, key)
            if try closes(UInt8(ascii: "}")) { return }
        }
    }

    /// Enters the object or array at the parser; whether it is empty (then passed).
    mutating func opens(_ open: UInt8, _ close: UInt8) throws(Unsure) -> Bool {
        guard next == open else { throw Unsure() }
        parser.index += 1
        parser.depth += 1
        guard parser.depth <= JSONTextParser.maxDepth else { throw Unsure() }
        parser.skipWhitespace()
        guard next == close else { return false }
        parser.index += 1
        parser.depth -= 1
        return true
    }

    /// After a member or an element: whether the object or array ends (then passed), or a comma
    /// follows.
    mutating func closes(_ close: UInt8) throws(Unsure) -> Bool {
        parser.skipWhitespace()
        if next == UInt8(ascii: ",") {
            parser.index += 1
            return false
        }
        guard next == close else { throw Unsure() }
        parser.index += 1
        parser.depth -= 1
        return true
    }

    /// The index in `names` of the member name at the parser (a name with an escape, or one not
    /// in `names`, is not vouched for).
    mutating func name(_ names: [StaticString]) throws(Unsure) -> Int {
        guard next == UInt8(ascii: "\"") else { throw Unsure() }
        let start = parser.index + 1
        var end = start
        let bytes = parser.bytes
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
            guard bytes[end] != UInt8(ascii: "\\") else { throw Unsure() }
            end += 1
        }
        guard end < bytes.count else { throw Unsure() }
        parser.index = end + 1
        let length = end - start
        return try bytes.withUnsafeBufferPointer { buffer throws(Unsure) -> Int in
            for (i, name) in names.enumerated() where name.utf8CodeUnitCount == length {
                if memcmp(buffer.baseAddress! + start, name.utf8Start, length) == 0 { return i }
            }
            throw Unsure()
        }
    }

    /// An array's elements, each decoded by `visit`.
    mutating func elements(_ visit: (inout StoredScreenDecoder) throws(Unsure) -> Void) throws(Unsure) {
        guard try !opens(UInt8(ascii: "["), UInt8(ascii: "]")) else { return }
        while true {
            parser.skipWhitespace()
            try visit(&self)
            if try closes(UInt8(ascii: "]")) { return }
        }
    }

    /// Whether the value at the parser is `null` (then passed).
    mutating func null() throws(Unsure) -> Bool {
        guard next == UInt8(ascii: "n") else { return false }
        do { try parser.literal("null") } catch { throw Unsure() }
        return true
    }

    /// A string (at most 10,000 bytes, as the reader's default limit in characters is sure to
    /// hold then), or nil for `null`.
    mutating func string() throws(Unsure) -> String? {
        if try null() { return nil }
        guard next == UInt8(ascii: "\"") else { throw Unsure() }
        let s: String
        do { s = try parser.parseString() } catch { throw Unsure() }
        guard !parser.stringHadNUL, s.utf8.count <= 10_000 else { throw Unsure() }
        return s
    }

    mutating func bool() throws(Unsure) -> Bool? {
        switch next {
        case UInt8(ascii: "t"):
            do { try parser.literal("true") } catch { throw Unsure() }
            return true
        case UInt8(ascii: "f"):
            do { try parser.literal("false") } catch { throw Unsure() }
            return false
        default:
            if try null() { return nil }
            throw Unsure()
        }
    }

    /// A UUID, normalized as the reader normalizes it.
    mutating func uuid() throws(Unsure) -> String {
        guard let s = try string(), let id = UUIDText.normalize(s) else { throw Unsure() }
        return id
    }

    mutating func optionalUUID() throws(Unsure) -> String? {
        if try null() { return nil }
        return try uuid()
    }

    /// A non-empty identifier of at most 100 bytes, each one `allowed`.
    mutating func identifier(_ allowed: (UInt8) -> Bool) throws(Unsure) -> String {
        guard let s = try string(), !s.isEmpty, s.utf8.count <= 100, s.utf8.allSatisfy(allowed) else { throw Unsure() }
        return s
    }

    /// Any value, or nil for `null`, parsed as the full reader parses it.
    mutating func valueUnlessNull() throws(Unsure) -> JSONValue? {
        if try null() { return nil }
        do { return try parser.parseValue() } catch { throw Unsure() }
    }

    /// The value at the parser (nil for `null`) read the full way by `read`, which must find no
    /// problem: for the parts the model keeps as JSON or that are small (hooks, navigations, rules).
    mutating func read<T>(_ read: (JSONValue, Problems) -> T?) throws(Unsure) -> T? {
        guard let value = try valueUnlessNull() else { return nil }
        let problems = Problems()
        guard let result = read(value, problems), problems.isEmpty else { throw Unsure() }
        return result
    }

    /// A free-form object; `{}` for `null`.
    mutating func freeObject() throws(Unsure) -> [String: JSONValue] {
        guard let value = try valueUnlessNull() else { return [:] }
        guard case .object(let members) = value else { throw Unsure() }
        return members
    }
}

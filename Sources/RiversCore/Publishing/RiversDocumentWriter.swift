/// Writes the published document straight to bytes, the one writer of the format: without
/// building and sorting a dictionary for every screen and component. Members whose keys are fixed
/// are written in sorted order by hand; only free-form objects (styles, rules, …) are sorted, so
/// the same input always gives the same bytes.
extension RiversDocument {
    public static func bytes(screens: [Screen], screenPlugins: [String: ScreenPluginInfo]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(screens.count * 4096)
        out.append(UInt8(ascii: "["))
        for (i, screen) in screens.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            writeScreen(screen, screenPlugins: screenPlugins, to: &out)
        }
        out.append(UInt8(ascii: "]"))
        return out
    }

    /// One screen's object, as `bytes(screens:…)` writes it (what `PublishedScreens` keeps).
    public static func fragment(_ screen: Screen, screenPlugins: [String: ScreenPluginInfo]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        writeScreen(screen, screenPlugins: screenPlugins, to: &out)
        // Kept (per app, for as long as the screen is unchanged): without the up to half of
        // spare capacity that growing by doubling leaves.
        guard out.capacity - out.count > out.count / 8 else { return out }
        return out.withUnsafeBufferPointer { Array($0) }
    }

    /// The document of screens written already, in order.
    public static func bytes(fragments: [[UInt8]]) -> [UInt8] {
        DocumentFragments(fragments).joined
    }
}

/// A document as its screens' bytes, in order, not yet joined: what serves it can write them
/// out one after another (they are the bytes `PublishedScreens` keeps) with no copy of the whole.
public struct DocumentFragments: Sendable {
    public let screens: [[UInt8]]

    public init(_ screens: [[UInt8]]) { self.screens = screens }

    /// The document's length in bytes: `[`, the screens with a comma between each two, `]`.
    public var byteCount: Int { screens.reduce(2) { $0 + $1.count } + max(0, screens.count - 1) }

    /// The document's bytes, joined.
    public var joined: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(byteCount)
        out.append(UInt8(ascii: "["))
        for (i, fragment) in screens.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: fragment)
        }
        out.append(UInt8(ascii: "]"))
        return out
    }
}

extension RiversDocument {
    @inline(__always)
    static func key(_ name: StaticString, first: Bool = false, _ out: inout [UInt8]) {
        if !first { out.append(UInt8(ascii: ",")) }
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        out.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    static func writeScreen(_ screen: Screen, screenPlugins: [String: ScreenPluginInfo], to out: inout [UInt8]) {
        let isPlugin = !Screen.builtInTypes.contains(screen.type)
        out.append(UInt8(ascii: "{"))
        // Keys in sorted order: advertising, data, general, home, home_offline, hooks, id, name,
        // navigations, rules, screen_type, styles, supports_offline, type, ui_components.
        key("advertising", first: true, &out)
        JSONValue.object(screen.advertising).write(to: &out)
        key("data", &out)
        if screen.connected {
            out.append(contentsOf: Array(#"{"connected":true,"parent":"#.utf8))
            JSONValue.writeString(screen.parent ?? "", to: &out)
            out.append(UInt8(ascii: "}"))
        } else if isPlugin {
            writeObject(screen.data, leaving: ["connected", "parent"], setting: [], to: &out)
        } else {
            // A root screen's data is `{}` (docs/spec/rivers-format.md).
            out.append(contentsOf: [UInt8(ascii: "{"), UInt8(ascii: "}")])
        }
        key("general", &out)
        JSONValue.object(screen.general).write(to: &out)
        key("home", &out)
        out.append(contentsOf: Array((screen.home ? "true" : "false").utf8))
        key("home_offline", &out)
        out.append(contentsOf: Array((screen.homeOffline ? "true" : "false").utf8))
        key("hooks", &out)
        screen.hooks.toJSON(document: true).write(to: &out)
        key("id", &out)
        JSONValue.writeString(screen.id, to: &out)
        key("name", &out)
        JSONValue.writeString(screen.name, to: &out)
        key("navigations", &out)
        JSONValue.array(screen.navigations.map { $0.toJSON(document: true) }).write(to: &out)
        key("rules", &out)
        JSONValue.object(screen.rules).write(to: &out)
        key("screen_type", &out)
        JSONValue.writeString(screen.screenType, to: &out)
        key("styles", &out)
        writeObject(screen.styles, setting: [("family", .string(screen.family))], to: &out)
        key("supports_offline", &out)
        out.append(contentsOf: Array((screen.supportsOffline ? "true" : "false").utf8))
        key("type", &out)
        JSONValue.writeString(screen.type, to: &out)
        key("ui_components", &out)
        let publishesComponents = !isPlugin || (screenPlugins[screen.type]?.canHaveComponents ?? false)
        writeComponents(publishesComponents ? screen.uiComponents : [], screen: screen, to: &out)
        writeExtra(screen.extra, to: &out)
        out.append(UInt8(ascii: "}"))
    }

    static func writeComponents(_ list: [Component], screen: Screen, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (i, component) in list.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            writeComponent(component, position: i + 1, screen: screen, to: &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    static func writeComponent(_ component: Component, position: Int, screen: Screen, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        // Keys in sorted order: advertising (when set), component_type, data, id, position, rules,
        // styles, ui_components.
        if !component.advertising.isEmpty {
            key("advertising", first: true, &out)
            JSONValue.object(component.advertising).write(to: &out)
        }
        key("component_type", first: component.advertising.isEmpty, &out)
        JSONValue.writeString(component.componentType, to: &out)
        key("data", &out)
        // Data keys in sorted order: connected, source, target, type.
        out.append(UInt8(ascii: "{"))
        if screen.connected {
            // Items come from the sender: source and type are empty.
            if let connected = component.data?.connected {
                key("connected", first: true, &out)
                out.append(contentsOf: Array((connected ? "true" : "false").utf8))
            }
            key("source", first: component.data?.connected == nil, &out)
            JSONValue.writeString("", to: &out)
            if let target = component.data?.target {
                key("target", &out)
                JSONValue.writeString(target, to: &out)
            }
            key("type", &out)
            JSONValue.writeString("", to: &out)
            writeExtra(component.data?.extra ?? [:], to: &out)
        } else {
            let data = component.data ?? ComponentData()
            var first = true
            if let connected = data.connected {
                key("connected", first: true, &out)
                out.append(contentsOf: Array((connected ? "true" : "false").utf8))
                first = false
            }
            key("source", first: first, &out)
            JSONValue.writeString(data.source, to: &out)
            if let target = data.target {
                key("target", &out)
                JSONValue.writeString(target, to: &out)
            }
            key("type", &out)
            JSONValue.writeString(data.type, to: &out)
            writeExtra(data.extra, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        key("id", &out)
        JSONValue.writeString(component.id, to: &out)
        key("position", &out)
        JSONValue.writeNumber(Double(position), to: &out)
        key("rules", &out)
        // The item limit is a string in every real document; other rules go out as they came in.
        writeObject(component.rules, setting: component.itemLimit.map { [("item_limit", .string(String($0)))] } ?? [], to: &out)
        key("styles", &out)
        writeComponentStyles(component, family: screen.family, to: &out)
        if holdsChildren(component) {
            key("ui_components", &out)
            writeComponents(component.uiComponents, screen: screen, to: &out)
        }
        writeExtra(component.extra, to: &out)
        out.append(UInt8(ascii: "}"))
    }

    /// What `componentStyles` makes, written without copying the styles or making a value of
    /// the members the component's own fields write (`cell_styles`, `family`, `footer`, `header`,
    /// `layout`: in sorted order already), merged in sorted order with the free-form styles.
    static func writeComponentStyles(_ component: Component, family: String, to out: inout [UInt8]) {
        var free = component.styles.keys.filter { !reservedComponentStyles.contains($0) }
        free.sort()
        var next = 0
        var first = true
        func separate() {
            if first { first = false } else { out.append(UInt8(ascii: ",")) }
        }
        /// The free-form members that sort before `name` (all that are left, for nil).
        func freeMembers(before name: String?) {
            while next < free.count, name.map({ free[next] < $0 }) ?? true {
                separate()
                JSONValue.writeString(free[next], to: &out)
                out.append(UInt8(ascii: ":"))
                component.styles[free[next]]?.write(to: &out)
                next += 1
            }
        }
        func fixed(_ name: StaticString, _ text: String) {
            freeMembers(before: text)
            key(name, first: first, &out)
            first = false
        }
        out.append(UInt8(ascii: "{"))
        fixed("cell_styles", "cell_styles")
        out.append(UInt8(ascii: "["))
        for (i, style) in component.cellStyles.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONValue.writeString(style, to: &out)
        }
        out.append(UInt8(ascii: "]"))
        fixed("family", "family")
        JSONValue.writeString(family, to: &out)
        fixed("footer", "footer")
        writeDecoration(component.footer, to: &out)
        fixed("header", "header")
        writeDecoration(component.header, to: &out)
        if let layout = component.layout {
            fixed("layout", "layout")
            JSONValue.writeString(layout, to: &out)
        }
        freeMembers(before: nil)
        out.append(UInt8(ascii: "}"))
    }

    /// A header or footer as published: `style` and `visible`, and any members kept as they are.
    static func writeDecoration(_ decoration: SectionDecoration, to out: inout [UInt8]) {
        guard decoration.extra.isEmpty else {
            decoration.json(document: true).write(to: &out)
            return
        }
        out.append(UInt8(ascii: "{"))
        key("style", first: true, &out)
        StoredForm.optionalString(decoration.style, &out)
        key("visible", &out)
        StoredForm.bool(decoration.visible, &out)
        out.append(UInt8(ascii: "}"))
    }

    /// The object `members` would be with `leaving` removed and `setting` added or replaced, keys
    /// sorted as `JSONValue.write` sorts them, without copying the dictionary (a copy and a
    /// rehash per component had been a good part of writing one).
    static func writeObject(
        _ members: [String: JSONValue], leaving: Set<String> = [], setting: [(String, JSONValue)], to out: inout [UInt8]
    ) {
        var keys: [(key: String, set: Int)] = []
        keys.reserveCapacity(members.count + setting.count)
        for key in members.keys where !leaving.contains(key) && !setting.contains(where: { $0.0 == key }) { keys.append((key, -1)) }
        for (i, member) in setting.enumerated() { keys.append((member.0, i)) }
        keys.sort { $0.key < $1.key }
        out.append(UInt8(ascii: "{"))
        for (n, entry) in keys.enumerated() {
            if n > 0 { out.append(UInt8(ascii: ",")) }
            JSONValue.writeString(entry.key, to: &out)
            out.append(UInt8(ascii: ":"))
            if entry.set >= 0 { setting[entry.set].1.write(to: &out) } else { members[entry.key]?.write(to: &out) }
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Members published as they are, after the modelled ones, in sorted order (their keys are
    /// never modelled ones: the reader refuses those).
    static func writeExtra(_ extra: [String: JSONValue], to out: inout [UInt8]) {
        for (name, value) in extra.sorted(by: { $0.key < $1.key }) {
            out.append(UInt8(ascii: ","))
            JSONValue.writeString(name, to: &out)
            out.append(UInt8(ascii: ":"))
            value.write(to: &out)
        }
    }
}

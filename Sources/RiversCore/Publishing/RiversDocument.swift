/// What the document needs to know about a screen plugin.
public struct ScreenPluginInfo: Sendable, Hashable {
    /// True when the plugin's screens are built from components too (its manifest allows
    /// `ui_components`); otherwise its screens publish `ui_components: []`.
    public var canHaveComponents: Bool

    public init(canHaveComponents: Bool = false) {
        self.canHaveComponents = canHaveComponents
    }
}

/// The published `rivers.json`: a top-level array of screen objects, in the order given, in the
/// shape real Zapp clients read (see `shared/spec/rivers-format.md`).
///
/// Pure: the same input always gives the same value, and `serialized()` sorts object keys, so the
/// same input always gives the same bytes.
public enum RiversDocument {
    /// The keys every screen object has.
    public static let screenKeys: [String] = [
        "id", "name", "type", "home", "screen_type", "data", "styles", "ui_components", "navigations", "hooks",
        "rules", "general", "advertising",
    ]

    /// Keys of a component's `styles` that come from the component's own fields, never from its
    /// free-form style values.
    static let reservedComponentStyles: [String] = ["family", "cell_styles", "header", "footer", "layout"]

    /// The whole document. `families` is part of the signature so the caller hands over the app as
    /// it is; the document itself names each screen's family by id only (clients know the family
    /// rules from the app build), so family contents are not written.
    public static func make(screens: [Screen], families: [String: Family], screenPlugins: [String: ScreenPluginInfo]) -> JSONValue {
        .array(screens.map { screenObject($0, screenPlugins: screenPlugins) })
    }

    /// One screen object.
    public static func screenObject(_ screen: Screen, screenPlugins: [String: ScreenPluginInfo]) -> JSONValue {
        let isPlugin = !Screen.builtInTypes.contains(screen.type)

        let data: JSONValue
        if screen.connected {
            data = ["connected": true, "parent": .string(screen.parent ?? "")]
        } else if isPlugin {
            var values = screen.data
            values.removeValue(forKey: "connected")
            values.removeValue(forKey: "parent")
            data = .object(values)
        } else {
            data = .emptyObject
        }

        var styles = screen.styles
        styles["family"] = .string(screen.family)

        let publishesComponents = !isPlugin || (screenPlugins[screen.type]?.canHaveComponents ?? false)
        let components: [JSONValue] = publishesComponents
            ? componentList(screen.uiComponents, screen: screen)
            : []

        return .object([
            "id": .string(screen.id),
            "name": .string(screen.name),
            "type": .string(screen.type),
            "home": .bool(screen.home),
            "screen_type": .string(screen.screenType),
            "data": data,
            "styles": .object(styles),
            "ui_components": .array(components),
            "navigations": .array(screen.navigations),
            "hooks": hooksObject(screen.hooks),
            "rules": .object(screen.rules),
            "general": .object(screen.general),
            "advertising": .object(screen.advertising),
        ])
    }

    static func componentList(_ list: [Component], screen: Screen) -> [JSONValue] {
        list.enumerated().map { index, component in componentObject(component, position: index + 1, screen: screen) }
    }

    /// One component object; `position` is its 1-based place in its list.
    public static func componentObject(_ component: Component, position: Int, screen: Screen) -> JSONValue {
        var data: [String: JSONValue]
        if screen.connected {
            // A connected screen's components take their items from the sender.
            data = ["source": "", "type": ""]
            if let target = component.data?.target { data["target"] = .string(target) }
        } else if let d = component.data {
            data = d.json.objectValue ?? [:]
        } else {
            data = ["source": "", "type": ""]
        }

        let styles = componentStyles(component, screen: screen)

        var rules: [String: JSONValue] = [:]
        if let limit = component.itemLimit { rules["item_limit"] = .string(String(limit)) }

        var object: [String: JSONValue] = [
            "component_type": .string(component.componentType),
            "id": .string(component.id),
            "position": .number(Double(position)),
            "data": .object(data),
            "styles": .object(styles),
            "rules": .object(rules),
        ]
        if holdsChildren(component) {
            object["ui_components"] = .array(componentList(component.uiComponents, screen: screen))
        }
        return .object(object)
    }

    /// A component's `styles`: its own values, then the members that come from its fields (the
    /// screen's family, cell styles, header, footer, layout).
    static func componentStyles(_ component: Component, screen: Screen) -> [String: JSONValue] {
        var styles = component.styles
        for key in reservedComponentStyles { styles.removeValue(forKey: key) }
        styles["family"] = .string(screen.family)
        styles["cell_styles"] = .array(component.cellStyles.map(JSONValue.string))
        styles["header"] = component.header.json
        styles["footer"] = component.footer.json
        if let layout = component.layout { styles["layout"] = .string(layout) }
        return styles
    }

    /// Groups (built-in types that hold children) always carry `ui_components`; any other component
    /// carries it only when it has children (a plugin component type that holds children).
    static func holdsChildren(_ component: Component) -> Bool {
        !component.uiComponents.isEmpty || (ComponentCatalog.builtIn.types[component.componentType]?.holdsChildren ?? false)
    }

    /// `{"preload_plugins": [...], "postload_plugins": [...]}`, both lists always present.
    static func hooksObject(_ hooks: JSONValue) -> JSONValue {
        var object = hooks.objectValue ?? [:]
        for key in ["preload_plugins", "postload_plugins"] where object[key]?.arrayValue == nil {
            object[key] = .array([])
        }
        return .object(object)
    }
}

extension ScreenPluginInfo {
    /// What a screen plugin's manifest says about its screens.
    public init(manifest: PluginManifest) {
        self.init(canHaveComponents: manifest.canHaveComponents)
    }
}

extension PluginRegistry {
    /// The registered screen plugins (current versions) as `RiversDocument.make` needs them.
    public var screenPluginInfo: [String: ScreenPluginInfo] {
        screenPlugins.mapValues(ScreenPluginInfo.init(manifest:))
    }
}

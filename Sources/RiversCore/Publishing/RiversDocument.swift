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
/// shape real Zapp clients read (see `docs/spec/rivers-format.md`).
///
/// Pure: the same input always gives the same value, and `serialized()` sorts object keys, so the
/// same input always gives the same bytes.
public enum RiversDocument {
    /// The keys every screen object has.
    public static let screenKeys: [String] = [
        "id", "name", "type", "home", "home_offline", "supports_offline", "screen_type", "data", "styles",
        "ui_components", "navigations", "hooks", "rules", "general", "advertising",
    ]

    /// Keys of a component's `styles` that come from the component's own fields, never from its
    /// free-form style values.
    static let reservedComponentStyles = Component.reservedStyles

    /// The whole document as a value (for diffs and tests): the bytes of `bytes(screens:…)`, the
    /// one writer of the format, read back.
    public static func make(screens: [Screen], screenPlugins: [String: ScreenPluginInfo]) -> JSONValue {
        // The writer's output is JSON it wrote itself from finite numbers and valid strings.
        (try? JSONValue.parse(bytes(screens: screens, screenPlugins: screenPlugins))) ?? .array([])
    }

    /// A component's `styles`: its own values, then the members that come from its fields (the
    /// screen's family, cell styles, header, footer, layout).
    static func componentStyles(_ component: Component, screen: Screen) -> [String: JSONValue] {
        var styles = component.styles
        for key in reservedComponentStyles { styles.removeValue(forKey: key) }
        styles["family"] = .string(screen.family)
        styles["cell_styles"] = .array(component.cellStyles.map(JSONValue.string))
        styles["header"] = component.header.json(document: true)
        styles["footer"] = component.footer.json(document: true)
        if let layout = component.layout { styles["layout"] = .string(layout) }
        return styles
    }

    /// Groups (built-in types that hold children) always carry `ui_components`; any other component
    /// carries it only when it has children (a plugin component type that holds children).
    static func holdsChildren(_ component: Component) -> Bool {
        !component.uiComponents.isEmpty || (ComponentCatalog.builtIn.types[component.componentType]?.holdsChildren ?? false)
    }
}

extension ScreenPluginInfo {
    /// What a screen plugin's manifest says about its screens.
    public init(manifest: PluginManifest) {
        self.init(canHaveComponents: manifest.canHaveComponents)
    }
}

extension PluginRegistry {
    /// The registered screen plugins (current versions) as the document writer needs them.
    public var screenPluginInfo: [String: ScreenPluginInfo] {
        screenPlugins.mapValues(ScreenPluginInfo.init(manifest:))
    }
}

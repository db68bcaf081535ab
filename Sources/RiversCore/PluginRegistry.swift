/// An app's registered plugins, every version of each, and what follows from them: component
/// types from `ui_component` plugins, screen types from screen plugins, the values a plugin screen
/// starts with and the checks its values, navigations and hooks must pass. Pure.
public struct PluginRegistry: Sendable {
    public struct Plugin: Sendable {
        public var currentVersion: String
        public var versions: [String: PluginManifest]
        public var current: PluginManifest { versions[currentVersion]! }

        public init(currentVersion: String, versions: [String: PluginManifest]) {
            self.currentVersion = currentVersion
            self.versions = versions
        }
    }

    public var plugins: [String: Plugin]

    public init(_ plugins: [String: Plugin] = [:]) {
        self.plugins = plugins
    }

    /// Navigation types every app has without a plugin.
    /// Navigation types clients build in: the spec's, and those the platform's QA reader looks for.
    public static let builtInNavigationTypes: Set<String> = [
        "navigation_bar", "two_level_rn_menu", "side_menu", "tab_bar_menu",
        "quick_brick_side_menu", "top_menu_bar_tv", "applicaster_toolbar",
    ]
    /// The sections of a plugin screen filled from the manifest's fields.
    public static let valueSections = ["styles", "general", "data", "rules", "advertising"]

    /// The built-in component types and one per `ui_component` plugin.
    public var catalog: ComponentCatalog {
        var types = ComponentType.builtIn
        for (id, plugin) in plugins.sorted(by: { $0.key < $1.key }) where plugin.current.isUIComponent {
            types.append(ComponentType(
                id: id, name: plugin.current.name, axis: .vertical, needsDataSource: false, holdsChildren: false,
                description: plugin.current.description, plugin: id))
        }
        return ComponentCatalog(types)
    }

    /// Screen plugins by identifier (their current manifest).
    public var screenPlugins: [String: PluginManifest] {
        plugins.compactMapValues { $0.current.isScreen ? $0.current : nil }
    }

    /// What a screen body is read against: the app's component types, screen types, navigation
    /// types and hook plugins.
    public var readOptions: Screen.ReadOptions {
        Screen.ReadOptions(
            catalog: catalog, pluginScreenTypes: Set(screenPlugins.keys),
            navigationTypes: Self.builtInNavigationTypes.union(plugins.keys), hookPlugins: Set(plugins.keys))
    }

    /// The manifest a plugin screen uses: the version it was created with, until upgraded.
    public func manifest(for screen: Screen) -> PluginManifest? {
        guard let plugin = plugins[screen.type] else { return nil }
        return plugin.versions[screen.pluginVersion ?? plugin.currentVersion]
    }

    /// A new screen of a screen plugin: the current version, and every section filled from the
    /// fields' initial values where the body does not give a value.
    public func preparingNew(_ screen: Screen) -> Screen {
        guard let plugin = plugins[screen.type], plugin.current.isScreen else { return screen }
        var screen = screen
        let version = screen.pluginVersion ?? plugin.currentVersion
        screen.pluginVersion = version
        guard let manifest = plugin.versions[version] else { return screen }
        func filled(_ values: [String: JSONValue], _ section: String) -> [String: JSONValue] {
            let normalized = manifest.normalizeValues(.object(values), section: section).values.objectValue ?? values
            return manifest.initialValues(section: section).merging(normalized) { _, given in given }
        }
        screen.styles = filled(screen.styles, "styles")
        screen.general = filled(screen.general, "general")
        screen.data = filled(screen.data, "data")
        screen.rules = filled(screen.rules, "rules")
        screen.advertising = filled(screen.advertising, "advertising")
        return screen
    }

    /// Components of `ui_component` plugins get the style values their manifest starts them with,
    /// where they have none of their own, and every plugin value is written in its field's form
    /// (`normalizingValues`). Applied on every write, so it holds for components added and values
    /// changed later too.
    public func fillingComponentStyles(_ screen: Screen) -> Screen {
        var screen = normalizingValues(screen).screen
        screen.uiComponents = screen.uiComponents.map(fillingStyles)
        return screen
    }

    func fillingStyles(_ component: Component) -> Component {
        var component = component
        if let manifest = plugins[component.componentType]?.current, manifest.isUIComponent {
            component.styles = manifest.initialValues(section: "styles").merging(component.styles) { _, given in given }
        }
        component.uiComponents = component.uiComponents.map(fillingStyles)
        return component
    }

    /// Every plugin value of a screen written in its field's form (`ManifestField.valueForm`,
    /// docs/spec/plugin-values.md): a plugin screen's sections and the styles of `ui_component`
    /// plugin components, groups included. Nothing is filled in (an import keeps a document's
    /// values and adds none). The notes say what was rewritten, at pointers into the screen.
    public func normalizingValues(_ screen: Screen) -> (screen: Screen, notes: [FieldError]) {
        var screen = screen
        var notes: [FieldError] = []
        func normalized(_ values: [String: JSONValue], _ section: String, _ manifest: PluginManifest, at pointer: String) -> [String: JSONValue] {
            let (out, found) = manifest.normalizeValues(.object(values), section: section, pointerPrefix: pointer)
            notes += found
            return out.objectValue ?? values
        }
        func components(_ list: [Component], at pointer: String) -> [Component] {
            list.enumerated().map { i, component in
                var component = component
                let p = JSONPointer.join(pointer, i)
                if let manifest = plugins[component.componentType]?.current, manifest.isUIComponent {
                    component.styles = normalized(component.styles, "styles", manifest, at: JSONPointer.join(p, "styles"))
                }
                component.uiComponents = components(component.uiComponents, at: JSONPointer.join(p, "ui_components"))
                return component
            }
        }
        if let manifest = manifest(for: screen), manifest.isScreen {
            screen.styles = normalized(screen.styles, "styles", manifest, at: "/styles")
            screen.general = normalized(screen.general, "general", manifest, at: "/general")
            screen.data = normalized(screen.data, "data", manifest, at: "/data")
            screen.rules = normalized(screen.rules, "rules", manifest, at: "/rules")
            screen.advertising = normalized(screen.advertising, "advertising", manifest, at: "/advertising")
        }
        screen.uiComponents = components(screen.uiComponents, at: "/ui_components")
        return (screen, notes)
    }

    /// Everything about a screen that depends on the registry.
    public func check(_ screen: Screen) -> [FieldError] {
        var errors: [FieldError] = []
        screen.uiComponents.walk(at: "/ui_components") { component, place in
            if let manifest = plugins[component.componentType]?.current, manifest.isUIComponent {
                errors += manifest.validateValues(.object(component.styles), section: "styles", pointerPrefix: place.pointer("styles"))
            }
        }
        if !Screen.builtInTypes.contains(screen.type) {
            if let plugin = plugins[screen.type] {
                if let version = screen.pluginVersion, plugin.versions[version] == nil {
                    errors.append(FieldError("/plugin_version", "plugin \(screen.type) has no version \(version) (it has \(plugin.versions.keys.sorted().listed()))"))
                } else if let manifest = manifest(for: screen) {
                    let values: [(String, [String: JSONValue])] = [
                        ("styles", screen.styles), ("general", screen.general), ("data", screen.data),
                        ("rules", screen.rules), ("advertising", screen.advertising),
                    ]
                    for (section, object) in values {
                        var withoutFamily = object
                        if section == "styles" { withoutFamily.removeValue(forKey: "family") }
                        errors += manifest.validateValues(.object(withoutFamily), section: section, pointerPrefix: "/" + section)
                    }
                    if !manifest.canHaveComponents, !screen.uiComponents.isEmpty {
                        errors.append(FieldError("/ui_components", "screens of plugin \(screen.type) hold no components"))
                    }
                }
            } else {
                errors.append(FieldError("/type", "no screen plugin \(screen.type) is registered in this app"))
            }
        } else if screen.pluginVersion != nil {
            errors.append(FieldError("/plugin_version", "only plugin screens have a plugin version"))
        }
        return errors
    }

    /// What a plugin deletion would break: screens of its type, components of its type, hooks.
    public func uses(of identifier: String, in screens: [Screen]) -> [ResourceUse] {
        var users: [ResourceUse] = []
        for screen in screens {
            var via: [String] = []
            if screen.type == identifier { via.append("type") }
            screen.uiComponents.walk(at: "") { component, _ in
                if component.componentType == identifier, !via.contains("component") { via.append("component") }
            }
            if (screen.hooks.preloadPlugins + screen.hooks.postloadPlugins).contains(where: { $0.identifier == identifier }) {
                via.append("hook")
            }
            if screen.navigations.contains(where: { $0.navigationType == identifier }) { via.append("navigation") }
            if !via.isEmpty {
                users.append(ResourceUse(kind: .screen, id: screen.id, name: screen.name, via: .ways(via)))
            }
        }
        return users
    }
}

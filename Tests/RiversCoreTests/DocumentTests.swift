import Testing

@testable import RiversCore

@Suite struct DocumentTests {
    typealias S = PublishSample

    static func document(_ screens: [Screen] = S.app(), plugins: [String: ScreenPluginInfo] = [:]) -> JSONValue {
        RiversDocument.make(screens: screens, screenPlugins: plugins)
    }

    static let allScreenKeys: Set<String> = [
        "id", "name", "type", "home", "home_offline", "supports_offline", "screen_type", "data", "styles", "ui_components",
        "navigations", "hooks", "rules", "general", "advertising",
    ]

    @Test func topLevelIsAnArrayOfScreensInTheGivenOrder() throws {
        let doc = Self.document()
        let screens = try #require(doc.arrayValue)
        #expect(screens.map { $0["id"] } == [.string(S.homeId), .string(S.showId), .string(S.settingsId)])
        let reversed = Self.document(S.app().reversed())
        #expect(reversed.arrayValue?.map { $0["id"] } == [.string(S.settingsId), .string(S.showId), .string(S.homeId)])
    }

    @Test func rootScreenKeyByKey() throws {
        let screen = try #require(Self.document().at(0)?.objectValue)
        #expect(Set(screen.keys) == Self.allScreenKeys)
        #expect(screen["id"] == .string(S.homeId))
        #expect(screen["name"] == .string("Home"))
        #expect(screen["type"] == .string("general_content"))
        #expect(screen["home"] == .bool(true))
        #expect(screen["home_offline"] == .bool(false), "written always, false by default")
        #expect(screen["supports_offline"] == .bool(false))
        #expect(screen["screen_type"] == .string("home_1"))
        #expect(screen["data"] == .object([:]))
        #expect(screen["styles"] == ["background_color": "#FF000000", "family": "FAMILY_1"])
        #expect(screen["rules"] == ["refresh": "pull"])
        #expect(screen["general"] == ["nav_bar_id": "nb1"])
        #expect(screen["advertising"] == ["display_interstitial_once": .bool(true)])
        #expect(screen["hooks"] == ["preload_plugins": [], "postload_plugins": []])
        #expect(screen["navigations"] == .array(S.home().navigations.map { $0.toJSON(document: true) }))

        let components = try #require(screen["ui_components"]?.arrayValue)
        #expect(components.count == 3)
        let hero = try #require(components[0].objectValue)
        #expect(Set(hero.keys) == ["component_type", "id", "position", "data", "styles", "rules"])
        #expect(hero["component_type"] == .string("hero"))
        #expect(hero["id"] == .string("hero-1"))
        #expect(hero["position"] == .number(1))
        #expect(hero["data"] == [
            "source": "3119", "type": "APPLICASTER_COLLECTION", "target": .string(S.showId), "connected": .bool(false),
        ])
        #expect(hero["styles"] == [
            "family": "FAMILY_1", "cell_styles": ["HERO_CELL_1"], "layout": "HERO_1",
            "header": ["visible": .bool(true), "style": "HEADER_1"], "footer": ["visible": .bool(false), "style": .null],
        ])
        #expect(hero["rules"] == ["item_limit": .string("6")])

        let grid = try #require(components[1].objectValue)
        #expect(grid["position"] == .number(2))
        #expect(grid["data"] == ["source": "3139", "type": "APPLICASTER_COLLECTION"])
        #expect(grid["styles"]?["layout"] == nil)
        #expect(grid["styles"]?["cell_styles"] == ["GRID_1"])
        #expect(grid["rules"] == .object([:]))

        let banner = try #require(components[2].objectValue)
        #expect(banner["position"] == .number(3))
        #expect(banner["data"] == ["source": "", "type": ""])
        #expect(banner["styles"]?["cell_styles"] == .array([]))
        #expect(banner["styles"]?["header"] == ["visible": .bool(false), "style": .null])
    }

    @Test func connectedScreenKeyByKey() throws {
        let screen = try #require(Self.document().at(1)?.objectValue)
        #expect(Set(screen.keys) == Self.allScreenKeys)
        #expect(screen["home"] == .bool(false))
        #expect(screen["data"] == ["connected": .bool(true), "parent": .string(S.homeId)])
        #expect(screen["styles"] == ["family": "FAMILY_1"])
        #expect(screen["navigations"] == .array([]))
        let components = try #require(screen["ui_components"]?.arrayValue)
        // Sources are blanked; `connected` and the target stay.
        #expect(components[0]["data"] == ["connected": true, "source": "", "type": "", "target": .string(S.homeId)])
        #expect(components[0]["rules"] == ["item_limit": "1"])
        #expect(components[1]["data"] == ["source": "", "type": ""])
        #expect(components[1]["styles"]?["cell_body_component_type"] == "list")
        #expect(components[1]["styles"]?["cell_body_styles"] == ["LIST_2"])
        #expect(components[1]["styles"]?["family"] == "FAMILY_1")
    }

    @Test func connectedScreenDataIsExactlyConnectedAndParent() {
        var screen = S.show()
        screen.data = ["feed": "x", "connected": false]
        let doc = Self.document([S.home(), screen])
        #expect(doc.at(1, "data") == ["connected": .bool(true), "parent": .string(S.homeId)])
    }

    @Test func rootScreenDataIsEmptyEvenWithStoredValues() {
        var screen = S.home()
        screen.data = ["leftover": "x"]
        #expect(Self.document([screen]).at(0, "data") == .object([:]))
    }

    @Test func pluginScreenMatchesTheFieldEntry() throws {
        let entry = try #require(try PublishFixtures.json("devportal_screen_plugin_rivers_entry.json").objectValue)
        let screen = Screen(
            id: "7e8bca21-5f98-4f1b-8541-ce084fffffa6", name: "settings_contact_us_legacy", type: "settings_contact_us_legacy",
            screenType: "settings_contact_us_legacy_1", family: "FAMILY_1", styles: ["presentation": "push"],
            uiComponents: [Component(id: "x", componentType: "grid")])
        let published = try #require(Self.document([screen]).at(0)?.objectValue)
        #expect(Set(entry.keys).isSubset(of: Set(published.keys)))
        #expect(Set(published.keys) == Self.allScreenKeys)
        for (key, value) in entry {
            #expect(published[key] == value, "key \(key)")
        }
        #expect(published["ui_components"] == .array([]))
        #expect(published["home"] == .bool(false))
        #expect(published["styles"]?["presentation"] == "push")
    }

    @Test func pluginScreenDataAndComponents() {
        let doc = Self.document()
        #expect(doc.at(2, "type") == "settings_contact_us_legacy")
        #expect(doc.at(2, "data") == ["feed": "abc"])
        #expect(doc.at(2, "ui_components") == .array([]))
        #expect(doc.at(2, "styles") == ["presentation": "push", "family": "FAMILY_1"])
        // A plugin whose screens hold components publishes them.
        let withComponents = Self.document(plugins: ["settings_contact_us_legacy": ScreenPluginInfo(canHaveComponents: true)])
        #expect(withComponents.at(2, "ui_components")?.arrayValue?.count == 1)
        #expect(withComponents.at(2, "ui_components", 0, "id") == "plugin-grid")
        #expect(withComponents.at(2, "ui_components", 0, "styles", "family") == "FAMILY_1")
        let without = Self.document(plugins: ["settings_contact_us_legacy": ScreenPluginInfo(canHaveComponents: false)])
        #expect(without.at(2, "ui_components") == .array([]))
    }

    @Test func screenPluginInfoFromRealManifests() throws {
        let withComponents = try PluginManifest.parse(try PublishFixtures.json("devportal_snippet_screen-with-ui-components.json"))
        let without = try PluginManifest.parse(try PublishFixtures.json("manifest_zee5_home_screen_native_ios.json"))
        let registry = PluginRegistry([
            withComponents.identifier: .init(currentVersion: withComponents.manifestVersion, versions: [withComponents.manifestVersion: withComponents]),
            without.identifier: .init(currentVersion: without.manifestVersion, versions: [without.manifestVersion: without]),
        ])
        let info = registry.screenPluginInfo
        #expect(info == [withComponents.identifier: ScreenPluginInfo(canHaveComponents: true), without.identifier: ScreenPluginInfo(canHaveComponents: false)])
        let screens = [
            Screen(id: S.homeId, name: "A", type: withComponents.identifier, screenType: "a", home: true, family: "FAMILY_1",
                   uiComponents: [Component(id: "c", componentType: "banner")]),
            Screen(id: S.showId, name: "B", type: without.identifier, screenType: "b", family: "FAMILY_1",
                   uiComponents: [Component(id: "d", componentType: "banner")]),
        ]
        let doc = RiversDocument.make(screens: screens, screenPlugins: info)
        #expect(doc.at(0, "ui_components")?.arrayValue?.count == 1)
        #expect(doc.at(1, "ui_components") == .array([]))
    }

    @Test func favoritesIsBuiltInNotAPlugin() {
        let screen = Screen(id: S.otherId, name: "Favs", type: "favorites", screenType: "favs_9", family: "FAMILY_1",
                            data: ["x": 1], uiComponents: [Component(id: "f", componentType: "list")])
        let doc = Self.document([screen])
        #expect(doc.at(0, "ui_components")?.arrayValue?.count == 1)
        #expect(doc.at(0, "data") == .object([:]))
    }

    @Test func groupsCarryTheirChildrenOthersDoNot() throws {
        var screen = S.home()
        screen.uiComponents = [
            Component(id: "g", componentType: "group", uiComponents: [
                Component(id: "c1", componentType: "list", cellStyles: ["LIST_2"], data: ComponentData(source: "1", type: "APPLICASTER_COLLECTION")),
                Component(id: "c2", componentType: "grid", itemLimit: 12, data: ComponentData(source: "2", type: "APPLICASTER_COLLECTION")),
            ]),
            Component(id: "empty-group", componentType: "group"),
            Component(id: "l", componentType: "list"),
        ]
        let doc = Self.document([screen])
        let children = try #require(doc.at(0, "ui_components", 0, "ui_components")?.arrayValue)
        #expect(children.map { $0["id"] } == ["c1", "c2"])
        #expect(children.map { $0["position"] } == [.number(1), .number(2)])
        #expect(children[1]["rules"] == ["item_limit": "12"])
        #expect(children[0]["styles"]?["family"] == "FAMILY_1")
        #expect(doc.at(0, "ui_components", 1, "ui_components") == .array([]))
        #expect(doc.at(0, "ui_components", 2)?["ui_components"] == nil)
    }

    @Test func componentFamilyIsAlwaysTheScreens() {
        var screen = S.home()
        screen.family = "FAMILY_7"
        screen.styles["family"] = "FAMILY_OLD"
        screen.uiComponents = [Component(id: "c", componentType: "banner", styles: ["family": "FAMILY_9", "cell_styles": "x", "color": "#FF00FF00"])]
        let doc = Self.document([screen])
        #expect(doc.at(0, "styles", "family") == "FAMILY_7")
        #expect(doc.at(0, "ui_components", 0, "styles", "family") == "FAMILY_7")
        #expect(doc.at(0, "ui_components", 0, "styles", "cell_styles") == .array([]))
        #expect(doc.at(0, "ui_components", 0, "styles", "color") == "#FF00FF00")
    }

    @Test func hooksAlwaysHaveBothLists() {
        var screen = S.home()
        screen.hooks = hooks(["preload_plugins": [["identifier": "login", "type": "login", "weight": 1]]])
        let doc = Self.document([screen])
        #expect(doc.at(0, "hooks") == ["preload_plugins": [["identifier": "login", "type": "login", "weight": 1]], "postload_plugins": []])
        screen.hooks = ScreenHooks()
        #expect(Self.document([screen]).at(0, "hooks") == ["preload_plugins": [], "postload_plugins": []])
    }

    @Test func itemLimitIsAStringAndZeroIsKept() {
        var screen = S.home()
        screen.uiComponents[0].itemLimit = 0
        let doc = Self.document([screen])
        #expect(doc.at(0, "ui_components", 0, "rules", "item_limit") == .string("0"))
        #expect(doc.at(0, "ui_components", 0, "rules", "item_limit")?.numberValue == nil)
        #expect(doc.serializedString().contains("\"item_limit\":\"0\""))
    }

    /// Every `home`, `connected` and `visible` is a JSON boolean; every `id`, `parent`, `target` and
    /// `item_limit` a string, anywhere in the document. In navigations, the spec writes unset
    /// values (a nav item's data, a navigation's name) as null.
    @Test func typesAreExactEverywhere() {
        let doc = Self.document()
        var counts: [String: Int] = [:]
        func walk(_ value: JSONValue, inNavigation: Bool = false) {
            switch value {
            case .object(let o):
                for (key, v) in o {
                    switch key {
                    case _ where inNavigation && v.isNull: break
                    case "home", "connected", "visible":
                        #expect(v.boolValue != nil, "\(key) = \(v)")
                        counts[key, default: 0] += 1
                    case "id", "parent", "target", "item_limit", "component_type", "screen_type", "name", "type", "source":
                        #expect(v.stringValue != nil, "\(key) = \(v)")
                        counts[key, default: 0] += 1
                    default: break
                    }
                    walk(v, inNavigation: inNavigation || key == "navigations")
                }
            case .array(let a): a.forEach { walk($0, inNavigation: inNavigation) }
            default: break
            }
        }
        walk(doc)
        #expect(counts["home"] == 3)
        #expect(counts["item_limit"] == 2)
        #expect((counts["connected"] ?? 0) >= 2)
        #expect((counts["target"] ?? 0) >= 2)
        #expect(doc.serializedString().contains("\"home\":true"))
        #expect(doc.serializedString().contains("\"connected\":true"))
    }

    @Test func deterministicBytes() {
        let first = Self.document().serialized()
        let second = Self.document().serialized()
        #expect(first == second)
        // Same screens rebuilt from scratch (dictionaries built in another order) give the same bytes.
        var home = S.home()
        home.styles = [:]
        home.styles["family"] = "ignored"
        home.styles["background_color"] = "#FF000000"
        home.styles.removeValue(forKey: "family")
        let third = RiversDocument.make(screens: [home, S.show(), S.settings()], screenPlugins: [:]).serialized()
        #expect(first == third)
        // And a change shows.
        home.name = "Home 2"
        #expect(RiversDocument.make(screens: [home, S.show(), S.settings()], screenPlugins: [:]).serialized() != first)
    }

    @Test func publishedDocumentParsesBack() throws {
        let doc = Self.document()
        #expect(try JSONValue.parse(doc.serialized()) == doc)
    }

    @Test("home_offline and supports_offline: read, shown and published as booleans")
    func offlineFlags() throws {
        var home = S.home()
        home.homeOffline = true
        home.supportsOffline = true
        let screen = try #require(RiversDocument.make(screens: [home], screenPlugins: [:]).at(0))
        #expect(screen["home_offline"] == .bool(true) && screen["supports_offline"] == .bool(true))
        let problems = Problems()
        let read = Screen.read(home.json, problems: problems)
        #expect(read?.homeOffline == true && read?.supportsOffline == true, "\(problems.errors)")
        let bad = Problems()
        _ = Screen.read(home.json.mergePatched(with: ["home_offline": "true"]), problems: bad)
        #expect(bad.errors.map(\.pointer) == ["/home_offline"])
    }

    @Test("component rules besides item_limit and component advertising are published as they are")
    func componentRulesAndAdvertising() throws {
        var home = S.home()
        home.uiComponents[0].rules = ["web_page_shows_navigation": true, "datasource_limit": "10", "vendor_rule": ["a": 1]]
        home.uiComponents[0].itemLimit = 6
        home.uiComponents[0].advertising = ["banner_ad_unit_id": "u/1"]
        let component = try #require(RiversDocument.make(screens: [home], screenPlugins: [:]).at(0)?["ui_components"]?.at(0))
        #expect(component["rules"] == ["web_page_shows_navigation": true, "datasource_limit": "10", "vendor_rule": ["a": 1], "item_limit": "6"])
        #expect(component["advertising"] == ["banner_ad_unit_id": "u/1"])
        // Without advertising the key is left out, as before.
        #expect(RiversDocument.make(screens: [S.home()], screenPlugins: [:]).at(0)?["ui_components"]?.at(0)?["advertising"] == nil)
        // Read through the API's reader: kept, and a rule with a type clients know is checked.
        let problems = Problems()
        let read = Component.readList([home.uiComponents[0].json], at: "/c", catalog: .builtIn, problems: problems)
        #expect(read.first?.rules == home.uiComponents[0].rules && read.first?.advertising == home.uiComponents[0].advertising, "\(problems.errors)")
        let bad = Problems()
        _ = Component.readList([home.uiComponents[0].json.mergePatched(with: ["rules": ["web_page_shows_navigation": "yes"]])], at: "/c", catalog: .builtIn, problems: bad)
        #expect(bad.errors.map(\.pointer) == ["/c/0/rules/web_page_shows_navigation"])
    }
}

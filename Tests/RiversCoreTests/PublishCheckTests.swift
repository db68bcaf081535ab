import Testing

@testable import RiversCore

@Suite struct PublishCheckTests {
    typealias S = PublishSample

    static func check(_ screens: [Screen], families: [String: Family] = S.families, types: Set<String> = S.pluginTypes) -> [FieldError] {
        PublishCheck.problems(screens: screens, families: families, knownScreenTypes: types, catalog: .builtIn)
    }

    static func pointers(_ errors: [FieldError]) -> [String] { errors.map(\.pointer) }

    @Test func aValidAppHasNoProblems() {
        #expect(Self.check(S.app()) == [])
    }

    @Test func noScreens() {
        let errors = Self.check([])
        #expect(Self.pointers(errors) == ["/screens"])
        #expect(errors.first?.message.contains("no screens") == true)
    }

    @Test func noHomeScreen() {
        var home = S.home()
        home.home = false
        let errors = Self.check([home, S.show()])
        #expect(Self.pointers(errors) == ["/screens"])
        #expect(errors.first?.message.contains("home") == true)
    }

    @Test func moreThanOneHomeScreen() {
        var settings = S.settings()
        settings.home = true
        #expect(Self.pointers(Self.check([S.home(), S.show(), settings])) == [
            "/screens/\(S.homeId)/home", "/screens/\(S.settingsId)/home",
        ])
    }

    @Test func screenWithoutFamilyOrWithUnknownFamily() {
        var home = S.home()
        home.family = ""
        var settings = S.settings()
        settings.family = "FAMILY_2"
        let errors = Self.check([home, S.show(), settings])
        #expect(Self.pointers(errors) == ["/screens/\(S.homeId)/family", "/screens/\(S.settingsId)/family"])
        #expect(errors[1].message.contains("FAMILY_2"))
    }

    @Test func unknownCellStylesPointAtTheEntry() {
        var home = S.home()
        home.uiComponents[1].cellStyles = ["GRID_1", "GRID_9"]
        home.uiComponents.append(Component(id: "g", componentType: "group", uiComponents: [
            Component(id: "in", componentType: "banner", cellStyles: ["NOPE"]),
        ]))
        let errors = Self.check([home, S.show(), S.settings()])
        #expect(Self.pointers(errors) == [
            "/screens/\(S.homeId)/ui_components/1/cell_styles/1",
            "/screens/\(S.homeId)/ui_components/3/ui_components/0/cell_styles/0",
        ])
        #expect(errors[0].message.contains("GRID_9"))
    }

    /// A real document has a root-screen grid with an empty source: apps read it, so it
    /// publishes, with a warning (issue 11, point 9).
    @Test func componentWithoutADataSourceOnARootScreenIsAWarning() {
        var home = S.home()
        home.uiComponents[1].data = nil
        home.uiComponents.append(Component(id: "l", componentType: "list", data: ComponentData(source: "", type: "")))
        // Needs no source: a banner; on a connected screen nothing needs one.
        home.uiComponents.append(Component(id: "b", componentType: "banner"))
        var show = S.show()
        show.uiComponents.append(Component(id: "s", componentType: "grid"))
        let screens = [home, show, S.settings()]
        #expect(Self.check(screens) == [])
        let warnings = PublishCheck.warnings(screens: screens, catalog: .builtIn)
        #expect(Self.pointers(warnings) == [
            "/screens/\(S.homeId)/ui_components/1/data", "/screens/\(S.homeId)/ui_components/3/data",
        ])
        #expect(warnings[0].message.contains("no data source"))
    }

    /// Data source types stay open, but one no client knows is a warning naming the known ones
    /// (issue 11, point 8); so is a rule no client is known to read (point 3).
    @Test func unknownDataSourceTypesAndRulesAreWarnings() {
        var home = S.home()
        home.uiComponents[1].data = ComponentData(source: "1", type: "JSON_FEED")
        home.uiComponents[0].rules = ["web_page_shows_navigation": true, "datasource_limit": 10, "sparkle": "yes"]
        let screens = [home, S.show(), S.settings()]
        #expect(Self.check(screens) == [])
        let warnings = PublishCheck.warnings(screens: screens, catalog: .builtIn)
        #expect(Self.pointers(warnings) == [
            "/screens/\(S.homeId)/ui_components/0/rules/sparkle", "/screens/\(S.homeId)/ui_components/1/data/type",
        ])
        #expect(warnings[1].message.contains("JSON_FEED") && warnings[1].message.contains("APPLICASTER_COLLECTION"))
        // A data-source plugin's identifier is a known type.
        #expect(Self.pointers(PublishCheck.warnings(screens: screens, catalog: .builtIn, plugins: ["JSON_FEED"])) == [
            "/screens/\(S.homeId)/ui_components/0/rules/sparkle",
        ])
        #expect(PublishCheck.warnings(screens: S.app(), catalog: .builtIn) == [])
    }

    @Test func unknownComponentType() {
        var home = S.home()
        home.uiComponents.append(Component(id: "x", componentType: "carousel_3d"))
        #expect(Self.pointers(Self.check([home, S.show(), S.settings()])) == ["/screens/\(S.homeId)/ui_components/3/component_type"])
    }

    @Test func connectedScreenWithoutParent() {
        var show = S.show()
        show.parent = nil
        let errors = Self.check([S.home(), show, S.settings()])
        #expect(Self.pointers(errors) == ["/screens/\(S.showId)/parent"])
        #expect(errors[0].message.contains("needs a parent"))
    }

    @Test func connectedScreenWithMissingParent() {
        var show = S.show()
        show.parent = S.missingId
        let errors = Self.check([S.home(), show, S.settings()])
        #expect(Self.pointers(errors) == ["/screens/\(S.showId)/parent"])
        #expect(errors[0].message.contains(S.missingId))
    }

    @Test func connectedHomeScreen() {
        var home = S.home()
        home.connected = true
        home.parent = S.settingsId
        let errors = Self.check([home, S.show(), S.settings()])
        #expect(Self.pointers(errors) == ["/screens/\(S.homeId)/home"])
    }

    @Test func componentTargetToAMissingScreen() {
        var home = S.home()
        home.uiComponents[1].data?.target = S.missingId
        home.uiComponents.append(Component(id: "g", componentType: "group", uiComponents: [
            Component(id: "in", componentType: "banner", data: ComponentData(target: S.missingId)),
        ]))
        #expect(Self.pointers(Self.check([home, S.show(), S.settings()])) == [
            "/screens/\(S.homeId)/ui_components/1/data/target",
            "/screens/\(S.homeId)/ui_components/3/ui_components/0/data/target",
        ])
    }

    @Test func navItemTargetsAtAnyDepth() {
        var home = S.home()
        home.navigations.append(navigation([
            "id": "menu", "category": "menu", "navigation_type": "two_level_rn_menu",
            "nav_items": [
                ["id": "a", "title": "A", "type": "button", "data": ["target": .string(S.settingsId)]],
                ["id": "b", "title": "B", "type": "nested_menu", "nav_items": [
                    ["id": "b1", "title": "B1", "type": "button", "data": ["target": .string(S.showId.uppercased())]],
                    ["id": "b2", "title": "B2", "type": "button", "data": ["target": .string(S.missingId)]],
                ]],
                ["id": "c", "title": "C", "type": "button", "data": ["type": "WEB_URL", "source": "https://example.com"]],
            ],
        ]))
        #expect(Self.pointers(Self.check([home, S.show(), S.settings()])) == [
            "/screens/\(S.homeId)/navigations/1/nav_items/1/nav_items/1/data/target",
        ])
    }

    @Test func hookScreenIdToAMissingScreen() {
        var home = S.home()
        home.hooks = hooks([
            "preload_plugins": [["identifier": "a", "type": "a", "weight": 1, "screen_id": .string(S.settingsId)]],
            "postload_plugins": [["identifier": "b", "type": "b", "weight": 1, "screen_id": .string(S.missingId)]],
        ])
        #expect(Self.pointers(Self.check([home, S.show(), S.settings()])) == ["/screens/\(S.homeId)/hooks/postload_plugins/0/screen_id"])
    }

    @Test func cycleOfParentsIsReportedOncePerScreenOnIt() {
        var a = S.show()
        a.parent = S.otherId
        var b = Screen(id: S.otherId, name: "B", screenType: "b_5", connected: true, parent: S.showId, family: "FAMILY_1")
        // C hangs off the cycle without being on it.
        let c = Screen(id: "55555555-5555-4555-8555-555555555555", name: "C", screenType: "c_6", connected: true, parent: S.showId, family: "FAMILY_1")
        var errors = Self.check([S.home(), a, b, c, S.settings()])
        #expect(Self.pointers(errors) == ["/screens/\(S.showId)/parent", "/screens/\(S.otherId)/parent"])
        #expect(errors[0].message.contains("cycle"))

        // A screen that is its own parent.
        b.parent = S.otherId
        errors = Self.check([S.home(), S.show(), b, S.settings()])
        #expect(Self.pointers(errors) == ["/screens/\(S.otherId)/parent"])
    }

    @Test func duplicateScreenType() {
        var settings = S.settings()
        settings.screenType = "home_1"
        var show = S.show()
        show.screenType = ""
        let errors = Self.check([S.home(), show, settings])
        #expect(Self.pointers(errors) == ["/screens/\(S.showId)/screen_type", "/screens/\(S.settingsId)/screen_type"])
        #expect(errors[1].message.contains("home_1"))
    }

    @Test func pluginScreenOfAnUnknownType() {
        let errors = Self.check(S.app(), types: Screen.builtInTypes)
        #expect(Self.pointers(errors) == ["/screens/\(S.settingsId)/type"])
        #expect(errors[0].message.contains("settings_contact_us_legacy"))
    }

    @Test func duplicateScreenIds() {
        var copy = S.settings()
        copy.screenType = "settings_copy"
        #expect(Self.pointers(Self.check(S.app() + [copy])) == ["/screens/\(S.settingsId)/id"])
    }

    @Test func everyProblemIsReportedAtOnce() {
        var home = S.home()
        home.home = false
        home.family = "NOPE"
        home.uiComponents[0].data?.target = S.missingId
        var show = S.show()
        show.parent = nil
        let errors = Self.check([home, show, S.settings()], types: [])
        #expect(Self.pointers(errors) == [
            "/screens",
            "/screens/\(S.homeId)/family",
            "/screens/\(S.homeId)/ui_components/0/data/target",
            "/screens/\(S.showId)/parent",
            "/screens/\(S.settingsId)/type",
        ])
    }
}

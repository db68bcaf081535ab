import Testing

@testable import RiversCore

@Suite struct DocumentDiffTests {
    typealias S = PublishSample

    static func document(_ screens: [Screen]) -> JSONValue {
        RiversDocument.make(screens: screens, screenPlugins: [:])
    }

    static func ids(_ list: JSONValue?) -> [String] {
        (list?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
    }

    @Test func identicalDocumentsHaveNoChanges() {
        let doc = Self.document(S.app())
        let diff = DocumentDiff.diff(from: doc, to: doc)
        #expect(diff == ["screens": ["added": [], "removed": [], "changed": []], "unchanged": 3])
    }

    @Test func keyOrderDoesNotMatter() throws {
        let a = try PublishFixtures.parse(#"[{"id": "s1", "name": "A", "styles": {"family": "F", "x": 1}, "ui_components": [{"id": "c", "component_type": "list", "position": 1}]}]"#)
        let b = try PublishFixtures.parse(#"[{"ui_components": [{"position": 1, "component_type": "list", "id": "c"}], "styles": {"x": 1, "family": "F"}, "name": "A", "id": "s1"}]"#)
        #expect(DocumentDiff.diff(from: a, to: b)["unchanged"] == 1)
        #expect(DocumentDiff.diff(from: a, to: b).at("screens", "changed") == .array([]))
    }

    @Test func addedAndRemovedScreens() {
        let before = Self.document([S.home(), S.show()])
        let after = Self.document([S.home(), S.settings()])
        let diff = DocumentDiff.diff(from: before, to: after)
        #expect(diff.at("screens", "added") == [["id": .string(S.settingsId), "name": "settings_contact_us_legacy"]])
        #expect(diff.at("screens", "removed") == [["id": .string(S.showId), "name": "Show"]])
        #expect(diff.at("screens", "changed") == .array([]))
        #expect(diff["unchanged"] == 1)
    }

    @Test func changedScreenKeys() throws {
        var home = S.home()
        home.name = "Start"
        home.styles["background_color"] = "#FFFFFFFF"
        home.rules = [:]
        let diff = DocumentDiff.diff(from: Self.document(S.app()), to: Self.document([home, S.show(), S.settings()]))
        let changed = try #require(diff.at("screens", "changed")?.arrayValue)
        #expect(changed.count == 1)
        #expect(changed[0]["id"] == .string(S.homeId))
        #expect(changed[0]["name"] == "Start")
        #expect(changed[0]["changed_keys"] == ["name", "rules", "styles"])
        #expect(changed[0]["components"] == ["added": [], "removed": [], "changed": [], "moved": []])
        #expect(diff["unchanged"] == 2)
    }

    @Test func componentsAddedRemovedChangedAndMoved() throws {
        var home = S.home()
        let hero = home.uiComponents.removeFirst()         // grid-1 and banner-1 move up
        _ = hero
        home.uiComponents[0].itemLimit = 20                // grid-1 changes its rules
        home.uiComponents[0].cellStyles = ["GRID_1", "GRID_1"]
        home.uiComponents.append(Component(id: "new-list", componentType: "list", data: ComponentData(source: "9", type: "APPLICASTER_COLLECTION")))
        let diff = DocumentDiff.diff(from: Self.document(S.app()), to: Self.document([home, S.show(), S.settings()]))
        let screen = try #require(diff.at("screens", "changed", 0))
        #expect(screen["changed_keys"] == ["ui_components"])
        let components = try #require(screen["components"])
        #expect(components["added"] == [["id": "new-list", "component_type": "list"]])
        #expect(components["removed"] == [["id": "hero-1", "component_type": "hero"]])
        #expect(components["changed"] == [["id": "grid-1", "component_type": "grid", "changed_keys": ["rules", "styles"]]])
        #expect(components["moved"] == ["grid-1", "banner-1"])
    }

    @Test func aMoveAloneIsNotAChange() throws {
        var home = S.home()
        home.uiComponents.swapAt(0, 2)
        let diff = DocumentDiff.diff(from: Self.document(S.app()), to: Self.document([home, S.show(), S.settings()]))
        let components = try #require(diff.at("screens", "changed", 0, "components"))
        #expect(components["changed"] == .array([]))
        #expect(components["added"] == .array([]))
        #expect(components["moved"] == ["banner-1", "hero-1"])
    }

    @Test func childrenOfGroupsAreCompared() throws {
        var home = S.home()
        home.uiComponents = [Component(id: "g", componentType: "group", uiComponents: [
            Component(id: "a", componentType: "banner"), Component(id: "b", componentType: "banner"),
        ])]
        var after = home
        after.uiComponents[0].uiComponents[1].header = SectionDecoration(visible: true, style: "H")
        after.uiComponents[0].uiComponents.append(Component(id: "c", componentType: "banner"))
        let diff = DocumentDiff.diff(from: Self.document([home]), to: Self.document([after]))
        let components = try #require(diff.at("screens", "changed", 0, "components"))
        #expect(components["added"] == [["id": "c", "component_type": "banner"]])
        #expect(components["changed"] == [["id": "b", "component_type": "banner", "changed_keys": ["styles"]]])
        #expect(components["moved"] == .array([]))
        // The group itself only changed in its children, which is not a change of its own keys.
        #expect(Self.ids(components["changed"]) == ["b"])
    }

    @Test func notArraysCountAsEmpty() {
        let doc = Self.document([S.home()])
        let diff = DocumentDiff.diff(from: .null, to: doc)
        #expect(Self.ids(diff.at("screens", "added")) == [S.homeId])
        #expect(diff["unchanged"] == 0)
    }
}

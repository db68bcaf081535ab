import Foundation
import Testing

@testable import RiversCore

/// The fixtures, found the same way as the plugin tests find them.
enum PublishFixtures {
    static func bytes(_ name: String) throws -> [UInt8] { try PluginFixtures.bytes(name) }
    static func json(_ name: String) throws -> JSONValue { try PluginFixtures.json(name) }
    static func parse(_ text: String) throws -> JSONValue { try PluginFixtures.parse(text) }
    static func directory() throws -> URL { try PluginFixtures.directory() }
    static func text(_ name: String) throws -> String {
        String(decoding: try bytes(name), as: UTF8.self)
    }

    /// The valid rivers documents from the field that the import must accept.
    static let importable = ["devportal_API_md_example.json", "devportal_android_md_example.json"]
    /// Documentation examples that are not valid JSON as printed.
    static let broken = [
        "devportal_Rivers_md_example.json.txt",
        "devportal_Rivers_md_2018-03_example.json.txt",
        "devportal_rootmenu_rivers_example.json.txt",
    ]
}

enum PublishSample {
    static let homeId = "11111111-1111-4111-8111-111111111111"
    static let showId = "22222222-2222-4222-8222-222222222222"
    static let settingsId = "33333333-3333-4333-8333-333333333333"
    static let otherId = "44444444-4444-4444-8444-444444444444"
    static let missingId = "99999999-9999-4999-8999-999999999999"

    static let family = Family(
        id: "FAMILY_1", name: "Phones", referenceSize: Size(width: 375, height: 667),
        cellStyles: [
            CellStyle(id: "GRID_1", width: .columns(2), height: .aspectRatio(1.7778)),
            CellStyle(id: "HERO_CELL_1", width: .columns(1), height: .aspectRatio(1.7778)),
            CellStyle(id: "LIST_2", width: .columns(1), height: .points(80)),
        ])
    static let families = ["FAMILY_1": family]

    static func home() -> Screen {
        Screen(
            id: homeId, name: "Home", screenType: "home_1", home: true, family: "FAMILY_1",
            styles: ["background_color": "#FF000000"], rules: ["refresh": "pull"], general: ["nav_bar_id": "nb1"],
            advertising: ["display_interstitial_once": true],
            navigations: [navigation([
                "id": "nav-1", "name": "Nav", "category": "nav_bar", "navigation_type": "navigation_bar",
                "nav_items": [["id": "i1", "title": "Show", "type": "button", "data": ["target": .string(showId)]]],
            ])],
            uiComponents: [
                Component(
                    id: "hero-1", componentType: "hero", cellStyles: ["HERO_CELL_1"], layout: "HERO_1",
                    header: SectionDecoration(visible: true, style: "HEADER_1"), itemLimit: 6,
                    data: ComponentData(source: "3119", type: "APPLICASTER_COLLECTION", target: showId, connected: false)),
                Component(id: "grid-1", componentType: "grid", cellStyles: ["GRID_1"], data: ComponentData(source: "3139", type: "APPLICASTER_COLLECTION")),
                Component(id: "banner-1", componentType: "banner"),
            ])
    }

    static func show() -> Screen {
        Screen(
            id: showId, name: "Show", screenType: "show_2", connected: true, parent: homeId, family: "FAMILY_1",
            uiComponents: [
                Component(
                    id: "show-hero", componentType: "hero", cellStyles: ["HERO_CELL_1"], itemLimit: 1,
                    data: ComponentData(source: "ignored", type: "APPLICASTER_COLLECTION", target: homeId, connected: true)),
                Component(
                    id: "show-tabs", componentType: "tab_bar", cellStyles: ["LIST_2"],
                    styles: ["cell_body_component_type": "list", "cell_body_styles": ["LIST_2"]]),
            ])
    }

    static func settings() -> Screen {
        Screen(
            id: settingsId, name: "settings_contact_us_legacy", type: "settings_contact_us_legacy", screenType: "settings_3",
            family: "FAMILY_1", styles: ["presentation": "push"], data: ["feed": "abc"],
            uiComponents: [Component(id: "plugin-grid", componentType: "grid", data: ComponentData(source: "1", type: "APPLICASTER_COLLECTION"))])
    }

    static func app() -> [Screen] { [home(), show(), settings()] }

    static let pluginTypes: Set<String> = Screen.builtInTypes.union(["settings_contact_us_legacy"])
}

extension JSONValue {
    /// Follows a path of keys and indexes, for tests.
    func at(_ path: Any...) -> JSONValue? {
        var current: JSONValue? = self
        for step in path {
            if let key = step as? String { current = current?[key] }
            else if let index = step as? Int {
                guard let a = current?.arrayValue, a.indices.contains(index) else { return nil }
                current = a[index]
            }
        }
        return current
    }
}

/// A navigation or hooks value written as JSON in a test, read by the model's reader.
func navigation(_ json: JSONValue) -> Navigation {
    let problems = Problems()
    guard let value = Navigation.read(json, at: "", problems: problems) else { fatalError("\(problems.errors)") }
    return value
}

func hooks(_ json: JSONValue) -> ScreenHooks {
    let problems = Problems()
    guard let value = ScreenHooks.read(json, at: "", problems: problems) else { fatalError("\(problems.errors)") }
    return value
}

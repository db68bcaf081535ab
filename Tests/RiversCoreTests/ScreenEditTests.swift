import Foundation
import Testing

@testable import RiversCore

/// Issue 26: a write of a screen makes no tree of the screen. The stored form is written from the
/// typed screen, and a merge patch is applied to the typed screen. Both are checked against what
/// the tree gave before: the stored form against `Screen.json` serialized, a merge patch against
/// reading the patch merged onto `Screen.json`, over many patches, valid and not.
@Suite("A screen's stored form and merge patches, typed")
struct ScreenEditTests {
    static let other = "5d1f1c1e-1111-4a4a-8b8b-000000000001"
    static let options = Screen.ReadOptions(hookPlugins: ["known_hook"])

    /// The stored form the tree gave: the API form without `home`.
    static func treeStoredForm(_ screen: Screen) -> String {
        var o = screen.json.objectValue ?? [:]
        o.removeValue(forKey: "home")
        return JSONValue.object(o).serializedString()
    }

    static func apiScreen(_ body: JSONValue) throws -> Screen {
        let problems = Problems()
        let screen = Screen.read(body, options: options, problems: problems)
        return try #require(screen, "\(problems.errors)")
    }

    /// Screens with every member the API form writes, set and unset.
    static func bases() throws -> [Screen] {
        let hook: JSONValue = ["identifier": "known_hook", "type": "login", "weight": 2, "screen_id": .string(other)]
        let full: JSONValue = [
            "name": "Full", "family": "FAMILY_1", "home": true, "home_offline": true, "supports_offline": true,
            "parent": .string(other), "styles": ["background": "#000", "nested": ["a": 1, "b": [1, 2]]],
            "rules": ["pull_to_refresh": true], "general": ["title": "T"], "advertising": ["unit": "u/1"],
            "hooks": ["preload_plugins": [hook], "postload_plugins": [], "extra": ["legacy": true]],
            "navigations": [["id": "nav", "category": "nav_bar", "navigation_type": "navigation_bar", "extra": ["ui_tag": "x"]]],
            "extra": ["legacy_field": [1.5, "x", nil], "other": "y"],
            "ui_components": [
                ["id": "c1", "component_type": "list", "cell_styles": ["LIST_1"], "layout": "L_1",
                 "header": ["visible": true, "style": "HEADER_1", "extra": ["h": 1]], "footer": ["visible": false],
                 "rules": ["item_limit": 7, "web_page_shows_navigation": true], "advertising": ["a": 1],
                 "data": ["source": "feed-1", "type": "APPLICASTER_COLLECTION", "target": .string(other), "connected": false, "extra": ["d": 2]],
                 "styles": ["cell_body_component_type": "list"], "extra": ["legacy": "kept"]],
                ["id": "g", "component_type": "group", "ui_components": [
                    ["id": "g1", "component_type": "grid", "cell_styles": ["GRID_1"], "data": ["source": "feed-2", "type": "T"]],
                    ["id": "g2", "component_type": "hero", "data": nil],
                ]],
            ],
        ]
        let plain: JSONValue = ["name": "Plain", "family": "FAMILY_1"]
        let connected: JSONValue = [
            "name": "Connected", "family": "FAMILY_1", "connected": true,
            "ui_components": [["id": "k1", "component_type": "grid", "cell_styles": ["GRID_1"], "data": ["target": .string(other)]]],
        ]
        return [try apiScreen(full), try apiScreen(plain), try apiScreen(connected)]
    }

    @Test func theStoredFormIsTheAPIFormWithoutHome() throws {
        var screens = try Self.bases() + PublishSample.app()
        // Screens from the field, read as an import reads them (extras kept everywhere).
        for name in ["devportal_API_md_example.json", "devportal_android_md_example.json", "devportal_screen_plugin_rivers_entry.json"] {
            let document = try PluginFixtures.json(name)
            for item in document.arrayValue ?? [document] {
                let problems = Problems(mode: .document)
                let options = Screen.ReadOptions(pluginScreenTypes: [item["type"]?.stringValue ?? ""], navigationTypes: nil, hookPlugins: nil)
                if let screen = Screen.read(item, options: options, problems: problems) { screens.append(screen) }
            }
        }
        #expect(screens.count >= 9, "screens read: \(screens.count)")
        // Values that need escaping and numbers of every form.
        var odd = screens[1]
        odd.name = "Quote \" backslash \\ tab \t é 😀"
        odd.styles = ["n": 1e21, "m": -0.5, "z": 12345678901234, "s": "\u{1}"]
        odd.pluginVersion = "1.2.3"
        screens.append(odd)
        for screen in screens {
            #expect(String(decoding: screen.storedForm(), as: UTF8.self) == Self.treeStoredForm(screen), "\(screen.name)")
        }
    }

    /// The stored form reads back as the same screen.
    @Test func theStoredFormReadsBackAsTheScreen() throws {
        for screen in try Self.bases() {
            var back = try Self.apiScreen(try JSONValue.parse(screen.storedForm()))
            back.home = screen.home
            #expect(back == screen)
        }
    }

    /// Values a patch may give each member: valid ones, wrong types, nulls, merges that remove.
    static let candidates: [String: [JSONValue]] = [
        "name": ["Renamed", nil, 5, ""],
        "type": ["favorites", "no_such_plugin", nil],
        "screen_type": ["x_1", nil],
        "home": [true, false, nil, "yes"],
        "home_offline": [true, nil, 1],
        "supports_offline": [false, nil],
        "connected": [true, false, nil, "x"],
        "parent": [nil, .string(other), "not-a-uuid"],
        "family": ["FAMILY_2", nil, "lower case"],
        "styles": [["tint": "#fff"], ["background": nil], ["family": "X"], nil, 3, ["nested": ["a": nil, "c": 3]]],
        "data": [["k": "v"], ["connected": true], nil, "x"],
        "rules": [["pull_to_refresh": nil], ["r": 1], nil],
        "general": [["title": nil], ["g": [1]], nil, []],
        "advertising": [["unit": nil, "other": "o"], nil],
        "extra": [["legacy_field": nil], ["new": 1], ["name": "x"], nil, "x"],
        "hooks": [
            ["preload_plugins": [["identifier": "known_hook", "type": "t"]]], ["preload_plugins": nil],
            ["postload_plugins": [["identifier": "unknown_hook", "type": "t"]]], ["extra": ["legacy": nil, "more": 2]],
            ["bogus": 1], nil, 4,
        ],
        "navigations": [
            [["id": "n", "category": "menu", "navigation_type": "side_menu"]],
            [["id": "a", "category": "nav_bar", "navigation_type": "navigation_bar"], ["id": "b", "category": "nav_bar", "navigation_type": "nope"]],
            nil, "x",
        ],
        "ui_components": [
            [["id": "n1", "component_type": "list", "cell_styles": ["LIST_1"], "data": ["source": "s", "type": "T"]]],
            [["id": "n2", "component_type": "grid"], ["id": "n2", "component_type": "nope"]],
            nil, [],
        ],
        "plugin_version": ["2.0", nil, ""],
        "revision": [9],
        "bogus": [1],
    ]

    /// Reading the patch merged onto the base's JSON, as a PATCH did before (the home flag left
    /// out or null is the base's).
    static func readThroughTree(_ patch: JSONValue, base: Screen) -> (Screen?, Set<String>) {
        var merged = base.json.mergePatched(with: patch).objectValue ?? [:]
        merged["id"] = .string(base.id)
        if merged["home"] == nil || merged["home"]!.isNull { merged["home"] = .bool(base.home) }
        let problems = Problems()
        let screen = Screen.read(.object(merged), options: options, problems: problems)
        return (screen, Set(problems.errors.map { "\($0.pointer) \($0.message)" }))
    }

    static func readTyped(_ patch: JSONValue, base: Screen) -> (Screen?, Set<String>) {
        let problems = Problems()
        let screen = Screen.read(mergePatch: patch, onto: base, options: options, problems: problems)
        return (screen, Set(problems.errors.map { "\($0.pointer) \($0.message)" }))
    }

    @Test func aMergePatchReadsAsTheMergedBody() throws {
        var generator = JSONParserFuzzTests.Seeded(state: 26)
        let keys = Self.candidates.keys.sorted()
        var accepted = 0, refused = 0
        for base in try Self.bases() {
            // Every value of every member on its own, then 400 patches of one to five members.
            var patches: [JSONValue] = [[:]]
            for key in keys { for value in Self.candidates[key]! { patches.append(.object([key: value])) } }
            for _ in 0..<400 {
                var patch: [String: JSONValue] = [:]
                for _ in 0..<Int.random(in: 1...5, using: &generator) {
                    let key = keys.randomElement(using: &generator)!
                    patch[key] = Self.candidates[key]!.randomElement(using: &generator)!
                }
                patches.append(.object(patch))
            }
            for patch in patches {
                let tree = Self.readThroughTree(patch, base: base)
                let typed = Self.readTyped(patch, base: base)
                #expect(typed.0 == tree.0, "\(base.name) patched with \(patch.serializedString())")
                #expect(typed.1 == tree.1, "\(base.name) patched with \(patch.serializedString())")
                if tree.0 != nil { accepted += 1 } else { refused += 1 }
            }
        }
        // Both outcomes are well represented (a generator that only made refusals would prove little).
        #expect(accepted > 150 && refused > 150, "accepted \(accepted), refused \(refused)")
    }

    /// Rules between members hold for the members a patch leaves as they are.
    @Test func keptMembersAreCheckedAgainstPatchedOnes() throws {
        let bases = try Self.bases()
        // Connected now: the kept components' data sources are refused where they are.
        let connected = Self.readTyped(["connected": true], base: bases[0])
        #expect(connected.0 == nil)
        #expect(connected.1.contains("/ui_components/0/data/source a connected screen's components take their data from the sender: leave source empty"))
        #expect(connected.1.contains("/ui_components/1/ui_components/0/data/type a connected screen's components take their data from the sender: leave type empty"))
        // A hook plugin the app no longer has, in the kept hooks, is refused when another member
        // changes.
        var options = Self.options
        options.hookPlugins = []
        let problems = Problems()
        #expect(Screen.read(mergePatch: ["name": "N"], onto: bases[0], options: options, problems: problems) == nil)
        #expect(problems.errors.map(\.pointer) == ["/hooks/preload_plugins/0/identifier"])
        // A component type the catalog no longer has.
        let catalog = ComponentCatalog(ComponentType.builtIn.filter { $0.id != "hero" })
        options = Self.options
        options.catalog = catalog
        let gone = Problems()
        #expect(Screen.read(mergePatch: ["name": "N"], onto: bases[0], options: options, problems: gone) == nil)
        #expect(gone.errors.map(\.pointer) == ["/ui_components/1/ui_components/1/component_type"])
        // The id cannot change; the same id in another case is the same id.
        let moved = Self.readTyped(["id": .string(Self.other)], base: bases[1])
        #expect(moved.0 == nil && moved.1.contains { $0.hasPrefix("/id cannot be changed") })
        #expect(Self.readTyped(["id": .string(bases[1].id.uppercased()), "name": "Same"], base: bases[1]).0?.name == "Same")
        #expect(Self.readTyped(["id": nil], base: bases[1]).0 == bases[1])
    }
}

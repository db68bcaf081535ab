import Foundation
import Hummingbird
import RiversCore
import Testing

/// A fixture of `Tests/Fixtures/zapp`: real documents and manifests, kept in the repository.
func fixture(_ name: String) throws -> JSONValue {
    let url = repositoryRoot.appendingPathComponent("Tests/Fixtures/zapp/\(name)")
    guard let data = FileManager.default.contents(atPath: url.path) else {
        throw SetupError(description: "fixture \(url.path) not found: Tests/Fixtures/zapp is part of the repository")
    }
    return try JSONValue.parse(Array(data))
}

let ftue = "manifest_zf_first_time_user_experience_screen_ios_for_quickbrick.json"

@Suite("Plugins, navigations and hooks API")
struct PluginAPITests {
    @Test("every fixture manifest registers; the same version with another manifest conflicts until PUT")
    func registerFixtures() async throws {
        let names = try FileManager.default.contentsOfDirectory(
            atPath: repositoryRoot.appendingPathComponent("Tests/Fixtures/zapp").path
        ).filter { ($0.hasPrefix("manifest_") || $0.hasPrefix("devportal_snippet_") || $0.contains("manifest")) && $0.hasSuffix(".json") }.sorted()
        #expect(names.count == 11)
        try await withAPI { api in
            var seen: Set<String> = []
            for name in names {
                let manifest = try fixture(name)
                let id = manifest["identifier"]!.stringValue!
                let response = try await api.request(.post, "plugins", json: manifest)
                if seen.insert(id).inserted {
                    #expect(response.status == .created, "\(name): \(response.text)")
                    #expect(response["manifest"]?["identifier"] == .string(id))
                } else {
                    #expect(response.status == .conflict, "\(name) reuses \(id) \(manifest["manifest_version"]!)")
                    let replaced = try await api.request(.put, "plugins/\(id)", json: manifest)
                    #expect(replaced.status == .ok, "\(name): \(replaced.text)")
                }
            }
            #expect(try await api.request(.get, "plugins").json["total"] == .number(Double(seen.count)))
            let again = try await api.request(.post, "plugins", json: try fixture(ftue))
            #expect(again.status == .ok, "the same manifest again changes nothing")
            #expect(again["revision"] == 1)
        }
    }

    @Test("the plugin list pages in registration order, each plugin with its current manifest and every version")
    func pluginListPages() async throws {
        try await withAPI { api in
            let names = [ftue, "manifest_zf_user_account_component_ui_component_ios.json", "manifest_qb_admob_inline_banner_ui_component_ios_qb.json"]
            var ids: [String] = []
            for name in names {
                let manifest = try fixture(name)
                ids.append(manifest["identifier"]!.stringValue!)
                #expect(try await api.request(.post, "plugins", json: manifest).status == .created, "\(name)")
            }
            // A second version of the first plugin becomes its current one.
            var newer = try fixture(ftue).objectValue!
            newer["manifest_version"] = "99.0.0"
            #expect(try await api.request(.post, "plugins", json: .object(newer)).status == .ok, "a new version of a registered plugin")

            let first = try await api.request(.get, "plugins?limit=2")
            #expect(first["total"] == 3 && first["next_offset"] == 2)
            let items = first["items"]?.arrayValue ?? []
            #expect(items.compactMap { $0["identifier"]?.stringValue } == Array(ids.prefix(2)))
            #expect(items.first?["current_version"] == "99.0.0")
            #expect(items.first?.at("manifest", "manifest_version") == "99.0.0")
            #expect((items.first?["versions"]?.arrayValue ?? []).compactMap { $0["manifest_version"]?.stringValue }.last == "99.0.0")
            #expect(items.first?["versions"]?.arrayValue?.count == 2 && items.last?["versions"]?.arrayValue?.count == 1)
            // Each item is what the plugin's own GET shows.
            for item in items {
                let one = try await api.request(.get, "plugins/\(item["identifier"]!.stringValue!)")
                #expect(one.json == item)
            }
            let last = try await api.request(.get, "plugins?limit=2&offset=2")
            #expect(last["total"] == 3 && (last["items"]?.arrayValue ?? []).compactMap { $0["identifier"]?.stringValue } == [ids[2]])
            let past = try await api.request(.get, "plugins?offset=10")
            #expect(past["total"] == 3 && past["items"]?.arrayValue?.isEmpty == true)
        }
    }

    @Test("manifest validation reports every problem with pointers")
    func invalidManifest() async throws {
        try await withAPI { api in
            var manifest = try fixture(ftue).objectValue!
            manifest.removeValue(forKey: "author_email")
            manifest["surprise"] = true
            let response = try await api.request(.post, "plugins", json: .object(manifest))
            #expect(response.status == .unprocessableContent)
            #expect(Set(response.pointers).isSuperset(of: ["/author_email", "/surprise"]))
            #expect(try await api.request(.get, "plugins").json["total"] == 0)
        }
    }

    @Test("a screen plugin: new screens start from initial values, later changes are checked, versions stick")
    func screenPlugin() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let v1 = try fixture(ftue)
            try await api.create("plugins", v1)
            let id = "first-time-user-expirience-screen"
            let screen = try await api.create("screens", ["name": "Welcome", "type": .string(id), "family": "FAMILY_1", "styles": ["indicator_color": "#ff0000ff"]])
            #expect(screen["type"] == .string(id))
            #expect(screen["plugin_version"] == "0.3.0")
            #expect(screen["styles"]?["background_color"] == "#161b29ff", "filled from initial_value")
            #expect(screen["styles"]?["indicator_color"] == "#ff0000ff", "a given value wins")
            #expect(screen["styles"]?["bottom_bar_height"] == 68)
            #expect(screen["general"]?["show_hook_once"] == true)
            let screenId = screen["id"]!.stringValue!

            let bad = try await api.request(.patch, "screens/\(screenId)", json: ["styles": ["background_color": "red", "bottom_bar_height": "tall"], "general": ["show_hook_once": "maybe"]])
            #expect(bad.status == .unprocessableContent)
            #expect(Set(bad.pointers) == ["/styles/background_color", "/styles/bottom_bar_height", "/general/show_hook_once"])
            let loose = try await api.request(.patch, "screens/\(screenId)", json: ["styles": ["bottom_bar_height": 70]])
            #expect(loose.status == .ok, "\(loose.text)")
            let components = try await api.request(.patch, "screens/\(screenId)", json: ["ui_components": [component("list")]])
            #expect(components.pointers == ["/ui_components"], "this plugin holds no components")

            // A new manifest version: existing screens keep theirs until upgraded.
            let v2 = v1.mergePatched(with: ["manifest_version": "0.4.0"])
            let registered = try await api.request(.post, "plugins", json: v2)
            #expect(registered.status == .ok)
            #expect(registered["current_version"] == "0.4.0")
            #expect(registered["versions"]?.arrayValue?.count == 2)
            #expect(try await api.request(.get, "screens/\(screenId)").json["plugin_version"] == "0.3.0")
            let newer = try await api.create("screens", ["name": "Welcome 2", "type": .string(id), "family": "FAMILY_1"])
            #expect(newer["plugin_version"] == "0.4.0")
            let upgraded = try await api.request(.patch, "screens/\(screenId)", json: ["plugin_version": "0.4.0"])
            #expect(upgraded["plugin_version"] == "0.4.0")
            let missing = try await api.request(.patch, "screens/\(screenId)", json: ["plugin_version": "9.9"])
            #expect(missing.pointers == ["/plugin_version"])

            let form = try await api.request(.get, "plugins/\(id)/form")
            #expect(form.status == .ok)
            let sections = form["sections"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
            #expect(sections.contains("styles") && sections.contains("general"))

            let unknownType = try await api.request(.post, "screens", json: ["name": "X", "type": "not-registered", "family": "FAMILY_1"])
            #expect(unknownType.pointers == ["/type"])

            let inUse = try await api.request(.delete, "plugins/\(id)")
            #expect(inUse.status == .conflict)
            #expect(inUse["used_by"]?.arrayValue?.count == 2)
        }
    }

    @Test("a ui_component plugin is a component type of the app")
    func componentPlugin() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let banner = "google-admob-inline-banner-qb"
            let rejected = try await api.request(.post, "screens", json: screenBody("Home", components: [component(banner)]))
            #expect(rejected.pointers == ["/ui_components/0/component_type"])
            try await api.create("plugins", try fixture("manifest_qb_admob_inline_banner_ui_component_ios_qb.json"))
            let catalog = try await api.request(.get, "component-types")
            #expect(catalog["items"]?.arrayValue?.last?["id"] == .string(banner))
            #expect(catalog["items"]?.arrayValue?.last?["plugin"] == .string(banner))
            let screen = try await api.create("screens", screenBody("Home", components: [component(banner, [], extra: ["styles": ["title_text": "Ad"]])]))
            let styles = screen["ui_components"]?.arrayValue?.first?["styles"]
            #expect(screen["ui_components"]?.arrayValue?.first?["component_type"] == .string(banner))
            #expect(styles?["title_text"] == "Ad", "a given value wins")
            #expect(styles?["title_fontsize"] == "9", "the manifest's initial values fill the rest, as written (strings)")
            #expect(styles?["background"] == false, "a switch is a boolean, though the manifest writes \"false\" (docs/spec/plugin-values.md)")
            let badStyles = try await api.request(.patch, "screens/\(screen["id"]!.stringValue!)", json: ["ui_components": [
                component(banner, [], extra: ["styles": ["banner_ad_type": "giant_banner", "title_fontsize": "big"]]),
            ]])
            #expect(Set(badStyles.pointers) == ["/ui_components/0/styles/banner_ad_type", "/ui_components/0/styles/title_fontsize"], "\(badStyles.text)")
            #expect(try await api.request(.delete, "plugins/\(banner)").status == .conflict)
            #expect(try await api.request(.delete, "screens/\(screen["id"]!.stringValue!)").status == .noContent)
            #expect(try await api.request(.delete, "plugins/\(banner)").status == .noContent)
            #expect(try await api.request(.get, "plugins/\(banner)").status == .notFound)
        }
    }

    @Test("a home screen with a two-level menu whose items link to screens; links and hooks are checked")
    func navigations() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let shows = try await api.create("screens", screenBody("Shows"))
            let movies = try await api.create("screens", screenBody("Movies"))
            let showsId = shows["id"]!.stringValue!, moviesId = movies["id"]!.stringValue!
            let menu: JSONValue = [
                "id": "menu-1", "name": "2-Level Menu", "category": "menu", "navigation_type": "two_level_rn_menu",
                "nav_items": [
                    ["id": "i1", "title": "Shows", "type": "label", "data": ["target": .string(showsId)]],
                    ["id": "i2", "title": "More", "type": "nested_menu", "nav_items": [
                        ["id": "i3", "title": "Movies", "type": "label", "data": ["target": .string(moviesId)]],
                        ["id": "i4", "title": "Site", "type": "button", "data": ["type": "WEB_URL", "source": "https://example.com"]],
                    ]],
                ],
            ]
            let navBar: JSONValue = ["id": "bar-1", "category": "nav_bar", "navigation_type": "navigation_bar", "nav_items": []]
            let home = try await api.request(.patch, "screens/\(showsId)", json: ["navigations": [navBar, menu]])
            #expect(home.status == .ok, "\(home.text)")
            let items = home["navigations"]?.arrayValue?.last?["nav_items"]?.arrayValue
            #expect(items?.last?["nav_items"]?.arrayValue?.first?["data"]?["target"] == .string(moviesId))
            #expect(try await api.request(.delete, "screens/\(moviesId)").status == .conflict, "a nav item links to it")

            let stranger = UUIDText.random()
            let broken = menu.mergePatched(with: ["navigation_type": "mystery_menu", "nav_items": [
                ["id": "x", "title": "Gone", "type": "label", "data": ["target": .string(stranger)]],
                ["id": "y", "title": "Web", "type": "button", "data": ["type": "WEB_URL"]],
            ]])
            let bad = try await api.request(.patch, "screens/\(showsId)", json: ["navigations": [broken, menu]])
            #expect(bad.status == .unprocessableContent)
            #expect(Set(bad.pointers).isSuperset(of: ["/navigations/0/navigation_type", "/navigations/1/category", "/navigations/0/nav_items/1/data/source"]), "\(bad.pointers)")

            let unknownTarget = try await api.request(.patch, "screens/\(showsId)", json: ["navigations": [menu.mergePatched(with: ["nav_items": [["id": "x", "title": "Gone", "type": "label", "data": ["target": .string(stranger)]]]])]])
            #expect(unknownTarget.status == .unprocessableContent)

            let hook: JSONValue = ["preload_plugins": [["identifier": "parent-lock-qb", "type": "general", "weight": 1]]]
            let unregistered = try await api.request(.patch, "screens/\(moviesId)", json: ["hooks": hook])
            #expect(unregistered.pointers == ["/hooks/preload_plugins/0/identifier"])
            try await api.create("plugins", try fixture("manifest_qb_parent_lock_screen_ios_for_quickbrick.json"))
            let hooked = try await api.request(.patch, "screens/\(moviesId)", json: ["hooks": hook])
            #expect(hooked.status == .ok, "\(hooked.text)")
            #expect(hooked["hooks"]?["preload_plugins"]?.arrayValue?.first?["identifier"] == "parent-lock-qb")
            #expect(try await api.request(.delete, "plugins/parent-lock-qb").status == .conflict)
        }
    }

    @Test("a screen of a screen plugin publishes like the spec's plugin-screen entry, key by key")
    func pluginScreenPublished() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            try await api.create("screens", screenBody("Home", components: [component("list", source: "1")]))
            try await api.create("plugins", try fixture(ftue))
            let id = "first-time-user-expirience-screen"
            let screen = try await api.create("screens", ["name": "Welcome", "type": .string(id), "family": "FAMILY_1", "styles": ["presentation": "push"]])
            let published = try await api.request(.post, "publish")
            #expect(published.status == .created, "\(published.text)")
            let document = try await api.request(.get, "/rivers/\(api.app.slug)/rivers.json", authorized: false)
            let ours = try #require(document.json.arrayValue?.first { $0["id"] == screen["id"] })
            let example = try fixture("devportal_screen_plugin_rivers_entry.json")
            for (key, value) in example.objectValue ?? [:] {
                let mine = try #require(ours[key], "missing \(key)")
                #expect(mine.typeName == value.typeName, "\(key): \(mine.typeName) vs \(value.typeName)")
            }
            #expect(ours["type"] == .string(id))
            #expect(ours["name"] == "Welcome")
            #expect(ours["home"] == false)
            #expect(ours["ui_components"] == [])
            #expect(ours["data"] == [:])
            #expect(ours["styles"]?["family"] == "FAMILY_1")
            #expect(ours["styles"]?["presentation"] == example["styles"]?["presentation"])
            #expect(ours["styles"]?["background_color"] == "#161b29ff", "the plugin's values go in the sections they belong to")
            #expect(ours["general"]?["show_hook_once"] == true)
            for key in ["advertising", "rules"] { #expect(ours[key]?.objectValue != nil) }
        }
    }
}

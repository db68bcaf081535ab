import Foundation
import HTTPTypes
import Hummingbird
import RiversCore
import RiversStore
import Testing

/// An app with a family, a home screen with three components and a connected screen under it.
func buildPublishableApp(_ api: TestAPI) async throws -> (home: String, show: String) {
    try await api.create("families", phoneFamily)
    let home = try await api.create("screens", screenBody("Home", components: [
        component("hero", ["LIST_1"], source: "3119", extra: ["layout": "HERO_1"]),
        component("grid", ["GRID_1", "LIST_1"], source: "3139", extra: ["rules": ["item_limit": 6], "header": ["visible": true, "style": "HEADER_1"]]),
        component("banner", []),
    ]))
    let homeId = home["id"]!.stringValue!
    let show = try await api.create("screens", screenBody("Show", components: [component("list"), component("grid", ["GRID_1"])], extra: [
        "connected": true, "parent": .string(homeId),
    ]))
    return (homeId, show["id"]!.stringValue!)
}

@Suite("Publishing API")
struct PublishAPITests {
    @Test("the published document follows the format key by key and type by type")
    func documentFormat() async throws {
        try await withAPI { api in
            let (homeId, showId) = try await buildPublishableApp(api)
            let published = try await api.request(.post, "publish", json: ["note": "first"])
            #expect(published.status == .created, "\(published.text)")
            #expect(published["changed"] == true)
            #expect(published["version"]?["number"] == 1)
            #expect(published["version"]?["note"] == "first")
            #expect(published["version"]?["published_by"]?.stringValue?.hasPrefix("token ") == true)

            let served = try await api.request(.get, "/rivers/\(api.app.slug)/rivers.json", authorized: false)
            #expect(served.status == .ok)
            let screens = try #require(served.json.arrayValue, "a top-level array")
            #expect(screens.count == 2)
            let home = screens[0], show = screens[1]
            for screen in screens {
                for key in ["id", "name", "type", "home", "data", "styles", "ui_components", "navigations", "hooks", "rules", "general", "advertising"] {
                    #expect(screen[key] != nil, "screen key \(key)")
                }
                #expect(screen["styles"]?["family"] == "FAMILY_1")
                #expect(screen["navigations"]?.arrayValue != nil)
                #expect(screen["hooks"] == ["preload_plugins": [], "postload_plugins": []])
            }
            #expect(home["id"] == .string(homeId))
            #expect(home["home"] == true)
            #expect(show["home"] == false)
            #expect(home["type"] == "general_content")
            #expect(home["data"] == [:])
            #expect(show["data"] == ["connected": true, "parent": .string(homeId)])
            #expect(show["id"] == .string(showId))

            let components = try #require(home["ui_components"]?.arrayValue)
            #expect(components.map { $0["component_type"] } == ["hero", "grid", "banner"])
            let grid = components[1]
            #expect(grid["rules"]?["item_limit"] == "6", "item_limit is a string")
            #expect(grid["styles"]?["family"] == "FAMILY_1")
            #expect(grid["styles"]?["cell_styles"] == ["GRID_1", "LIST_1"])
            #expect(grid["styles"]?["header"] == ["visible": true, "style": "HEADER_1"])
            #expect(grid["data"] == ["source": "3139", "type": "APPLICASTER_COLLECTION"])
            #expect(grid["id"]?.stringValue != nil)
            #expect(components[0]["styles"]?["layout"] == "HERO_1")
            #expect(components[2]["rules"] == [:])
            for c in show["ui_components"]?.arrayValue ?? [] {
                #expect(c["data"] == ["source": "", "type": ""], "a connected screen's components have no source")
            }
            // The draft is what would be published now: the same bytes.
            let draft = try await api.request(.get, "draft.json")
            #expect(draft.text == served.text)
        }
    }

    @Test("the check lists every problem, and publishing refuses until they are fixed")
    func problems() async throws {
        try await withAPI { api in
            let empty = try await api.request(.post, "publish")
            #expect(empty.status == .unprocessableContent)
            #expect(empty.pointers == ["/screens"])
            try await api.create("families", phoneFamily)
            let home = try await api.create("screens", screenBody("Home", components: [component("list"), component("grid", ["GRID_1"], source: "1")]))
            let homeId = home["id"]!.stringValue!
            // A connected screen with no parent: nothing can open it.
            let orphan = try await api.create("screens", screenBody("Orphan", extra: ["connected": true]))
            let listed = try await api.request(.get, "problems")
            #expect(listed["count"] == 1)
            #expect(listed["problems"]?.arrayValue?.first?["pointer"] == .string("/screens/\(orphan["id"]!.stringValue!)/parent"))
            // A list without a data source is a warning: it does not stop a publish.
            #expect(listed["warning_count"] == 1)
            #expect(listed["warnings"]?.arrayValue?.first?["pointer"] == .string("/screens/\(homeId)/ui_components/0/data"))
            let refused = try await api.request(.post, "publish")
            #expect(refused.status == .unprocessableContent)
            #expect(refused.pointers == ["/screens/\(orphan["id"]!.stringValue!)/parent"])
            #expect(try await api.request(.get, "versions").json["total"] == 0)
            #expect(try await api.request(.get, "/rivers/\(api.app.slug)/rivers.json", authorized: false).status == .notFound)
            try await api.request(.delete, "screens/\(orphan["id"]!.stringValue!)")
            #expect(try await api.request(.post, "publish").status == .created, "warnings do not stop a publish")
        }
    }

    @Test("unchanged publishes add nothing; versions, diff and rollback")
    func versions() async throws {
        try await withAPI { api in
            let (homeId, _) = try await buildPublishableApp(api)
            #expect(try await api.request(.post, "publish").status == .created)
            let again = try await api.request(.post, "publish", json: ["note": "again"])
            #expect(again.status == .ok)
            #expect(again["changed"] == false)
            #expect(again["version"]?["number"] == 1)

            #expect(try await api.request(.patch, "screens/\(homeId)", json: ["name": "Start"]).status == .ok)
            let second = try await api.request(.post, "publish")
            #expect(second["version"]?["number"] == 2)
            let list = try await api.request(.get, "versions")
            #expect(list["items"]?.arrayValue?.map { $0["number"] } == [2, 1])
            #expect(list["items"]?.arrayValue?.first?["url"]?.stringValue?.hasSuffix("/rivers/\(api.app.slug)/v2/rivers.json") == true)

            let diff = try await api.request(.get, "versions/diff?from=1&to=2")
            #expect(diff.status == .ok, "\(diff.text)")
            let changed = diff["screens"]?["changed"]?.arrayValue
            #expect(changed?.map { $0["id"] } == [.string(homeId)])
            #expect(changed?.first?["changed_keys"]?.arrayValue?.contains("name") == true)
            #expect(try await api.request(.get, "versions/diff?from=1")["field"] == "to")

            let one = try await api.request(.get, "versions/1")
            #expect(one["document"]?.arrayValue?.first?["name"] == "Home")
            let rollback = try await api.request(.post, "versions/1/rollback")
            #expect(rollback.status == .created)
            #expect(rollback["version"]?["number"] == 3)
            #expect(rollback["version"]?["rollback_of"] == 1)
            #expect(rollback["version"]?["sha256"] == one["sha256"])
            let current = try await api.request(.get, "/rivers/\(api.app.slug)/rivers.json", authorized: false)
            #expect(current.json.arrayValue?.first?["name"] == "Home", "the current URL serves version 1's content")
            #expect(current.headers[HTTPField.Name("X-Rivers-Version")!] == "3")
            let v2 = try await api.request(.get, "/rivers/\(api.app.slug)/v2/rivers.json", authorized: false)
            #expect(v2.json.arrayValue?.first?["name"] == "Start", "a version's URL never changes")
            #expect(try await api.request(.post, "versions/9/rollback").status == .notFound)
        }
    }

    @Test("public URL: ETag, 304, gzip, HEAD, CORS and cache headers")
    func serving() async throws {
        try await withAPI { api in
            _ = try await buildPublishableApp(api)
            let published = try await api.request(.post, "publish")
            let sha = published["version"]!["sha256"]!.stringValue!
            let path = "/rivers/\(api.app.slug)/rivers.json"
            let plain = try await api.request(.get, path, authorized: false)
            #expect(plain.etag == "\"\(sha)\"")
            #expect(sha256Hex(Array(plain.text.utf8)) == sha)
            #expect(plain.headers[.cacheControl]?.contains("stale-while-revalidate") == true)
            #expect(plain.headers[.cacheControl]?.contains("stale-if-error") == true)
            #expect(plain.headers[.accessControlAllowOrigin] == "*")
            #expect(plain.headers[.vary] == "Accept-Encoding")
            #expect(plain.headers[.contentEncoding] == nil)
            // Answered by the fast path (the document is in memory since the publish), with what
            // every answer carries.
            #expect(plain.headers[HTTPField.Name("X-Request-Id")!]?.isEmpty == false)
            #expect(plain.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            #expect(plain.headers[HTTPField.Name("X-Rivers-Version")!] == "1")
            #expect(plain.headers[.contentLength] == String(plain.text.utf8.count))

            let notModified = try await api.request(.get, path, headers: [.ifNoneMatch: plain.etag!], authorized: false)
            #expect(notModified.status == .notModified)
            #expect(notModified.text.isEmpty)
            #expect(notModified.headers[.eTag] == plain.etag)
            #expect(notModified.headers[.contentLength] == nil || notModified.headers[.contentLength] == "0")

            let gzipped = try await api.client.executeRequest(uri: path, method: .get, headers: [.acceptEncoding: "gzip, br"], body: nil)
            #expect(gzipped.headers[.contentEncoding] == "gzip")
            #expect(gzipped.headers[.eTag] == "\"\(sha)-gzip\"")
            let inflated = Gzip.decompress(Array(buffer: gzipped.body), maximumSize: plain.text.utf8.count)
            #expect(inflated == Array(plain.text.utf8))
            let refused = try await api.request(.get, path, headers: [.acceptEncoding: "gzip;q=0"], authorized: false)
            #expect(refused.headers[.contentEncoding] == nil)

            let head = try await api.client.executeRequest(uri: path, method: .head, headers: [:], body: nil)
            #expect(head.status == .ok)
            #expect(head.body.readableBytes == 0)
            #expect(head.headers[.eTag] == plain.etag)

            let version = try await api.request(.get, "/rivers/\(api.app.slug)/v1/rivers.json", authorized: false)
            #expect(version.headers[.cacheControl]?.contains("immutable") == true)
            #expect(version.text == plain.text)
            // Again, now from memory through the fast path: the same answer.
            let again = try await api.request(.get, "/rivers/\(api.app.slug)/v1/rivers.json", authorized: false)
            #expect(again.headers[.cacheControl] == version.headers[.cacheControl])
            #expect(again.text == plain.text)
            #expect(again.headers[HTTPField.Name("X-Request-Id")!] != version.headers[HTTPField.Name("X-Request-Id")!])
            #expect(try await api.request(.get, "/rivers/\(api.app.slug)/v7/rivers.json", authorized: false).status == .notFound)
            #expect(try await api.request(.get, "/rivers/\(api.app.slug)/latest/rivers.json", authorized: false).status == .notFound)
            #expect(try await api.request(.get, "/rivers/no-such-app/rivers.json", authorized: false).status == .notFound)
        }
    }

    @Test("a browser's CORS preflight of every public document URL is answered on a live server")
    func preflights() async throws {
        try await withAPI { api in
            let slug = api.app.slug
            for path in [
                "/rivers/\(slug)/rivers.json", "/rivers/\(slug)/v1/rivers.json", "/rivers/\(slug)/channels/staging/rivers.json",
                "/rivers/\(slug)/apple_store/5.0/rivers.json", "/preview/rvp_00/rivers.json",
            ] {
                let answer = try await api.request(.options, path, headers: [.accessControlRequestMethod: "GET"], authorized: false)
                #expect(answer.status == .noContent && answer.headers[.accessControlAllowOrigin] == "*", "\(path): \(answer.status)")
            }
            #expect(try await api.request(.options, "/rivers/\(slug)/v0/rivers.json", authorized: false).status == .notFound)
        }
    }

    @Test("a slug no app has is answered 404 from memory, as the routes answer it")
    func unknownSlugsAreAnsweredFromMemory() async throws {
        try await withAPI(loadIndex: true) { api in
            let server = HTTPField.Name("Server")!, requestId = HTTPField.Name("X-Request-Id")!
            // Past 200 bytes a path parameter names nothing (and is not repeated back).
            let long = String(repeating: "a", count: 200) + "-b"
            for (slug, path) in [("no-such-app", "rivers.json"), ("no-such-app", "v3/rivers.json"), ("x_y.z~1", "rivers.json"), (long, "rivers.json")] {
                for method in [HTTPRequest.Method.get, .head] {
                    // The same slug percent-encoded: the byte path leaves it to the routes, which decode it.
                    let encoded = slug.replacingOccurrences(of: "-", with: "%2D").replacingOccurrences(of: "_", with: "%5F")
                    let fromMemory = try await api.request(method, "/rivers/\(slug)/\(path)", authorized: false)
                    let routed = try await api.request(method, "/rivers/\(encoded)/\(path)", authorized: false)
                    let shown = "\(method) \(slug)/\(path)"
                    // Only the framework names itself: which path answered.
                    #expect(fromMemory.headers[server] == nil && routed.headers[server] != nil, "\(shown)")
                    #expect(fromMemory.status == .notFound && routed.status == .notFound, "\(shown)")
                    #expect(fromMemory.text == routed.text, "\(shown)")
                    if method == .get {
                        #expect(fromMemory["detail"]?.stringValue?.contains(slug) == (slug != long), "\(fromMemory.text)")
                    } else {
                        #expect(fromMemory.text.isEmpty, "\(shown)")
                    }
                    func fields(_ response: APIResponse) -> [String: String] {
                        var fields: [String: String] = [:]
                        for field in response.headers where ![server, requestId, .date].contains(field.name) {
                            fields[field.name.canonicalName, default: ""] += field.value
                        }
                        return fields
                    }
                    #expect(fields(fromMemory) == fields(routed), "\(shown)")
                    #expect(fromMemory.headers[requestId]?.count == 32 && fromMemory.headers[.date] != nil)
                }
            }
            // An app that has published nothing is not in the index either: the same 404.
            let unpublished = try await api.request(.get, "/rivers/\(api.app.slug)/rivers.json", authorized: false)
            #expect(unpublished.status == .notFound && unpublished.headers[server] == nil, "\(unpublished.text)")
        }
    }

    @Test("a connection that keeps asking for a document from memory gets each new version as soon as it is published")
    func eachPublishReachesAKeptConnection() async throws {
        try await withAPI(loadIndex: true) { api in
            let server = HTTPField.Name("Server")!, version = HTTPField.Name("X-Rivers-Version")!
            let (homeId, _) = try await buildPublishableApp(api)
            let path = "/rivers/\(api.app.slug)/rivers.json"
            for number in 1...3 {
                if number > 1 { _ = try await api.request(.patch, "screens/\(homeId)", json: ["name": .string("Home \(number)")]) }
                // No body: the test client sends the POST chunked (`0` and CRLFs), which the byte
                // path follows to its end, so the connection stays on it.
                #expect(try await api.request(.post, "publish")["version"]?["number"] == .number(Double(number)))
                // Asked several times on the client's kept connections: the byte path answers
                // (the framework would name itself), each time with the version just published.
                var fromMemory = 0
                for _ in 0..<4 {
                    let answer = try await api.request(.get, path, authorized: false)
                    #expect(answer.status == .ok && answer.headers[version] == String(number), "\(number): \(answer.headers)")
                    if answer.headers[server] == nil { fromMemory += 1 }
                }
                #expect(fromMemory >= 3, "the byte path answered \(fromMemory) of 4")
            }
        }
    }

    @Test("concurrent publishes get distinct, consecutive numbers")
    func concurrentPublishes() async throws {
        try await withAPI { api in
            let (homeId, _) = try await buildPublishableApp(api)
            let numbers = try await withThrowingTaskGroup(of: Int?.self) { group in
                for i in 0..<8 {
                    group.addTask {
                        _ = try await api.request(.patch, "screens/\(homeId)", json: ["name": .string("Home \(i)")])
                        let response = try await api.request(.post, "publish")
                        return response["changed"] == true ? response["version"]?["number"]?.numberValue.map(Int.init) : nil
                    }
                }
                return try await group.reduce(into: [Int]()) { if let n = $1 { $0.append(n) } }
            }
            #expect(!numbers.isEmpty)
            #expect(numbers.sorted() == Array(1...numbers.count), "\(numbers)")
            let list = try await api.request(.get, "versions?limit=50")
            #expect(list["total"] == .number(Double(numbers.count)))
        }
    }

    @Test("import: fixture documents import and publish back their screens and components")
    func importFixtures() async throws {
        for name in ["devportal_API_md_example.json", "devportal_android_md_example.json"] {
            try await withAPI { api in
                let original = try fixture(name)
                let imported = try await api.request(.post, "import", json: original)
                #expect(imported.status == .created, "\(name): \(imported.text)")
                #expect(imported["families_created"] == ["FAMILY_1"])
                // The document names no home screen: it is kept so, with a warning, not changed.
                #expect(imported["warnings"]?.arrayValue?.contains { $0["pointer"] == "" && $0["message"]?.stringValue?.contains("home") == true } == true, "\(imported.text)")
                let problems = try await api.request(.get, "problems")
                let published = try await api.request(.get, "draft.json")
                let screens = try #require(published.json.arrayValue)
                let originals = try #require(original.arrayValue)
                #expect(screens.map { $0["id"] } == originals.map { $0["id"] })
                for (ours, theirs) in zip(screens, originals) {
                    #expect(ours["name"] == theirs["name"])
                    let a = ours["ui_components"]?.arrayValue ?? [], b = theirs["ui_components"]?.arrayValue ?? []
                    #expect(a.map { $0["component_type"] } == b.map { $0["component_type"] })
                    for (x, y) in zip(a, b) {
                        #expect(x["data"]?["source"] == (y["data"]?["source"] ?? ""))
                        #expect(x["rules"]?["item_limit"] == y["rules"]?["item_limit"])
                        #expect(x["styles"]?["cell_styles"] == (y["styles"]?["cell_styles"] ?? []))
                    }
                }
                // The field document's fifth component, a grid, has no data source: a warning,
                // not a problem, since apps already read this document.
                let screenId = originals[0]["id"]!.stringValue!
                #expect(problems["count"] == 1, "only the missing home screen: \(problems.text)")
                #expect(problems["warnings"]?.arrayValue?.compactMap { $0["pointer"]?.stringValue } == ["/screens/\(screenId)/ui_components/4/data"], "\(problems.text)")
                let again = try await api.request(.post, "import", json: original)
                #expect(again.status == .unprocessableContent, "the same screen ids exist now")
            }
        }
    }

    @Test("import keeps a document's screen_type when it is free, and leaves the app's home where it is")
    func importKeepsScreenTypesAndHome() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let home = try await api.create("screens", screenBody("Home"))
            let homeType = home["screen_type"]!.stringValue!
            let first = UUIDText.random(), second = UUIDText.random()
            let document: JSONValue = [
                ["id": .string(first), "name": "Shows", "screen_type": "shows_40", "styles": ["family": "FAMILY_1"]],
                ["id": .string(second), "name": "Taken", "screen_type": .string(homeType), "styles": ["family": "FAMILY_1"]],
            ]
            let imported = try await api.request(.post, "import", json: document)
            #expect(imported.status == .created, "\(imported.text)")
            let types = imported["screens"]?.arrayValue?.compactMap { $0["screen_type"]?.stringValue } ?? []
            #expect(types.first == "shows_40", "a free screen_type is kept")
            #expect(types.count == 2 && types[1] != homeType, "a taken one is generated anew")
            // No screen of the document says home: the app's home stays.
            let screens = try await api.request(.get, "screens").json["items"]?.arrayValue ?? []
            #expect(screens.filter { $0["home"] == true }.map { $0["id"] } == [home["id"]!])
            // A screen created later never gets a kept value: the counter moved past it.
            let later = try await api.create("screens", screenBody("Shows"))
            #expect(later["screen_type"] != "shows_40")
        }
    }

    @Test("import keeps home as the document says, warns when the app is left without one, and points where values are")
    func importHomeAndPointers() async throws {
        try await withAPI { api in
            try await api.create("plugins", [
                "identifier": "settings_contact_us_legacy", "manifest_version": "1.0.0", "name": "Contact us", "type": "general",
                "description": "A screen plugin", "author_name": "A", "author_email": "a@example.com", "min_zapp_sdk": "1.0.0",
                "ui_builder_support": true, "screen": true,
            ])
            // The screen-plugin entry says "home": false; imported into an empty app it stays so.
            let entry = try fixture("devportal_screen_plugin_rivers_entry.json")
            let imported = try await api.request(.post, "import", json: entry)
            #expect(imported.status == .created, "\(imported.text)")
            let warning = imported["warnings"]?.arrayValue?.first { $0["pointer"] == "" }
            #expect(warning?["message"]?.stringValue?.contains("home") == true, "\(imported.text)")
            let screens = try await api.request(.get, "screens").json["items"]?.arrayValue ?? []
            #expect(screens.map { $0["home"] } == [false])

            // A missing parent is reported where the document keeps it: in data.
            let orphan: JSONValue = [[
                "id": .string(UUIDText.random()), "name": "Orphan", "styles": ["family": "FAMILY_1"],
                "data": ["connected": false, "parent": .string(UUIDText.random())],
            ]]
            let refused = try await api.request(.post, "import", json: orphan)
            #expect(refused.status == .unprocessableContent)
            #expect(refused.pointers == ["/0/data/parent"], "\(refused.text)")
        }
    }

    @Test("import writes plugin values in the form their plugins read, with a warning each")
    func importWritesPluginValuesInTheirForms() async throws {
        try await withAPI { api in
            let ftueManifest = try fixture(ftue)
            try await api.create("plugins", ftueManifest)
            try await api.create("plugins", try fixture("manifest_qb_admob_inline_banner_ui_component_ios_qb.json"))
            let ftueId = ftueManifest["identifier"]!
            let document: JSONValue = [
                ["id": .string(UUIDText.random()), "name": "Home", "home": true, "styles": ["family": "FAMILY_1"],
                 "ui_components": [["component_type": "google-admob-inline-banner-qb", "styles": ["background": "false", "title_fontsize": 10]]]],
                ["id": .string(UUIDText.random()), "name": "Welcome", "type": ftueId, "styles": ["family": "FAMILY_1",
                 "top_button_type": ["image"], "is_top_button_hidden": "true"]],
            ]
            let imported = try await api.request(.post, "import", json: document)
            #expect(imported.status == .created, "\(imported.text)")
            let pointers = Set(imported["warnings"]?.arrayValue?.compactMap { $0["pointer"]?.stringValue } ?? [])
            #expect(pointers.isSuperset(of: [
                "/0/ui_components/0/styles/background", "/0/ui_components/0/styles/title_fontsize",
                "/1/styles/top_button_type", "/1/styles/is_top_button_hidden",
            ]), "\(imported.text)")
            let draft = try await api.request(.get, "draft.json").json
            let home = draft.arrayValue?.first { $0["name"] == "Home" }, welcome = draft.arrayValue?.first { $0["name"] == "Welcome" }
            #expect(home?.at("ui_components", 0, "styles", "background") == false)
            #expect(home?.at("ui_components", 0, "styles", "title_fontsize") == "10")
            #expect(welcome?.at("styles", "top_button_type") == "image")
            #expect(welcome?.at("styles", "is_top_button_hidden") == "1")
        }
    }

    @Test("import of a document naming an unregistered navigation plugin: a warning and a placeholder to complete")
    func importUnknownNavigationPlugin() async throws {
        try await withAPI { api in
            let document: JSONValue = [[
                "id": .string(UUIDText.random()), "name": "Home", "home": true, "styles": ["family": "FAMILY_1"],
                "navigations": [["id": "menu-1", "name": "Menu", "category": "menu", "navigation_type": "TwoLevelRNMenu", "nav_items": []]],
            ]]
            let imported = try await api.request(.post, "import", json: document)
            #expect(imported.status == .created, "\(imported.text)")
            let warnings = imported["warnings"]?.arrayValue ?? []
            #expect(warnings.compactMap { $0["pointer"]?.stringValue } == ["/0/navigations/0/navigation_type"], "\(imported.text)")
            let placeholder = try await api.request(.get, "plugins/TwoLevelRNMenu")
            #expect(placeholder.status == .ok, "\(placeholder.text)")
            #expect(placeholder["current_version"] == .string(RiversImport.placeholderVersion), "\(placeholder.text)")
            // The user completes it with the plugin's manifest; the document publishes.
            let completed = try await api.request(.put, "plugins/TwoLevelRNMenu", json: [
                "identifier": "TwoLevelRNMenu", "manifest_version": "1.2.0", "name": "Two-level menu", "type": "menu",
                "description": "A menu", "author_name": "A", "author_email": "a@example.com", "min_zapp_sdk": "1.0.0",
                "ui_builder_support": true,
            ])
            #expect(completed.status == .ok, "\(completed.text)")
            #expect(try await api.request(.post, "publish").status == .created)
        }
    }

    @Test("a broken document is refused with where, and imports nothing")
    func importBroken() async throws {
        try await withAPI { api in
            let url = repositoryRoot.appendingPathComponent("Tests/Fixtures/zapp/devportal_Rivers_md_example.json.txt")
            let text = try String(contentsOf: url, encoding: .utf8)
            let broken = try await api.request(.post, "import", body: text)
            #expect(broken.status == .unprocessableContent)
            #expect(broken.pointers == [""])
            #expect(broken["detail"]?.stringValue?.contains("line") == true && broken["detail"]?.stringValue?.contains("column") == true, "\(broken.text)")
            let notArray = try await api.request(.post, "import", json: ["id": "x"])
            #expect(notArray.status == .unprocessableContent)
            let badType = try await api.request(.post, "import", json: [["id": .string(UUIDText.random()), "name": "X", "type": "general_content", "ui_components": [["component_type": "nope"]]]])
            #expect(badType.pointers == ["/0/ui_components/0/component_type"])
            #expect(try await api.request(.get, "screens").json["total"] == 0)
            #expect(try await api.request(.get, "families").json["total"] == 0)
        }
    }
}

/// Issue 26: a publish reads and writes again only the screens changed since the last one (the
/// store keeps the others by row version); what it serves is always the draft as it is now.
@Suite("Incremental publishing")
struct IncrementalPublishTests {
    @Test("every change reaches the document: a saved screen, a removed one, and a screen made again with its id and revision 1")
    func changesReachTheDocument() async throws {
        try await withAPI { api in
            let (homeId, showId) = try await buildPublishableApp(api)
            #expect(try await api.request(.post, "publish").status == .created)
            func names() async throws -> [String] {
                let served = try await api.request(.get, "/rivers/\(api.app.slug)/rivers.json", authorized: false)
                return (served.json.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
            }
            #expect(try await names() == ["Home", "Show"])
            // One screen saved: it changes; the other is as it was.
            #expect(try await api.request(.patch, "screens/\(showId)", json: ["name": "Episode"], headers: [.ifMatch: "*"]).status == .ok)
            #expect(try await api.request(.post, "publish").status == .created)
            #expect(try await names() == ["Home", "Episode"])
            // The draft replaced by a document with the same ids (revision 1 again, other content):
            // the screens kept from before must not be taken for these.
            var document = try #require(try await api.request(.get, "versions/1")["document"]?.arrayValue)
            guard case .object(var home) = document[0] else { Issue.record("no home"); return }
            home["name"] = "Start"
            document[0] = .object(home)
            #expect(try await api.request(.put, "draft.json", json: .array(document)).status == .ok)
            let screens = try await api.request(.get, "screens")["items"]?.arrayValue ?? []
            #expect(screens.first { $0["id"]?.stringValue == homeId }?["revision"] == 1, "the screen was made again at revision 1")
            #expect(try await api.request(.post, "publish").status == .created)
            #expect(try await names() == ["Start", "Show"])
            // What a publish stores is what a whole reading makes: the draft.json of a fresh reading.
            let draft = try await api.request(.get, "draft.json")
            let served = try await api.request(.get, "/rivers/\(api.app.slug)/rivers.json", authorized: false)
            #expect(draft.json == served.json)
        }
    }
}

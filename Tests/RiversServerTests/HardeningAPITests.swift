import Foundation
import Hummingbird
import RiversCore
import RiversServices
import RiversStore
import Testing

/// Issue 9's findings, each as the request that used to crash, stall or mislead the server. The
/// hostile-client suite (`Tests/hostile/`) sends them again to a real `rivers serve` process and
/// watches its memory; these pin the answers.
@Suite("Hardening: hostile requests get a 4xx problem")
struct HardeningAPITests {
    func expectProblem(_ r: APIResponse, _ status: HTTPResponse.Status, field: String? = nil, _ comment: Comment? = nil) {
        #expect(r.status == status, comment ?? "\(r.text.prefix(500))")
        #expect(r.headers[.contentType] == "application/problem+json")
        #expect(r["status"]?.numberValue == Double(status.code))
        #expect(r["type"]?.stringValue?.hasPrefix("/problems/") == true)
        if let field { #expect(r["field"]?.stringValue == field, "\(r.text.prefix(500))") }
        #expect(r.text.utf8.count < 64 * 1024)
    }

    @Test("a Content-Type without a media type is a 415, not a crash (finding 1)")
    func contentTypeOfSemicolons() async throws {
        try await withAPI { api in
            for type in [";", ";;", " ; charset=utf-8", "+json", "text/plain"] {
                let r = try await api.request(.post, "families", body: "{}", headers: [.contentType: type])
                expectProblem(r, .unsupportedMediaType, field: "", "Content-Type \(type)")
            }
        }
    }

    @Test("preview sample numbers too large for an Int are 422 at the field (finding 2)")
    func previewSampleNumbers() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let screen: JSONValue = ["family": "FAMILY_1", "ui_components": []]
            for (sample, field) in [
                (["children": [1e19]], "/sample/children/0"), (["children": [-1]], "/sample/children/0"),
                (["children": [1.5]], "/sample/children/0"), (["counts": ["0": 1e19]], "/sample/counts/0"),
            ] as [(JSONValue, String)] {
                let r = try await api.request(.post, "preview", json: ["screen": screen, "sample": sample])
                expectProblem(r, .unprocessableContent, field: field)
            }
        }
    }

    @Test("a preview's items are budgeted in all, before the work (finding 3)")
    func previewItemBudget() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let huge = component("list", extra: ["rules": ["item_limit": 1_000_000]])
            let r = try await api.request(.post, "preview", json: ["screen": ["family": "FAMILY_1", "ui_components": [huge, huge]]])
            expectProblem(r, .unprocessableContent, field: "/screen/ui_components/0/rules/item_limit")
            // Each component within its limit, but too many items together.
            let big = component("list", extra: ["rules": ["item_limit": 6_000]])
            let together = try await api.request(.post, "preview", json: ["screen": ["family": "FAMILY_1", "ui_components": [big, big]]])
            expectProblem(together, .unprocessableContent, field: "/screen/ui_components")
            #expect(together.text.contains("10000") && together.text.contains("12000"))
            let counts = try await api.request(.post, "preview", json: [
                "screen": ["family": "FAMILY_1", "ui_components": [component("list"), component("list")]],
                "sample": ["counts": ["0": 6000, "1": 6000]],
            ])
            expectProblem(counts, .unprocessableContent, field: "/screen/ui_components")
            // Within the budget it still draws.
            let fine = try await api.request(.post, "preview", json: ["screen": ["family": "FAMILY_1", "ui_components": [big]]])
            #expect(fine.status == .ok)
        }
    }

    @Test("unknown cell styles: errors capped at 100 with error_count, none listing the family (finding 4)")
    func quadraticErrors() async throws {
        try await withAPI { api in
            var family = phoneFamily.objectValue!
            family["cell_styles"] = .array((0..<200).map { ["id": .string("STYLE_\($0)"), "columns": 1, "height": 10] })
            try await api.create("families", .object(family))
            let components: [JSONValue] = (0..<50).map { _ in component("list", (0..<20).map { "NOPE_\($0)" }) }
            let r = try await api.request(.post, "preview", json: ["screen": ["family": "FAMILY_1", "ui_components": .array(components)]])
            // The work is bounded by the answer's size, not timed here (a shared machine's clock
            // says little; the hostile suite times a real process): 100 short errors and a count.
            #expect(r.text.utf8.count < 20_000, "\(r.text.utf8.count) bytes")
            expectProblem(r, .unprocessableContent, field: "/screen/ui_components/0/cell_styles/0")
            #expect(r["errors"]?.arrayValue?.count == 100)
            #expect(r["error_count"] == 1000)
            #expect(!r.text.contains("STYLE_1"))
            var tooMany = family
            tooMany["id"] = "FAMILY_2"
            tooMany["cell_styles"] = .array((0..<1000).map { ["id": .string("STYLE_\($0)"), "columns": 1, "height": 10] })
            expectProblem(try await api.request(.post, "families", json: .object(tooMany)), .unprocessableContent, field: "/cell_styles")
        }
    }

    @Test("a NUL character anywhere is 422 at its field, never a 500 (finding 5)")
    func nulCharacters() async throws {
        try await withAPI { api in
            let family = #"{"id": "FAMILY_1", "name": "a\u0000b", "reference_size": {"width": 320, "height": 568}, "cell_styles": []}"#
            expectProblem(try await api.request(.post, "families", body: family), .unprocessableContent, field: "/name")
            let key = #"{"name": "S", "family": "F", "ui_components": [{"component_type": "list", "styles": {"k\u0000": 1}}]}"#
            let r = try await api.request(.post, "screens", body: key)
            // The pointer names the key as it is, NUL included (escaped in the answer's JSON,
            // which this suite's own strict parser then refuses to read back: so, as text).
            #expect(r.status == .unprocessableContent)
            #expect(r.headers[.contentType] == "application/problem+json")
            #expect(r.text.contains(#""field":"/ui_components/0/styles/k\u0000""#), "\(r.text)")
            expectProblem(try await api.request(.post, "publish", body: #"{"note": "a\u0000"}"#), .unprocessableContent, field: "/note")
        }
    }

    @Test("numbers out of range or too large for a Double are 422 at the field (finding 6)")
    func extremeNumbers() async throws {
        try await withAPI { api in
            let tall = phoneFamily.mergePatched(with: ["reference_size": ["width": 320, "height": 1e308]])
            expectProblem(try await api.request(.post, "families", json: tall), .unprocessableContent, field: "/reference_size/height")
            let thin = phoneFamily.mergePatched(with: ["cell_styles": [["id": "A", "columns": 1, "aspect_ratio": 1e-310]]])
            expectProblem(try await api.request(.post, "families", json: thin), .unprocessableContent, field: "/cell_styles/0/aspect_ratio")
            let text = #"{"id": "FAMILY_1", "name": "F", "reference_size": {"width": 320, "height": 1e400}, "cell_styles": []}"#
            expectProblem(try await api.request(.post, "families", body: text), .unprocessableContent, field: "/reference_size/height")
        }
    }

    @Test("invalid UTF-8 and deep nesting are 400, not replaced or crashed")
    func malformedBodies() async throws {
        try await withAPI { api in
            var bytes = Array(#"{"id": "FAMILY_9", "name": ""#.utf8)
            bytes += [0xFF, 0xFE]
            bytes += Array(#"", "reference_size": {"width": 320, "height": 568}, "cell_styles": []}"#.utf8)
            let r = try await api.request(.post, "families", bytes: bytes)
            expectProblem(r, .badRequest, field: "")
            #expect(r["detail"]?.stringValue?.contains("UTF-8") == true)
            #expect(try await api.request(.get, "families/FAMILY_9").status == .notFound, "nothing stored with U+FFFD")
            let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
            expectProblem(try await api.request(.post, "families", body: deep), .badRequest, field: "")
        }
    }

    @Test("a method a path does not take is 405 with Allow; unknown paths stay 404")
    func methodNotAllowed() async throws {
        try await withAPI { api in
            let r = try await api.request(.init("TRACE")!, "families")
            expectProblem(r, .methodNotAllowed)
            #expect(r.headers[.allow] == "GET, POST")
            let item = try await api.request(.init("TRACE")!, "families/FAMILY_1")
            #expect(item.headers[.allow] == "DELETE, GET, PATCH, PUT")
            // Outside the API too.
            let health = try await api.request(.init("TRACE")!, "/health/live")
            expectProblem(health, .methodNotAllowed)
            #expect(health.headers[.allow] == "GET")
            let missing = try await api.request(.get, "no-such-thing")
            expectProblem(missing, .notFound)
            #expect(missing["type"] == "/problems/no-route")
        }
    }

    @Test("every answer carries X-Request-Id and nosniff; the editor's files carry CSP and frame options")
    func responseHeaders() async throws {
        try await withAPI { api in
            for path in ["/api/openapi.json", "/health/live", "/api/v1/devices", "/nope.json", "/"] {
                let r = try await api.request(.get, path)
                #expect(r.headers[.init("X-Request-Id")!]?.isEmpty == false, "\(path)")
                #expect(r.headers[.init("X-Content-Type-Options")!] == "nosniff", "\(path)")
            }
            let index = try await api.request(.get, "/", authorized: false)
            #expect(index.status == .ok)
            #expect(index.headers[.init("Content-Security-Policy")!]?.contains("frame-ancestors 'none'") == true)
            #expect(index.headers[.init("X-Frame-Options")!] == "DENY")
            // Two requests, two ids.
            let a = try await api.request(.get, "/health/live")
            let b = try await api.request(.get, "/health/live")
            #expect(a.headers[.init("X-Request-Id")!] != b.headers[.init("X-Request-Id")!])
        }
    }

    @Test("static paths with a NUL, a backslash or an empty segment name no file (finding 9)")
    func staticFilePaths() async throws {
        try await withAPI { api in
            for path in ["/index.html%00.js", "/js/app.js%00.html", "//js", "//js/", "/js//app.js", "/js%5capp.js", "/%2e%2e/Package.swift"] {
                let r = try await api.request(.get, path, authorized: false)
                #expect(r.status == .notFound, "\(path): \(r.status)")
                #expect(r.headers[.location] == nil, "\(path)")
            }
            let js = try await api.request(.get, "/js/app.js", authorized: false)
            #expect(js.status == .ok)
            #expect(js.headers[.contentType]?.contains("javascript") == true)
        }
    }

    @Test("plugin identifiers keep to their alphabet; path parameters are percent-decoded (finding 10)")
    func pluginIdentifiers() async throws {
        try await withAPI { api in
            let manifest = try JSONValue.parse(Array(Data(contentsOf: repositoryRoot.appendingPathComponent(
                "Tests/Fixtures/zapp/manifest_qb_parent_lock_screen_ios_for_quickbrick.json"))))
            for bad in ["a/b", "q?x=1#f", "../../x", "a b", ""] {
                let r = try await api.request(.post, "plugins", json: manifest.mergePatched(with: ["identifier": .string(bad)]))
                expectProblem(r, .unprocessableContent, field: "/identifier", "identifier \(bad)")
            }
            try await api.create("plugins", manifest.mergePatched(with: ["identifier": "com.example.lock"]))
            #expect(try await api.request(.get, "plugins/com.example.lock").status == .ok)
            #expect(try await api.request(.get, "plugins/com%2Eexample%2Elock").status == .ok)
            // A decoded NUL or an undecodable parameter names nothing.
            #expect(try await api.request(.get, "plugins/a%00b").status == .notFound)
            #expect(try await api.request(.get, "plugins/%ff").status == .notFound)
            #expect(try await api.request(.get, "screens/%00").status == .notFound)
        }
    }

    @Test("web links must be what apps can open: no javascript: (finding 11)")
    func webLinks() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            func menu(_ source: String) -> JSONValue {
                screenBody("Home", extra: ["navigations": [[
                    "id": "menu", "name": "Menu", "category": "menu", "navigation_type": "side_menu",
                    "nav_items": [["id": "i1", "title": "Web", "type": "button", "data": ["type": "WEB_URL", "source": .string(source)]]],
                ]]])
            }
            for bad in ["javascript:alert(1)", "JavaScript:alert(1)", " javascript:alert(1)", "data:text/html,<b>x</b>", "vbscript:x", "file:///etc/passwd"] {
                expectProblem(try await api.request(.post, "screens", json: menu(bad)), .unprocessableContent,
                              field: "/navigations/0/nav_items/0/data/source", "\(bad)")
            }
            try await api.create("screens", menu("https://example.com"))
            try await api.create("screens", menu("myapp://show/1"))
        }
    }

    @Test("a slug shaped like a UUID is refused; public URLs take slugs only (finding 8)")
    func slugs() async throws {
        try await withAPI { api in
            await #expect(throws: StoreError.self) { try await AppService(storage: api.store).create(slug: UUIDText.random(), name: "Shadow") }
            await #expect(throws: StoreError.self) { try await AppService(storage: api.store).create(slug: UUIDText.random().uppercased(), name: "Shadow") }
            #expect(try await api.store.findApp(slug: api.app.id) == nil)
            #expect(try await api.store.findApp(api.app.id)?.slug == api.app.slug)
            try await api.create("families", phoneFamily)
            try await api.create("screens", screenBody("Home"))
            #expect(try await api.request(.post, "publish", json: [:]).status == .created)
            #expect(try await api.request(.get, "/rivers/\(api.app.slug)/rivers.json", authorized: false).status == .ok)
            #expect(try await api.request(.get, "/rivers/\(api.app.id)/rivers.json", authorized: false).status == .notFound)
            #expect(try await api.request(.get, "/rivers/\(api.app.id)/v1/rivers.json", authorized: false).status == .notFound)
        }
    }

    @Test("query numbers and If-Match take digits only, within range")
    func strictNumbersInHeadersAndQueries() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            for query in ["offset=1000000001", "offset=-1", "limit=+5", "limit=%205", "offset=1e3"] {
                expectProblem(try await api.request(.get, "families?\(query)"), .badRequest, "\(query)")
            }
            #expect(try await api.request(.get, "families?offset=1000000000").status == .ok)
            for tag in [#""+1""#, "W/x", #""1"#, #""""#] {
                let r = try await api.request(.patch, "families/FAMILY_1", json: ["name": "B"], headers: [.ifMatch: tag])
                expectProblem(r, .badRequest, field: "If-Match", "If-Match \(tag)")
            }
            // Tags are compared as text: a longer or zero-padded tag is well-formed but matches nothing.
            for tag in [#""049956064962139117""#, #""01""#] {
                #expect(try await api.request(.patch, "families/FAMILY_1", json: ["name": "B"], headers: [.ifMatch: tag]).status == .preconditionFailed)
            }
            #expect(try await api.request(.patch, "families/FAMILY_1", json: ["name": "B"], headers: [.ifMatch: #"W/"1", "1""#]).status == .ok)
        }
    }
}

import Foundation
import Hummingbird
import RiversCore
import RiversStore
import Testing
@testable import RiversServer

/// Issue 24, item 8: where the server and its OpenAPI document disagreed, as the full schemathesis
/// run found them. Every response here is also checked against the document (`make test`'s
/// ResponseLog), so the published document with flattened `extra` members is validated too.
@Suite("The API agrees with its document")
struct ContractTests {
    @Test("extra members are published beside the modelled ones, in every object the document has")
    func flattenedExtra() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            var list = component("list")
            if case .object(var o) = list {
                o["header"] = ["visible": true, "style": "LIST_1", "extra": ["header_tint": "#fff"]]
                list = .object(o)
            }
            try await api.create("screens", screenBody("Home", components: [list], extra: [
                "navigations": [[
                    "category": "menu", "navigation_type": "side_menu", "extra": ["menu_mode": "overlay"],
                    "nav_items": [[
                        "title": "Web", "type": "button", "extra": ["badge": 3],
                        "data": ["type": "WEB_URL", "source": "https://example.com", "extra": ["open_in": "browser"]],
                    ]],
                ]],
            ]))
            let draft = try await api.request(.get, "draft.json")
            #expect(draft.status == .ok)
            #expect(try await api.request(.post, "publish", json: [:]).status == .created)
            for path in ["/rivers/\(api.app.slug)/rivers.json", "/rivers/\(api.app.slug)/v1/rivers.json"] {
                let published = try await api.request(.get, path, authorized: false)
                let screen = try #require(JSONValue.parse(Array(published.text.utf8)).arrayValue?.first)
                let menu = try #require(screen["navigations"]?.arrayValue?.first)
                #expect(menu["menu_mode"] == "overlay")
                #expect(menu.at("nav_items", 0, "badge") == 3)
                #expect(menu.at("nav_items", 0, "data", "open_in") == "browser")
                #expect(screen.at("ui_components", 0, "styles", "header", "header_tint") == "#fff")
            }
            #expect(try await api.request(.get, "versions/1").status == .ok)
        }
    }

    @Test("a blank datasource_limit is refused; digits with white space and whole numbers are kept")
    func datasourceLimit() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            for blank in ["", "   ", "\u{3000}", "12a", "1234567890", "1e3"] {
                let refused = try await api.request(.post, "screens", json: screenBody("S", components: [component("list", extra: ["rules": ["datasource_limit": .string(blank)]])]))
                #expect(refused.status == .unprocessableContent, "\(blank.debugDescription): \(refused.text)")
                #expect(refused.pointers == ["/ui_components/0/rules/datasource_limit"])
            }
            #expect(try await api.request(.post, "screens", json: screenBody("S", components: [component("list", extra: ["rules": ["datasource_limit": 1_000_000_001]])])).status == .unprocessableContent)
            for kept: JSONValue in [" 12 ", "0", 1_000_000_000] {
                let created = try await api.request(.post, "screens", json: screenBody("S", components: [component("list", extra: ["rules": ["datasource_limit": kept]])]))
                #expect(created.status == .created, "\(kept): \(created.text)")
                #expect(created.json.at("ui_components", 0, "rules", "datasource_limit") == kept)
            }
        }
    }

    @Test("null is accepted where the document allows it: from_layout, a manifest's screen, a cell style's height, a preview's name")
    func nulls() async throws {
        try await withAPI { api in
            var family = phoneFamily.objectValue!
            family["cell_styles"] = [["id": "LIST_1", "columns": 1, "height": .null, "aspect_ratio": 2, "width": .null]]
            try await api.create("families", .object(family))
            let screen = try await api.request(.post, "screens", json: screenBody("Home", extra: ["from_layout": .null]))
            #expect(screen.status == .created, "\(screen.text)")
            let manifest: JSONValue = [
                "identifier": "promo", "manifest_version": "1.0.0", "author_name": "A", "author_email": "a@example.com", "name": "Promo",
                "description": "A banner", "type": "ui_component", "min_zapp_sdk": "1.0.0", "ui_builder_support": true, "screen": .null,
                "styles": ["fields": [["key": "title", "type": "text_input", "initial_value": "Hi"]]],
            ]
            let plugin = try await api.request(.post, "plugins", json: manifest)
            #expect(plugin.status == .created, "\(plugin.text)")
            // An unsaved screen's name may be null (it reads as "Preview"); a navigation's and a nav
            // item's lists and objects may be null (none, {}).
            let preview = try await api.request(.post, "preview", json: ["device": .null, "screen": [
                "family": "FAMILY_1", "name": .null, "ui_components": .null, "hooks": ["preload_plugins": .null, "postload_plugins": .null],
                "navigations": [["category": "nav_bar", "navigation_type": "navigation_bar", "styles": .null, "rules": .null, "assets": .null,
                                 "nav_items": [["title": "", "type": "label", "nav_items": .null, "assets": .null, "styles": .null, "rules": .null]]]],
            ]])
            #expect(preview.status == .ok, "\(preview.text)")
        }
    }

    @Test("audit times are RFC 3339 date-times: offsets, fractions, either case; actor counts characters")
    func auditQuery() async throws {
        try await withAPI { api in
            for until in ["2395-06-24T10:52:58.964850+20:09", "2026-11-24t00:00:00z", "2026-11-24T00:00:00-05:30", "2016-12-31T23:59:60Z"] {
                let query = until.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                let page = try await api.request(.get, "audit?until=\(query)")
                #expect(page.status == .ok, "\(until): \(page.text)")
            }
            for bad in ["yesterday", "2026-11-24", "2026-11-24T00:00:00", "2026-11-24T24:00:00Z", "2026-02-30T00:00:00Z", "2026-11-24T00:00:00+24:00"] {
                let query = bad.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                #expect(try await api.request(.get, "audit?since=\(query)").status == .badRequest, "\(bad)")
            }
            let accents = String(repeating: "é", count: 300)
            let encoded = accents.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            #expect(try await api.request(.get, "audit?actor=\(encoded)").status == .ok)
            #expect(try await api.request(.get, "audit?actor=\(encoded)e").status == .badRequest)
        }
        // The same reading, on its own.
        #expect(Timestamp.parse("1970-01-01T01:00:00+01:00") == Date(timeIntervalSince1970: 0))
        #expect(Timestamp.parse("1970-01-01t00:00:01.5z") == Date(timeIntervalSince1970: 1.5))
        #expect(Timestamp.parse("2024-02-29T00:00:00Z") != nil && Timestamp.parse("2023-02-29T00:00:00Z") == nil)
    }

    @Test("an email with a combining mark is an email; a token's expiry may have fractional seconds and an offset")
    func emailsAndExpiry() async throws {
        try await withAPI { api in
            for email in ["jose\u{301}@example.com", "a@\u{301}b.c", "a@b.\u{301}c"] {
                let invited = try await api.request(.post, "invitations", json: ["email": .string(email), "role": "viewer"])
                #expect(invited.status == .created, "\(email): \(invited.text)")
            }
            for bad in ["a@b", "@b.c", "a b@c.d", "a@b@c.d"] {
                #expect(try await api.request(.post, "invitations", json: ["email": .string(bad), "role": "viewer"]).pointers == ["/email"], "\(bad)")
            }
            let later = Date().addingTimeInterval(86_400)
            var text = Timestamp.format(later)  // with milliseconds, in Z
            text = String(text.dropLast()) + "+00:00"
            let token = try await api.request(.post, "tokens", json: ["name": "ci", "role": "viewer", "expires_at": .string(text)])
            #expect(token.status == .created, "\(token.text)")
            let stored = try #require(token["expires_at"]?.stringValue.flatMap(Timestamp.parse))
            #expect(abs(stored.timeIntervalSince(later)) < 0.002)
        }
    }

    @Test("an app's name and slug cannot be removed with null; one-time links answer 401 to a bad token")
    func appSettingsAndLinks() async throws {
        try await withAPI { api in
            for key in ["name", "slug"] {
                let patched = try await api.request(.patch, "/api/v1/apps/\(api.app.slug)", json: .object([key: .null]))
                #expect(patched.status == .unprocessableContent, "\(key): \(patched.text)")
                #expect(patched.pointers == ["/\(key)"])
            }
            #expect(try await api.request(.patch, "/api/v1/apps/\(api.app.slug)", json: ["name": "Renamed"]).status == .ok)
            let link = try await api.request(.get, "/api/v1/link", headers: [.linkSecret: "rvl_nothing"], token: "rvt_wrong")
            #expect(link.status == .unauthorized)
            #expect(try await api.request(.get, "/api/v1/links/rvl_nothing", token: "rvt_wrong").status == .unauthorized)
        }
    }
}

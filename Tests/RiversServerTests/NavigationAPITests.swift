import Foundation
import Hummingbird
import RiversCore
import Testing

/// What real clients read of navigations, through the API and into the published document.
@Suite("Navigations for clients")
struct NavigationAPITests {
    @Test("a menu posted without ids gets generated ones; nav items are published with positions")
    func idsAndPositions() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let screen = try await api.create("screens", screenBody("Home", extra: [
                "home_offline": true,
                "navigations": [[
                    "category": "menu", "navigation_type": "quick_brick_side_menu",
                    "nav_items": [
                        ["title": "Web", "type": "button", "data": ["type": "WEB_URL", "source": "https://example.com"]],
                        ["title": "More", "type": "nested_menu", "position": 9, "nav_items": [["title": "A", "type": "label"]]],
                    ],
                ]],
            ]))
            let menu = try #require(screen["navigations"]?.arrayValue?.first)
            #expect(menu["id"]?.stringValue.flatMap(UUIDText.normalize) != nil)
            let items = try #require(menu["nav_items"]?.arrayValue)
            #expect(items.map { $0["position"] } == [1, 2])
            #expect(items.allSatisfy { $0["id"]?.stringValue?.isEmpty == false })
            #expect(screen["home_offline"] == true && screen["supports_offline"] == false)

            #expect(try await api.request(.post, "publish", json: [:]).status == .created)
            let published = try await api.request(.get, "/rivers/\(api.app.slug)/rivers.json", authorized: false)
            let document = try JSONValue.parse(Array(published.text.utf8))
            let publishedMenu = try #require(document.arrayValue?.first?["navigations"]?.arrayValue?.first)
            #expect(publishedMenu["nav_items"]?.arrayValue?[1]["nav_items"]?.arrayValue?.first?["position"] == 1)
            #expect(document.arrayValue?.first?["home_offline"] == true)
        }
    }
}

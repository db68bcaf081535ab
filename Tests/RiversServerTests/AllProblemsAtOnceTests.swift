import Foundation
import Hummingbird
import RiversCore
import RiversStore
import Testing

@testable import RiversServer

/// Issue 29, item 4: a body with several problems gets every one of them in one answer, also where
/// one of them is only found against stored data (a family, a layout, a slug's rules).
@Suite("Every problem at once")
struct AllProblemsAtOnceTests {
    @Test("a preview lists a missing cell style and a bad rule together; a missing family with the rest")
    func preview() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let both = try await api.request(.post, "preview", json: ["screen": [
                "family": "FAMILY_1",
                "ui_components": [["component_type": "list", "cell_styles": ["NOPE"]], ["component_type": "list", "rules": ["item_limit": -1]]],
            ]])
            #expect(both.status == .unprocessableContent)
            #expect(Set(both.pointers) == ["/screen/ui_components/0/cell_styles/0", "/screen/ui_components/1/rules/item_limit"], "\(both.text)")
            let noFamily = try await api.request(.post, "preview", json: ["screen": [
                "family": "NOFAM", "ui_components": [["component_type": "list", "rules": ["item_limit": -1]]],
            ]])
            #expect(Set(noFamily.pointers) == ["/screen/family", "/screen/ui_components/0/rules/item_limit"], "\(noFamily.text)")
        }
    }

    @Test("app settings list a bad slug with an empty name; a screen from a missing layout lists its empty name too")
    func settingsAndLayouts() async throws {
        try await withAPI { api in
            let settings = try await api.request(.patch, "/api/v1/apps/\(api.app.slug)", json: ["name": "", "slug": "BAD SLUG"])
            #expect(Set(settings.pointers) == ["/name", "/slug"], "\(settings.text)")
            let screen = try await api.request(.post, "screens", json: ["name": "", "from_layout": "00000000-0000-0000-0000-000000000000"])
            #expect(screen.status == .unprocessableContent)
            #expect(Set(screen.pointers) == ["/from_layout", "/name"], "\(screen.text)")
        }
    }
}

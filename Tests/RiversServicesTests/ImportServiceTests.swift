import Foundation
import RiversCore
import RiversServices
import RiversStore
import Testing

/// Importing a rivers.json over in-memory storage: no PostgreSQL (the fast tier).
@Suite("Import, in memory")
struct ImportServiceTests {
    let appId = "88888888-8888-4888-8888-888888888888"

    @Test func aFieldDocumentImportsWholeOrNotAtAll() async throws {
        let storage = InMemoryContent()
        storage.addApp(id: appId)
        let imports = ImportService(storage: storage)
        let document = try zappFixture("devportal_API_md_example.json")
        let originals = try #require(document.arrayValue)

        let result = try await imports.importDocument(appId: appId, json: document)
        #expect(result.familiesCreated == ["FAMILY_1"] && result.familiesExtended.isEmpty)
        #expect(result.screens.map { $0.body["id"] } == originals.map { $0["id"] })
        // The document names no home screen: kept so, with a warning.
        #expect(result.warnings.contains { $0.pointer == "" && $0.message.contains("home") }, "\(result.warnings)")
        let screens = storage.screens(appId: appId)
        #expect(screens.map(\.screen.id) == originals.compactMap { $0["id"]?.stringValue } && screens.allSatisfy { !$0.screen.home })
        #expect(storage.audit(appId: appId).count == 1 && storage.audit(appId: appId)[0].contains(" import: "))
        let next = try #require(storage.nextScreenNumber(appId: appId))
        #expect(next > originals.count, "generated screen types moved the counter on")

        // Again: the ids exist now; nothing is written.
        let again = try await invalid { try await imports.importDocument(appId: appId, json: document) }
        #expect(again.contains("/0/id"), "\(again)")
        #expect(storage.screens(appId: appId).count == originals.count && storage.audit(appId: appId).count == 1)

        // Replacing: the document becomes the whole draft.
        let replaced = try await imports.importDocument(appId: appId, json: document, replacing: true)
        #expect(replaced.screens.count == originals.count && replaced.familiesCreated.isEmpty)
        #expect(storage.screens(appId: appId).map(\.revision).allSatisfy { $0 == 1 })
        #expect(storage.audit(appId: appId).last?.contains(" replace-draft: ") == true)
    }

    @Test func aMissingParentIsReportedWhereTheDocumentKeepsIt() async throws {
        let storage = try await contentWithFamily(appId: appId)
        let orphan: JSONValue = [[
            "id": .string(UUIDText.random()), "name": "Orphan", "styles": ["family": "FAMILY_1"],
            "data": ["connected": false, "parent": .string(UUIDText.random())],
        ]]
        #expect(try await invalid { try await ImportService(storage: storage).importDocument(appId: appId, json: orphan) } == ["/0/data/parent"])
        #expect(storage.screens(appId: appId).isEmpty)
    }

    /// Each navigation plugin a document names and the app lacks becomes a placeholder plugin:
    /// no more than an app may have, and a document naming thousands is refused at the first
    /// past the cap.
    @Test func placeholderPluginsStopAtThePluginCap() async throws {
        let storage = try await contentWithFamily(appId: appId)
        // A screen a menu, each of another plugin.
        func document(types: Range<Int>) -> JSONValue {
            .array(types.map { n in
                [
                    "id": .string(UUIDText.random()), "name": .string("Screen \(n)"), "styles": ["family": "FAMILY_1"],
                    "navigations": [["id": .string("nav-\(n)"), "name": "Menu", "category": "menu", "navigation_type": .string("Menu\(n)"), "nav_items": []]],
                ]
            })
        }
        let many = try await invalid { try await ImportService(storage: storage).importDocument(appId: appId, json: document(types: 0..<5_000)) }
        #expect(many == ["/\(Limits.maxPluginsPerApp)/navigations/0/navigation_type"], "\(many)")
        #expect(try await storage.listPlugins(appId: appId, limit: 10, offset: 0).total == 0 && storage.screens(appId: appId).isEmpty)

        // An app near its cap: an import whose placeholders would pass it is refused whole.
        let plugins = PluginService(storage: storage)
        for n in 0..<(Limits.maxPluginsPerApp - 1) {
            _ = try await plugins.register(appId: appId, manifestJSON: try zappFixture("manifest_qb_admob_inline_banner_ui_component_ios_qb.json").mergePatched(with: ["identifier": .string("plugin-\(n)")]))
        }
        do {
            _ = try await ImportService(storage: storage).importDocument(appId: appId, json: document(types: 0..<2))
            Issue.record("an import past the plugin cap went through")
        } catch StoreError.conflict {}
        #expect(try await storage.listPlugins(appId: appId, limit: 10, offset: 0).total == Limits.maxPluginsPerApp - 1 && storage.screens(appId: appId).isEmpty)
    }
}

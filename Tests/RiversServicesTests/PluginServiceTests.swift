import Foundation
import RiversCore
import RiversServices
import RiversStore
import Testing

/// The plugin use cases over in-memory storage: no PostgreSQL (the fast tier).
@Suite("Plugin use cases, in memory")
struct PluginServiceTests {
    let appId = "77777777-7777-4777-8777-777777777777"
    let banner = "google-admob-inline-banner-qb"

    func make() async throws -> (PluginService, InMemoryContent) {
        let storage = try await contentWithFamily(appId: appId)
        return (PluginService(storage: storage), storage)
    }

    func manifest() throws -> JSONValue { try zappFixture("manifest_qb_admob_inline_banner_ui_component_ios_qb.json") }

    @Test func aManifestRegistersOnceAndNewVersionsBecomeCurrent() async throws {
        let (plugins, storage) = try await make()
        let (made, created) = try await plugins.register(appId: appId, manifestJSON: try manifest())
        #expect(created && made.identifier == banner && made.revision == 1 && made.versions.count == 1)
        // The same manifest again changes nothing.
        let (again, createdAgain) = try await plugins.register(appId: appId, manifestJSON: try manifest())
        #expect(!createdAgain && again.revision == 1)
        // The same version with another manifest: a conflict, unless replacing.
        let changed = try manifest().mergePatched(with: ["description": "Another description"])
        do {
            _ = try await plugins.register(appId: appId, manifestJSON: changed)
            Issue.record("another manifest of the same version was taken")
        } catch StoreError.conflict {}
        let (replaced, _) = try await plugins.register(appId: appId, manifestJSON: changed, expectedIdentifier: banner, precondition: .oneOf([1]), replace: true)
        #expect(replaced.manifest.raw["description"] == "Another description" && replaced.versions.count == 1 && replaced.revision == 2)
        // A new version becomes current.
        let (newer, _) = try await plugins.register(appId: appId, manifestJSON: try manifest().mergePatched(with: ["manifest_version": "0.0.5"]))
        #expect(newer.currentVersion == "0.0.5" && newer.versions.map(\.manifestVersion) == ["0.0.4", "0.0.5"] && newer.revision == 3)
        #expect(try await storage.registry(appId: appId).catalog.types[banner] != nil)
        #expect(try await storage.pluginManifest(appId: appId, identifier: banner, version: "0.0.4").raw["description"] == "Another description")

        // A PUT names the plugin it replaces, which must exist; a stale revision is refused.
        #expect(try await invalid { try await plugins.register(appId: appId, manifestJSON: try manifest(), expectedIdentifier: "other", replace: true) } == ["/identifier"])
        do {
            _ = try await plugins.register(appId: appId, manifestJSON: try manifest(), expectedIdentifier: banner, precondition: .oneOf([1]), replace: true)
            Issue.record("a stale replacement went through")
        } catch StoreError.preconditionFailed(let current) {
            #expect(current == 3)
        }
        let problems = try await invalid { try await plugins.register(appId: appId, manifestJSON: ["identifier": "x"]) }
        #expect(problems.contains("/name") && problems.contains("/manifest_version"), "\(problems)")
        #expect(try await storage.listPlugins(appId: appId, limit: 10, offset: 0).total == 1)
    }

    @Test func aPluginInUseStays() async throws {
        let (plugins, storage) = try await make()
        _ = try await plugins.register(appId: appId, manifestJSON: try manifest())
        let component: JSONValue = ["component_type": .string(banner), "cell_styles": ["LIST_1"], "data": ["source": "feed-1"]]
        _ = try await LayoutService(storage: storage).create(appId: appId, body: ["id": "ads", "name": "Ads", "family": "FAMILY_1", "ui_components": [component]])
        let (_, screenId) = try await ScreenService(storage: storage).create(appId: appId, body: screen("Home", [component]))
        do {
            try await plugins.delete(appId: appId, identifier: banner, precondition: .none)
            Issue.record("a plugin in use was removed")
        } catch StoreError.conflict(_, let users) {
            #expect(users.map(\.id) == [screenId, "ads"] && users.map(\.kind) == [.screen, .layout], "\(users)")
        }
        try await ScreenService(storage: storage).delete(appId: appId, id: screenId, precondition: .none)
        try await LayoutService(storage: storage).delete(appId: appId, id: "ads", precondition: .none)
        try await plugins.delete(appId: appId, identifier: banner, precondition: .oneOf([1]))
        #expect(try await storage.registry(appId: appId).plugins.isEmpty)
        do {
            try await plugins.delete(appId: appId, identifier: banner, precondition: .none)
            Issue.record("a plugin was removed twice")
        } catch StoreError.notFound {}
    }

    /// `n` bytes of padding as an array of strings (each string within the string limit).
    static func padding(_ n: Int) -> JSONValue {
        .array((0..<(n / 5_000 + 1)).map { _ in .string(String(repeating: "p", count: 5_000)) })
    }

    @Test func manifestsAreCappedInBytesOneByOneAndTogether() async throws {
        let (plugins, storage) = try await make()
        // One manifest past its cap: refused, nothing registered.
        let big = try manifest().mergePatched(with: ["whitelisted_account_ids": Self.padding(Limits.maxManifestBytes)])
        let refused = try await invalid { try await plugins.register(appId: appId, manifestJSON: big) }
        #expect(refused == [""], "\(refused)")
        #expect(try await storage.listPlugins(appId: appId, limit: 10, offset: 0).total == 0)
        // Versions of about 100 KB each, until every version of the app's plugins together would
        // pass their cap: that one is refused and leaves nothing behind.
        var accepted = 0, size = 0
        for n in 0..<60 {
            let version = try manifest().mergePatched(with: ["manifest_version": .string("1.0.\(n)"), "whitelisted_account_ids": Self.padding(100_000)])
            size = version.serialized().count
            do {
                _ = try await plugins.register(appId: appId, manifestJSON: version)
                accepted += 1
            } catch StoreError.invalid(let errors) {
                #expect(errors.map(\.pointer) == [""] && errors[0].message.contains("KB"), "\(errors)")
                break
            }
        }
        #expect(accepted == Limits.maxManifestBytesPerApp / size, "\(accepted) versions of \(size) bytes each")
        let stored = try await storage.listPlugins(appId: appId, limit: 10, offset: 0).items
        #expect(stored.count == 1 && stored[0].versions.count == accepted && stored[0].currentVersion == "1.0.\(accepted - 1)")
    }
}

/// A real manifest or document of `Tests/Fixtures/zapp`.
func zappFixture(_ name: String) throws -> JSONValue {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let data = try Data(contentsOf: root.appendingPathComponent("Tests/Fixtures/zapp/\(name)"))
    return try JSONValue.parse(Array(data))
}

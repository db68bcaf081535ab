import Foundation
import PostgresNIO
import RiversCore
import RiversStore
import Testing

/// The plugin registry is parsed once per change of an app's plugins, and a stored manifest that
/// cannot be read is an error, not a plugin that silently disappears.
@Suite("Plugin registry cache")
struct RegistryCacheTests {
    @Test("a change to the app's plugins is seen at once; an unreadable stored manifest fails loudly")
    func cacheFollowsChanges() async throws {
        try await withAPI { api in
            let store = api.store
            let appId = api.app.id
            #expect(try await store.registry(appId: appId).screenPlugins.isEmpty)
            let manifest = try fixture("manifest_qb_parent_lock_screen_ios_for_quickbrick.json")
            try await api.create("plugins", manifest)
            // Cached empty before; the new plugin is seen.
            #expect(try await store.registry(appId: appId).screenPlugins.keys.sorted() == ["parent-lock-qb"])
            // A new version becomes current, and is seen.
            let next = manifest.mergePatched(with: ["manifest_version": "99.0.0"])
            #expect(try await api.request(.put, "plugins/parent-lock-qb", json: next).status == .ok)
            #expect(try await store.registry(appId: appId).screenPlugins["parent-lock-qb"]?.manifestVersion == "99.0.0")
            // Deleted, and gone.
            #expect(try await api.request(.delete, "plugins/parent-lock-qb").status == .noContent)
            #expect(try await store.registry(appId: appId).screenPlugins.isEmpty)

            // A manifest broken behind the API's back (and the cache invalidated by the touch).
            try await api.create("plugins", manifest)
            try await store.client.query(
                #"UPDATE plugin_versions SET manifest = '{"identifier": "parent-lock-qb"}' WHERE app_id = \#(appId)::uuid"#, logger: testLogger)
            try await store.client.query("UPDATE plugins SET revision = revision + 1 WHERE app_id = \(appId)::uuid", logger: testLogger)
            await #expect(throws: StoredManifestError.self) { try await store.registry(appId: appId) }
            // Through the API: a 500 that says nothing of the cause, with the id the log line carries.
            let failed = try await api.request(.get, "component-types")
            #expect(failed.status == .internalServerError)
            #expect(failed["type"] == "/problems/internal")
            #expect(failed.headers[.init("X-Request-Id")!]?.isEmpty == false)
            #expect(!failed.text.contains("parent-lock-qb"))
        }
    }
}

import Foundation
import NIOConcurrencyHelpers
import PostgresNIO
import RiversCore

/// Parsed plugin registries by app, reused while the app's plugins are unchanged: parsing every
/// manifest on every request costs far more than the query that tells whether anything changed.
final class RegistryCache: Sendable {
    private struct Entry {
        var stamp: String
        var registry: PluginRegistry
    }
    /// What is kept, in KiB of the manifests' text, each app costing one more (a parsed manifest
    /// takes many times its text, and an app's may reach `Limits.maxManifestBytesPerApp`): 32 MiB
    /// of manifests, least recently used out first (a registry is rebuilt on its next use).
    static let budget = 32 * 1024
    private let entries = NIOLockedValueBox(LRUCache<String, Entry>(budget: RegistryCache.budget))

    func registry(appId: String, stamp: String) -> PluginRegistry? {
        entries.withLockedValue { $0.get(appId).flatMap { $0.stamp == stamp ? $0.registry : nil } }
    }

    /// Keeps `registry`, read from `bytes` of manifest text.
    func store(_ registry: PluginRegistry, appId: String, stamp: String, bytes: Int) {
        entries.withLockedValue { _ = $0.insert(appId, Entry(stamp: stamp, registry: registry), cost: 1 + bytes / 1024) }
    }
}

/// A stored manifest that no longer parses (the parser became stricter, or the row was edited by
/// hand): said loudly rather than leaving the plugin out.
/// A registered plugin: its current manifest, every version it has, and its bookkeeping.
public struct StoredPlugin: Sendable {
    public struct Version: Sendable {
        public var manifestVersion: String
        public var createdAt: Date
    }
    public var identifier: String
    public var currentVersion: String
    /// The current version's manifest.
    public var manifest: PluginManifest
    /// Oldest first.
    public var versions: [Version]
    public var revision: Int
    public var createdAt: Date
    public var updatedAt: Date
}

public struct StoredManifestError: Error, CustomStringConvertible {
    public var appId: String
    public var identifier: String
    public var version: String
    public var reason: String
    public var description: String { "stored manifest \(identifier) \(version) of app \(appId) cannot be read: \(reason)" }
}

extension Store {
    /// An expression for what changes whenever an app's plugins do (every change adds, removes or
    /// bumps a row's revision and updated_at), for the app `given.app_id` of the query around it.
    static let pluginStamp = """
        (SELECT coalesce(string_agg(p.identifier || ':' || p.revision || ':' || p.updated_at::text, ',' ORDER BY p.identifier), '')
         FROM plugins p WHERE p.app_id = given.app_id)
        """

    /// Every plugin of an app with all its versions, parsed once per change of the app's plugins.
    func registry(appId: String, on connection: PostgresConnection) async throws -> PluginRegistry {
        try await registryAndStamp(appId: appId, on: connection).registry
    }

    /// The registry, and the stamp that changes with every change of the app's plugins.
    func registryAndStamp(appId: String, on connection: PostgresConnection) async throws -> (registry: PluginRegistry, stamp: String) {
        // Every change to an app's plugins adds, removes or bumps a row's revision and updated_at.
        var stamp = ""
        for try await text in try await connection.query(
            "SELECT \(unescaped: Self.pluginStamp) FROM (SELECT \(appId)::uuid AS app_id) AS given", logger: logger
        ).decode(String.self) { stamp = text }
        if let cached = registries.registry(appId: appId, stamp: stamp) { return (cached, stamp) }

        let rows = try await connection.query(
            """
            SELECT p.identifier, p.current_version, v.manifest_version, v.manifest::text
            FROM plugins p JOIN plugin_versions v ON v.app_id = p.app_id AND v.identifier = p.identifier
            WHERE p.app_id = \(appId)::uuid
            """, logger: logger)
        var plugins: [String: PluginRegistry.Plugin] = [:]
        var bytes = 0
        for try await (identifier, current, version, manifest) in rows.decode((String, String, String, String).self) {
            bytes += manifest.utf8.count
            let parsed: PluginManifest
            do {
                parsed = try PluginManifest.parse(JSONValue.parse(Array(manifest.utf8)))
            } catch {
                let failure = StoredManifestError(appId: appId, identifier: identifier, version: version, reason: "\(error)")
                logger.error("\(failure.description)")
                throw failure
            }
            plugins[identifier, default: PluginRegistry.Plugin(currentVersion: current, versions: [:])].versions[version] = parsed
        }
        let registry = PluginRegistry(plugins.filter { $0.value.versions[$0.value.currentVersion] != nil })
        registries.store(registry, appId: appId, stamp: stamp, bytes: bytes)
        return (registry, stamp)
    }

    public func registry(appId: String) async throws -> PluginRegistry {
        try await client.reading { try await self.registry(appId: appId, on: $0) }
    }

    /// A plugin with its current manifest and the versions it has.
    func storedPlugin(appId: String, identifier: String, on connection: PostgresConnection, lock: RowLock) async throws -> StoredPlugin? {
        let rows = try await connection.query(
            """
            SELECT p.current_version, p.revision, p.created_at, p.updated_at, v.manifest::text
            FROM plugins p JOIN plugin_versions v
              ON v.app_id = p.app_id AND v.identifier = p.identifier AND v.manifest_version = p.current_version
            WHERE p.app_id = \(appId)::uuid AND p.identifier = \(identifier)
            \(unescaped: lock == .update ? "FOR UPDATE OF p" : "")
            """, logger: logger)
        var found: (String, Int, Date, Date, String)?
        for try await row in rows.decode((String, Int, Date, Date, String).self) { found = row }
        guard let (current, revision, created, updated, manifestText) = found else { return nil }
        var versions: [StoredPlugin.Version] = []
        for try await (version, at) in try await connection.query(
            """
            SELECT manifest_version, created_at FROM plugin_versions
            WHERE app_id = \(appId)::uuid AND identifier = \(identifier) ORDER BY created_at, manifest_version
            """, logger: logger
        ).decode((String, Date).self) {
            versions.append(StoredPlugin.Version(manifestVersion: version, createdAt: at))
        }
        return StoredPlugin(
            identifier: identifier, currentVersion: current, manifest: try PluginManifest.parse(JSONValue.parse(Array(manifestText.utf8))),
            versions: versions, revision: revision, createdAt: created, updatedAt: updated)
    }

    /// A page of plugins in three queries whatever its size: the page with each current
    /// manifest (and the total), then every version of the plugins on it.
    public func listPlugins(appId: String, limit: Int, offset: Int) async throws -> Page<StoredPlugin> {
        try await client.reading { connection in
            var rows: [(identifier: String, current: String, revision: Int, created: Date, updated: Date, manifest: String)] = []
            var total = 0
            for try await (identifier, current, revision, created, updated, manifest, count) in try await connection.query(
                """
                SELECT p.identifier, p.current_version, p.revision, p.created_at, p.updated_at, v.manifest::text, count(*) OVER ()
                FROM plugins p JOIN plugin_versions v
                  ON v.app_id = p.app_id AND v.identifier = p.identifier AND v.manifest_version = p.current_version
                WHERE p.app_id = \(appId)::uuid ORDER BY p.position
                LIMIT \(max(1, min(limit, Self.maxPageSize))) OFFSET \(max(0, offset))
                """, logger: logger
            ).decode((String, String, Int, Date, Date, String, Int).self) {
                rows.append((identifier, current, revision, created, updated, manifest))
                total = count
            }
            var versions: [String: [StoredPlugin.Version]] = [:]
            if !rows.isEmpty {
                for try await (identifier, version, at) in try await connection.query(
                    """
                    SELECT identifier, manifest_version, created_at FROM plugin_versions
                    WHERE app_id = \(appId)::uuid AND identifier = ANY(\(rows.map(\.identifier)))
                    ORDER BY created_at, manifest_version
                    """, logger: logger
                ).decode((String, String, Date).self) {
                    versions[identifier, default: []].append(StoredPlugin.Version(manifestVersion: version, createdAt: at))
                }
            } else if offset > 0 {
                // Past the last page: the total still says how many there are.
                for try await n in try await connection.query(
                    "SELECT count(*) FROM plugins WHERE app_id = \(appId)::uuid", logger: logger
                ).decode(Int.self) { total = n }
            }
            let items = try rows.map { row in
                StoredPlugin(
                    identifier: row.identifier, currentVersion: row.current,
                    manifest: try PluginManifest.parse(JSONValue.parse(Array(row.manifest.utf8))),
                    versions: versions[row.identifier] ?? [], revision: row.revision, createdAt: row.created, updatedAt: row.updated)
            }
            return Page(items: items, total: total, limit: limit, offset: offset)
        }
    }

    public func plugin(appId: String, identifier: String) async throws -> StoredPlugin {
        guard let plugin = try await client.reading({ try await self.storedPlugin(appId: appId, identifier: identifier, on: $0, lock: .none) }) else {
            throw StoreError.notFound("no plugin \(identifier) in this app")
        }
        return plugin
    }

    /// The manifest of one version of a plugin (the current one by default).
    public func pluginManifest(appId: String, identifier: String, version: String?) async throws -> PluginManifest {
        let registry = try await registry(appId: appId)
        guard let plugin = registry.plugins[identifier] else { throw StoreError.notFound("no plugin \(identifier) in this app") }
        guard let manifest = plugin.versions[version ?? plugin.currentVersion] else {
            throw StoreError.notFound("plugin \(identifier) has no version \(version ?? "")")
        }
        return manifest
    }
}

/// The plugins of one app in one PostgreSQL transaction: SQL only.
extension PostgresContentTransaction {
    func plugin(_ identifier: String) async throws -> StoredPlugin? {
        try await store.storedPlugin(appId: appId, identifier: identifier, on: connection, lock: .update)
    }

    func pluginCount() async throws -> Int {
        try await store.number("SELECT count(*)::int FROM plugins WHERE app_id = \(appId)::uuid", on: connection)
    }

    func storedManifestBytes(_ identifier: String, version: String) async throws -> (manifest: Int, all: Int) {
        var bytes = (manifest: 0, all: 0)
        for try await row in try await connection.query(
            """
            SELECT coalesce((SELECT manifest_bytes FROM plugin_versions
                             WHERE app_id = \(appId)::uuid AND identifier = \(identifier) AND manifest_version = \(version)), 0),
                   (SELECT coalesce(sum(manifest_bytes), 0)::int FROM plugin_versions WHERE app_id = \(appId)::uuid)
            """, logger: logger
        ).decode((Int, Int).self) { bytes = row }
        return bytes
    }

    func versionCount(_ identifier: String) async throws -> Int {
        try await store.number(
            "SELECT count(*)::int FROM plugin_versions WHERE app_id = \(appId)::uuid AND identifier = \(identifier)", on: connection)
    }

    /// A stored manifest that no longer parses is another manifest (`null`).
    func storedManifest(_ identifier: String, version: String) async throws -> JSONValue? {
        for try await stored in try await connection.query(
            """
            SELECT manifest::text FROM plugin_versions
            WHERE app_id = \(appId)::uuid AND identifier = \(identifier) AND manifest_version = \(version)
            """, logger: logger
        ).decode(String.self) {
            return (try? JSONValue.parse(Array(stored.utf8))) ?? .null
        }
        return nil
    }

    func insertPlugin(_ identifier: String, currentVersion version: String) async throws {
        try await connection.query(
            "INSERT INTO plugins (app_id, identifier, current_version) VALUES (\(appId)::uuid, \(identifier), \(version))", logger: logger)
    }

    func insertVersion(_ manifest: PluginManifest) async throws {
        try await connection.query(
            """
            INSERT INTO plugin_versions (app_id, identifier, manifest_version, manifest)
            VALUES (\(appId)::uuid, \(manifest.identifier), \(manifest.manifestVersion), \(manifest.raw.serializedString())::jsonb)
            """, logger: logger)
    }

    func replaceVersion(_ manifest: PluginManifest) async throws {
        try await connection.query(
            """
            UPDATE plugin_versions SET manifest = \(manifest.raw.serializedString())::jsonb
            WHERE app_id = \(appId)::uuid AND identifier = \(manifest.identifier) AND manifest_version = \(manifest.manifestVersion)
            """, logger: logger)
    }

    func makeCurrent(_ identifier: String, version: String) async throws {
        try await connection.query(
            """
            UPDATE plugins SET current_version = \(version), revision = revision + 1, updated_at = now()
            WHERE app_id = \(appId)::uuid AND identifier = \(identifier)
            """, logger: logger)
    }

    func delete(plugin identifier: String) async throws {
        try await connection.query("DELETE FROM plugins WHERE app_id = \(appId)::uuid AND identifier = \(identifier)", logger: logger)
    }

    func screens() async throws -> [Screen] {
        try await store.content(appId: appId, on: connection).screens
    }

    func layouts(usingComponentType componentType: String) async throws -> [ResourceUse] {
        var users: [ResourceUse] = []
        for try await (layoutId, name) in try await connection.query(
            """
            SELECT id, body->>'name' FROM layouts
            WHERE app_id = \(appId)::uuid
              AND jsonb_path_exists(body, '$.** ? (@.component_type == $id)', jsonb_build_object('id', \(componentType)::text))
            ORDER BY position
            """, logger: logger
        ).decode((String, String).self) {
            users.append(ResourceUse(kind: .layout, id: layoutId, name: name, via: .ways(["component"])))
        }
        return users
    }
}

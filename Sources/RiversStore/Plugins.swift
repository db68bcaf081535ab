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
    /// Apps kept, least recently used first out (a registry is rebuilt on its next use).
    static let capacity = 1_000
    private let entries = NIOLockedValueBox(LRUCache<String, Entry>(budget: RegistryCache.capacity))

    func registry(appId: String, stamp: String) -> PluginRegistry? {
        entries.withLockedValue { $0.get(appId).flatMap { $0.stamp == stamp ? $0.registry : nil } }
    }

    func store(_ registry: PluginRegistry, appId: String, stamp: String) {
        entries.withLockedValue { _ = $0.insert(appId, Entry(stamp: stamp, registry: registry), cost: 1) }
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
        for try await (identifier, current, version, manifest) in rows.decode((String, String, String, String).self) {
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
        registries.store(registry, appId: appId, stamp: stamp)
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

    /// Registers a manifest: a new plugin, or a new version of one (which becomes current). The
    /// same version again with the same manifest changes nothing; with another manifest it is a
    /// conflict unless `replace` (PUT) says to replace it.
    public func registerPlugin(
        appId: String, manifestJSON: JSONValue, expectedIdentifier: String? = nil, precondition: RevisionPrecondition = .none, replace: Bool = false
    ) async throws -> (plugin: StoredPlugin, created: Bool) {
        let manifest: PluginManifest
        do {
            manifest = try PluginManifest.parse(manifestJSON)
        } catch {
            throw StoreError.invalid(error.errors)
        }
        if let expectedIdentifier, expectedIdentifier != manifest.identifier {
            throw StoreError.invalid([FieldError("/identifier", "must be \(expectedIdentifier), the plugin this request replaces")])
        }
        let id = manifest.identifier
        let version = manifest.manifestVersion
        let text = manifest.raw.serializedString()
        return try await client.transaction(logger: logger) { connection in
            _ = try await lockApp(appId, on: connection)
            let existing = try await storedPlugin(appId: appId, identifier: id, on: connection, lock: .update)
            if let existing {
                try precondition.check(existing.revision)
            } else if expectedIdentifier != nil {
                throw StoreError.notFound("no plugin \(id) in this app")
            }
            if existing == nil {
                try AppCaps.refuseAtCap(
                    try await number("SELECT count(*)::int FROM plugins WHERE app_id = \(appId)::uuid", on: connection),
                    limit: Limits.maxPluginsPerApp, "plugins")
                try await connection.query(
                    "INSERT INTO plugins (app_id, identifier, current_version) VALUES (\(appId)::uuid, \(id), \(version))", logger: logger)
            }
            var sameVersion: String?
            for try await stored in try await connection.query(
                """
                SELECT manifest::text FROM plugin_versions
                WHERE app_id = \(appId)::uuid AND identifier = \(id) AND manifest_version = \(version)
                """, logger: logger
            ).decode(String.self) { sameVersion = stored }
            if let sameVersion {
                let unchanged = (try? JSONValue.parse(Array(sameVersion.utf8))) == manifest.raw
                if unchanged, let existing, existing.currentVersion == version {
                    return (existing, false)
                }
                if !unchanged, !replace {
                    throw StoreError.conflict(
                        "plugin \(id) has a version \(version) already with another manifest: raise manifest_version, or PUT to replace it",
                        usedBy: [])
                }
                try await connection.query(
                    """
                    UPDATE plugin_versions SET manifest = \(text)::jsonb
                    WHERE app_id = \(appId)::uuid AND identifier = \(id) AND manifest_version = \(version)
                    """, logger: logger)
            } else {
                try AppCaps.refuseAtCap(
                    try await number(
                        "SELECT count(*)::int FROM plugin_versions WHERE app_id = \(appId)::uuid AND identifier = \(id)", on: connection),
                    limit: Limits.maxVersionsPerPlugin, "versions of plugin \(id)")
                try await connection.query(
                    """
                    INSERT INTO plugin_versions (app_id, identifier, manifest_version, manifest)
                    VALUES (\(appId)::uuid, \(id), \(version), \(text)::jsonb)
                    """, logger: logger)
            }
            if existing != nil {
                try await connection.query(
                    """
                    UPDATE plugins SET current_version = \(version), revision = revision + 1, updated_at = now()
                    WHERE app_id = \(appId)::uuid AND identifier = \(id)
                    """, logger: logger)
            }
            guard let plugin = try await storedPlugin(appId: appId, identifier: id, on: connection, lock: .none) else {
                throw StoreError.notFound("no plugin \(id) in this app")
            }
            return (plugin, existing == nil)
        }
    }

    /// Deletes a plugin nothing uses.
    public func deletePlugin(appId: String, identifier: String, precondition: RevisionPrecondition) async throws {
        try await client.transaction(logger: logger) { connection in
            _ = try await lockApp(appId, on: connection)
            guard let existing = try await storedPlugin(appId: appId, identifier: identifier, on: connection, lock: .update) else {
                throw StoreError.notFound("no plugin \(identifier) in this app")
            }
            try precondition.check(existing.revision)
            let content = try await self.content(appId: appId, on: connection)
            var users = PluginRegistry().uses(of: identifier, in: content.screens)
            for try await (layoutId, name) in try await connection.query(
                """
                SELECT id, body->>'name' FROM layouts
                WHERE app_id = \(appId)::uuid
                  AND jsonb_path_exists(body, '$.** ? (@.component_type == $id)', jsonb_build_object('id', \(identifier)::text))
                ORDER BY position
                """, logger: logger
            ).decode((String, String).self) {
                users.append(ResourceUse(kind: .layout, id: layoutId, name: name, via: .ways(["component"])))
            }
            if !users.isEmpty {
                throw StoreError.conflict("plugin \(identifier) is used by \(users.count) screen(s) or layout(s)", usedBy: users)
            }
            try await connection.query(
                "DELETE FROM plugins WHERE app_id = \(appId)::uuid AND identifier = \(identifier)", logger: logger)
        }
    }
}

import Foundation
import RiversCore
import RiversStore

/// The use cases of plugins: register a manifest (a new plugin, or a new version of one, which
/// becomes current; a version again with another manifest only when replacing) and remove a
/// plugin nothing uses, each one transaction over a `PluginStorage`.
public struct PluginService: Sendable {
    let storage: any PluginStorage

    public init(storage: any PluginStorage) { self.storage = storage }

    /// Registers a manifest. The same version again with the same manifest changes nothing; with
    /// another manifest it is a conflict unless `replace` (PUT) says to replace it.
    /// `expectedIdentifier` (PUT) is the plugin the request names, which must exist.
    public func register(
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
        return try await storage.withPlugins(appId: appId) { tx in
            let existing = try await tx.plugin(id)
            if let existing {
                try precondition.check(existing.revision)
            } else if expectedIdentifier != nil {
                throw StoreError.notFound("no plugin \(id) in this app")
            }
            if existing == nil {
                try AppCaps.refuseAtCap(try await tx.pluginCount(), limit: Limits.maxPluginsPerApp, "plugins")
                try await tx.insertPlugin(id, currentVersion: version)
            }
            if let stored = try await tx.storedManifest(id, version: version) {
                let unchanged = stored == manifest.raw
                if unchanged, let existing, existing.currentVersion == version {
                    return (existing, false)
                }
                if !unchanged, !replace {
                    throw StoreError.conflict(
                        "plugin \(id) has a version \(version) already with another manifest: raise manifest_version, or PUT to replace it",
                        usedBy: [])
                }
                try await tx.replaceVersion(manifest)
            } else {
                try AppCaps.refuseAtCap(try await tx.versionCount(id), limit: Limits.maxVersionsPerPlugin, "versions of plugin \(id)")
                try await tx.insertVersion(manifest)
            }
            try AppCaps.checkManifestBytes(try await tx.storedManifestBytes(id, version: version))
            if existing != nil { try await tx.makeCurrent(id, version: version) }
            guard let plugin = try await tx.plugin(id) else { throw StoreError.notFound("no plugin \(id) in this app") }
            return (plugin, existing == nil)
        }
    }

    /// Removes a plugin no screen or layout uses.
    public func delete(appId: String, identifier: String, precondition: RevisionPrecondition) async throws {
        try await storage.withPlugins(appId: appId) { tx in
            guard let existing = try await tx.plugin(identifier) else { throw StoreError.notFound("no plugin \(identifier) in this app") }
            try precondition.check(existing.revision)
            let users = PluginRegistry().uses(of: identifier, in: try await tx.screens())
                + (try await tx.layouts(usingComponentType: identifier))
            if !users.isEmpty {
                throw StoreError.conflict("plugin \(identifier) is used by \(users.count) screen(s) or layout(s)", usedBy: users)
            }
            try await tx.delete(plugin: identifier)
        }
    }
}

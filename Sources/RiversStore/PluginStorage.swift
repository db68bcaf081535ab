import Foundation
import RiversCore

/// Where plugin manifests are kept, for their use cases (`PluginService` in RiversServices): the
/// service decides what registering a manifest or removing a plugin does; a storage only reads and
/// writes. `Store` carries each call out in SQL on one transaction (the app's row locked);
/// `InMemoryContent` on a copy of the app it commits only when the work returns.
public protocol PluginStorage: Sendable {
    func withPlugins<T: Sendable>(appId: String, _ work: @escaping @Sendable (any PluginTransaction) async throws -> T) async throws -> T
}

/// The plugins of one app inside one transaction.
public protocol PluginTransaction: AnyObject {
    /// The plugin with its current manifest and versions, locked for update; nil when there is none.
    func plugin(_ identifier: String) async throws -> StoredPlugin?
    func pluginCount() async throws -> Int
    func versionCount(_ identifier: String) async throws -> Int
    /// The stored size, after a write, of one manifest version and of every version of every
    /// plugin of the app together.
    func storedManifestBytes(_ identifier: String, version: String) async throws -> (manifest: Int, all: Int)
    /// The manifest stored for one version of a plugin, as registered; nil when there is none.
    func storedManifest(_ identifier: String, version: String) async throws -> JSONValue?
    /// A new plugin whose current version is `version` (its manifest comes with `insertVersion`).
    func insertPlugin(_ identifier: String, currentVersion version: String) async throws
    /// A new version of a plugin.
    func insertVersion(_ manifest: PluginManifest) async throws
    /// Another manifest for a version the plugin has.
    func replaceVersion(_ manifest: PluginManifest) async throws
    /// Points the plugin at `version`, at its next revision.
    func makeCurrent(_ identifier: String, version: String) async throws
    func delete(plugin identifier: String) async throws
    /// The app's screens, typed (what uses a plugin is the domain's rule, `PluginRegistry.uses`).
    func screens() async throws -> [Screen]
    /// The layouts with a component of type `componentType`, at any depth, in the app's order.
    func layouts(usingComponentType componentType: String) async throws -> [ResourceUse]
}

import Foundation
import RiversCore

/// Where published versions and channels are kept, for the publishing use cases (`PublishService`
/// in RiversServices): the service decides what a publish or a rollback stores and where the
/// channel points; a storage only reads and writes. `Store` carries each call out in SQL on one
/// transaction (the app's row locked: publishes of an app queue and get consecutive numbers);
/// `InMemoryContent` on a copy of the app it commits only when the work returns.
public protocol VersionStorage: Sendable {
    func withVersions<T: Sendable>(appId: String, _ work: @escaping @Sendable (any VersionTransaction) async throws -> T) async throws -> T
}

/// The app's draft as a publish reads it: what the publish check looks at, and its document,
/// written only when asked for (a draft the check refuses is never written out).
public struct Draft: Sendable {
    public var screens: [Screen]
    public var families: [String: Family]
    public var registry: PluginRegistry
    let writeDocument: @Sendable () -> [UInt8]

    public init(screens: [Screen], families: [String: Family], registry: PluginRegistry, document: @escaping @Sendable () -> [UInt8]) {
        self.screens = screens
        self.families = families
        self.registry = registry
        self.writeDocument = document
    }

    /// The bytes of rivers.json as the draft would be published.
    public func document() -> [UInt8] { writeDocument() }
}

/// The versions of one app inside one transaction, and its channels (a publish moves one).
public protocol VersionTransaction: ReleaseTransaction {
    /// The draft: every screen in display order, the families, the plugins, the document.
    func draft() async throws -> Draft
    /// A version whole (its document and gzip), or nil.
    func version(number: Int) async throws -> PublishedVersion?
    /// The hash of a version's document, or nil (hashes are compared without reading documents).
    func sha256(ofVersion number: Int) async throws -> String?
    /// Stores a new version (its `createdAt` is the storage's); answers with when it was made.
    func insert(_ version: PublishedVersion) async throws -> Date
}

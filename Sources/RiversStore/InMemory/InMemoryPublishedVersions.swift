import Foundation
import NIOConcurrencyHelpers
import RiversCore

/// Published apps held in memory: a `PublishedDocumentSource` without PostgreSQL, for the fast
/// tier's tests of the public path (what `Store` reads with SQL, kept here in dictionaries). It
/// publishes as the store does for what the public URLs see: consecutive numbers, the bytes and
/// their gzip, the SHA-256, production pointed at the new version, the newest number.
public final class InMemoryPublishedVersions: PublishedDocumentSource {
    private struct State {
        /// The index by slug.
        var entries: [String: PublishedIndexEntry] = [:]
        /// Every version of an app, by app id, oldest first.
        var versions: [String: [PublishedVersion]] = [:]
    }

    private let state = NIOLockedValueBox(State())

    public init() {}

    /// Stores `document` as the app's next version and points production at it.
    @discardableResult
    public func publish(slug: String, appId: String, document: [UInt8], note: String = "") -> PublishedVersion {
        state.withLockedValue { state in
            let number = (state.versions[appId]?.count ?? 0) + 1
            let version = PublishedVersion(
                appId: appId, number: number, sha256: sha256Hex(document), document: document, gzip: Gzip.compress(document),
                publishedBy: "memory", note: note, rollbackOf: nil, createdAt: Date())
            state.versions[appId, default: []].append(version)
            var entry = state.entries[slug] ?? PublishedIndexEntry(slug: slug, appId: appId, number: 0, sha256: "")
            entry.number = number
            entry.sha256 = version.sha256
            entry.newest = number
            entry.generation += 1
            state.entries[slug] = entry
            return version
        }
    }

    public func publishedIndex() async throws -> [PublishedIndexEntry] {
        state.withLockedValue { Array($0.entries.values) }
    }

    public func publishedIndexEntry(slug: String) async throws -> PublishedIndexEntry? {
        state.withLockedValue { $0.entries[slug] }
    }

    public func currentDocument(slug: String) async throws -> PublishedVersion? {
        state.withLockedValue { state in
            guard let entry = state.entries[slug], entry.number > 0 else { return nil }
            return state.versions[entry.appId]?[entry.number - 1]
        }
    }

    public func document(slug: String, number: Int) async throws -> PublishedVersion? {
        state.withLockedValue { state in
            guard let entry = state.entries[slug], let versions = state.versions[entry.appId], number >= 1, number <= versions.count else { return nil }
            return versions[number - 1]
        }
    }
}

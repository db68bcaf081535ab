import Foundation
import NIOConcurrencyHelpers
import NIOCore
import RiversStore
import Testing

@testable import RiversServer

/// The public path's documents on an in-memory source (no PostgreSQL: the fast tier). The SQL
/// source is the same protocol; the API and fault suites read it for real.
@Suite("Published documents on an in-memory source")
struct PublishedDocumentsMemoryTests {
    let appId = "0b5c6f5e-0000-4000-8000-000000000002"
    let slug = "memory-app"

    /// The index is read without documents; a document is read once, when first asked for, and
    /// a new version published elsewhere is seen at the next index check.
    @Test func theIndexSaysWhatIsCurrentAndDocumentsAreReadOnDemand() async throws {
        let source = InMemoryPublishedVersions()
        source.publish(slug: slug, appId: appId, document: Array(#"[{"name":"Home"}]"#.utf8))
        let documents = PublishedDocuments(store: source, cacheBytes: 1 << 20)
        #expect(!documents.isLoaded)
        try await documents.reloadAll()
        #expect(documents.isLoaded)
        #expect(documents.cacheUsage.count == 0, "the index holds no documents")
        #expect(!documents.canServe(slug: slug, number: nil), "known, but not in memory yet")
        #expect(documents.canServe(slug: "nothing-published-here", number: nil), "a 404 needs no source")
        let first = try #require(try await documents.document(slug: slug, number: nil))
        #expect(first.number == 1)
        #expect(documents.canServe(slug: slug, number: nil))
        #expect(documents.cacheUsage.count == 1)
        #expect(try await documents.document(slug: "nothing-published-here", number: nil) == nil)

        // Version 2, published elsewhere (another process, for these documents).
        source.publish(slug: slug, appId: appId, document: Array(#"[{"name":"Home 2"}]"#.utf8))
        #expect(try await documents.document(slug: slug, number: nil)?.number == 1, "until the index is checked")
        try await documents.reloadAll()
        #expect(try await documents.document(slug: slug, number: nil)?.number == 2)
        #expect(try await documents.document(slug: slug, number: 1)?.number == 1, "older versions stay readable")

        // A notification refreshes one app; its previous document was hot, so the new one is
        // read at once and stays served from memory.
        source.publish(slug: slug, appId: appId, document: Array(#"[{"name":"Home 3"}]"#.utf8))
        try await documents.refresh(slug: slug)
        #expect(documents.hasVersion(slug: slug, number: 3))
        let third = try #require(try await documents.document(slug: slug, number: nil))
        #expect(third.number == 3 && String(buffer: third.body) == #"[{"name":"Home 3"}]"#)
    }

    @Test("many requests for a document not in memory at once: one read, whose answer they all get")
    func concurrentMissesShareOneRead() async throws {
        let source = InMemoryPublishedVersions()
        source.publish(slug: slug, appId: appId, document: Array(#"[{"name":"Home"}]"#.utf8))
        let versions = SlowVersions(source: source)
        let documents = PublishedDocuments(store: versions, cacheBytes: 1 << 20)
        try await documents.reloadAll()
        let slug = self.slug

        let numbers = try await withThrowingTaskGroup(of: Int?.self) { group in
            for _ in 0..<20 { group.addTask { try await documents.document(slug: slug, number: nil)?.number } }
            return try await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        #expect(numbers == Array(repeating: 1, count: 20))
        #expect(versions.reads.withLockedValue { $0 } == 1)
        #expect(documents.readsUnderWay == 0, "nothing left behind")

        // Before the index is loaded the current document is asked of the source: once too; and
        // a client that goes away does not take the read from the one waiting with it.
        let cold = PublishedDocuments(store: versions, cacheBytes: 1 << 20)
        versions.reads.withLockedValue { $0 = 0 }
        let leaving = Task { try await cold.document(slug: slug, number: nil)?.number }
        try await Task.sleep(for: .milliseconds(50))
        let staying = Task { try await cold.document(slug: slug, number: nil)?.number }
        leaving.cancel()
        #expect(try await staying.value == 1)
        #expect(versions.reads.withLockedValue { $0 } == 1)
    }
}

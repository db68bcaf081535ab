import Foundation
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import RiversCore
import RiversStore
import Testing

@testable import RiversServer

/// Issue 13: documents in a byte-budgeted LRU, the published index read without the documents.
@Suite("Published documents: LRU cache and index")
struct DocumentCacheTests {
    func document(_ number: Int, bytes: Int) -> ServedDocument {
        ServedDocument(PublishedVersion(
            number: number, sha256: "sha\(number)", document: Array(repeating: 0x20, count: bytes), gzip: [], publishedBy: "t",
            note: "", rollbackOf: nil, createdAt: Date()))
    }

    func key(_ app: String, _ n: Int = 1) -> DocumentCache.Key { .init(appId: app, number: n) }

    @Test func theLeastRecentlyUsedGoFirstWithinTheByteBudget() {
        let each = DocumentCache.cost(document(1, bytes: 1000))
        #expect(each > 1000 + DocumentCache.overheadPerEntry, "the header blocks count too")
        var cache = DocumentCache(budget: 3 * each)
        cache.insert(key("a"), document(1, bytes: 1000))
        cache.insert(key("b"), document(1, bytes: 1000))
        cache.insert(key("c"), document(1, bytes: 1000))
        #expect(cache.bytes == 3 * each)
        #expect(cache.keysByRecency == [key("c"), key("b"), key("a")])
        // Reading a makes it the most recent: b is now the oldest, and goes when d comes.
        #expect(cache.get(key("a"))?.number == 1)
        cache.insert(key("d"), document(1, bytes: 1000))
        #expect(cache.keysByRecency == [key("d"), key("a"), key("c")])
        #expect(!cache.contains(key("b")))
        #expect(cache.bytes == 3 * each)
        // A big one pushes out as many as it needs.
        cache.insert(key("e"), document(1, bytes: 2000))
        #expect(cache.keysByRecency == [key("e"), key("d")])
        #expect(cache.bytes <= cache.budget)
        // One larger than the whole budget is not kept at all.
        cache.insert(key("huge"), document(1, bytes: 10 * each))
        #expect(!cache.contains(key("huge")))
        #expect(cache.keysByRecency == [key("e"), key("d")])
        // Freed slots are reused; replacing an entry recounts its bytes.
        cache.insert(key("d"), document(1, bytes: 10))
        #expect(cache.bytes == DocumentCache.cost(document(1, bytes: 2000)) + DocumentCache.cost(document(1, bytes: 10)))
        for i in 0..<100 { cache.insert(key("x\(i)"), document(1, bytes: 1000)) }
        #expect(cache.count == 3)
        #expect(cache.keysByRecency == [key("x99"), key("x98"), key("x97")])
    }

    @Test func versionsOfOneAppAreKeptApart() {
        var cache = DocumentCache(budget: 1 << 20)
        cache.insert(key("a", 1), document(1, bytes: 10))
        cache.insert(key("a", 2), document(2, bytes: 10))
        #expect(cache.get(key("a", 1))?.number == 1)
        #expect(cache.get(key("a", 2))?.number == 2)
        #expect(cache.get(key("a", 3)) == nil)
    }

    /// While the database is away, a document in the cache is served and one that is not answers
    /// 503 at once (it would need the database), never a wait or a 500.
    @Test func whileTheDatabaseIsAwayCachedDocumentsAreServedAndColdOnesAre503() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            _ = try await api.create("screens", screenBody("Home", components: [component("list", source: "feed-1")]))
            #expect(try await api.request(.post, "publish").status == .created)
            let store = Store(client: try await TestDatabase.client(), logger: testLogger)
            let documents = PublishedDocuments(store: store, cacheBytes: 1 << 20)
            try await documents.reloadAll()
            let availability = DatabaseAvailability(ready: false)
            let router = buildRouter(store: store, configuration: testConfiguration(), documents: documents, availability: availability)
            let slug = api.app.slug
            try await Application(router: router, logger: testLogger).test(.router) { client in
                try await client.execute(uri: "/rivers/\(slug)/rivers.json", method: .get) { response in
                    #expect(response.status == .serviceUnavailable, "not in memory yet: it needs the database")
                    // A web client reads why; no cache keeps it.
                    #expect(response.headers[.accessControlAllowOrigin] == "*" && response.headers[.cacheControl] == "no-store")
                }
                try await client.execute(uri: "/rivers/nothing-published/rivers.json", method: .get) { response in
                    #expect(response.status == .notFound, "the index answers a 404 without the database")
                    #expect(response.headers[.accessControlAllowOrigin] == "*" && response.headers[.cacheControl] == "no-store")
                }
                // Once read (the database was there for a moment), it is served from memory.
                _ = try await documents.document(slug: slug, number: nil)
                try await client.execute(uri: "/rivers/\(slug)/rivers.json", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.eTag]?.isEmpty == false)
                }
            }
        }
    }

    /// Numbered URLs need no token: reading every old version must not push the current
    /// documents out (they have their own eighth of the budget), and a version the index says
    /// cannot exist is a 404 without the database.
    @Test func oldVersionsCannotFlushCurrentDocuments() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let screen = try await api.create("screens", screenBody("Home", components: [component("list", source: "feed-1")]))
            let id = screen["id"]!.stringValue!
            for n in 1...4 {
                _ = try await api.request(.patch, "screens/\(id)", json: ["name": .string("Home \(n)")])
                #expect(try await api.request(.post, "publish").status == .created)
            }
            let store = Store(client: try await TestDatabase.client(), logger: testLogger)
            let slug = api.app.slug
            let size = DocumentCache.cost(ServedDocument(try #require(try await store.document(slug: slug, number: 4))))
            // An eighth is room for one older version.
            let documents = PublishedDocuments(store: store, cacheBytes: size * 8 + size / 2)
            #expect(documents.cacheBudgets.older >= size && documents.cacheBudgets.older < 2 * size)
            try await documents.reloadAll()
            #expect(try await documents.document(slug: slug, number: nil)?.number == 4)
            for _ in 0..<3 {
                for n in 1...3 { #expect(try await documents.document(slug: slug, number: n)?.number == n) }
            }
            #expect(documents.hasVersion(slug: slug, number: 4), "the current document stays")
            #expect(documents.hasVersion(slug: slug, number: 3), "the last old version read is kept")
            #expect(!documents.hasVersion(slug: slug, number: 1) && !documents.hasVersion(slug: slug, number: 2))
            // Asking for v4 by number finds the current document, not a second copy.
            #expect(try await documents.document(slug: slug, number: 4)?.number == 4)
            #expect(documents.cacheUsage.count == 2)

            // Above the current version, or an unknown slug: answered from the index alone.
            #expect(documents.canServe(slug: slug, number: 5))
            #expect(try await documents.document(slug: slug, number: 5) == nil)
            #expect(documents.canServe(slug: "never-published", number: 1))
            #expect(try await documents.document(slug: "never-published", number: 1) == nil)
            #expect(!documents.canServe(slug: slug, number: 1), "old, not in memory: it needs the database")
        }
    }

    /// The periodic check moves a hot app to its new document at once (read before the index
    /// points at it); a cold app stays cold.
    @Test func thePeriodicCheckKeepsHotAppsHot() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let screen = try await api.create("screens", screenBody("Home", components: [component("list", source: "feed-1")]))
            #expect(try await api.request(.post, "publish").status == .created)
            let store = Store(client: try await TestDatabase.client(), logger: testLogger)
            let documents = PublishedDocuments(store: store, cacheBytes: 1 << 22)
            try await documents.reloadAll()
            let slug = api.app.slug
            _ = try await documents.document(slug: slug, number: nil)
            _ = try await api.request(.patch, "screens/\(screen["id"]!.stringValue!)", json: ["name": "Home 2"])
            #expect(try await api.request(.post, "publish").status == .created)
            try await documents.reloadAll()
            #expect(documents.hasVersion(slug: slug, number: 2), "read by the check, not by the first app start")
            #expect(documents.cached(slug: slug, number: nil)?.number == 2)
        }
    }

    @Test func theDocumentHandlerKnowsOnlyThePublicDocumentPaths() {
        typealias Fast = PublicDocumentPath
        #expect(Fast.parse("/rivers/my-app/rivers.json")! == ("my-app", nil))
        #expect(Fast.parse("/rivers/my-app/v12/rivers.json")! == ("my-app", 12))
        #expect(Fast.parse("/rivers/my-app/rivers.json?x=/rivers.json")! == ("my-app", nil))
        #expect(Fast.parse("/rivers/a/v7/rivers.json?")! == ("a", 7))
        for other in [
            "/rivers/my-app/rivers.jsonx", "/rivers//rivers.json", "/rivers/rivers.json", "/rivers/a/b/c/rivers.json",
            "/rivers/a/v0/rivers.json", "/rivers/a/v/rivers.json", "/rivers/a/x1/rivers.json", "/rivers/a/v1x/rivers.json",
            "/rivers/a/v99999999999/rivers.json", "/rivers/my%2Dapp/rivers.json", "/api/v1/apps", "/",
            "/rivers//v1/rivers.json", "/rivers/a/v1/c/rivers.json", "/rivers/a/rivers.json/x", "/x/rivers/a/rivers.json",
            "/rivers/a/rivers.jso?n", "",
        ] {
            #expect(Fast.parse(other) == nil, "\(other)")
        }
    }

    @Test func theBudgetIsASetting() throws {
        #expect(try ServerConfiguration.fromEnvironment(["DOCUMENT_CACHE_BYTES": "1000"]).documentCacheBytes == 1000)
        #expect(try ServerConfiguration.fromEnvironment([:]).documentCacheBytes == 128 * 1024 * 1024)
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.fromEnvironment(["DOCUMENT_CACHE_BYTES": "lots"]) }
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.fromEnvironment(["DOCUMENT_CACHE_BYTES": "-1"]) }
    }
}

/// A source of published documents with its document reads counted and slowed down so that
/// requests overlap.
final class SlowVersions: PublishedDocumentSource {
    let source: any PublishedDocumentSource
    let reads = NIOLockedValueBox(0)
    /// How long each document read takes.
    let delay: Duration
    init(source: any PublishedDocumentSource, delay: Duration = .milliseconds(200)) {
        self.source = source
        self.delay = delay
    }

    func document(slug: String, number: Int) async throws -> PublishedVersion? {
        reads.withLockedValue { $0 += 1 }
        try await Task.sleep(for: delay)
        return try await source.document(slug: slug, number: number)
    }
    func currentDocument(slug: String) async throws -> PublishedVersion? {
        reads.withLockedValue { $0 += 1 }
        try await Task.sleep(for: delay)
        return try await source.currentDocument(slug: slug)
    }
    func publishedIndex() async throws -> [PublishedIndexEntry] { try await source.publishedIndex() }
    func publishedIndexEntry(slug: String) async throws -> PublishedIndexEntry? { try await source.publishedIndexEntry(slug: slug) }
}

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

    /// Issue 26: an app's current document is found without the lock (the lock-free index),
    /// follows every publish, and leaves memory when the cache drops it.
    @Test("a hit on a current document takes no lock; the index and the cache's budget still hold")
    func currentDocumentsAreServedWithoutTheLock() async throws {
        let source = InMemoryPublishedVersions()
        source.publish(slug: slug, appId: appId, document: Array(#"[{"name":"Home"}]"#.utf8))
        let documents = PublishedDocuments(store: source, cacheBytes: 1 << 20)
        #expect(documents.cached(slug: slug, number: nil) == nil, "nothing before the index is loaded")
        try await documents.reloadAll()
        #expect(documents.cached(slug: slug, number: nil) == nil, "known, not in memory yet")
        let first = try #require(try await documents.document(slug: slug, number: nil))

        // Asked from another thread while the lock is held here: answered, so it took no lock
        // (one that did would wait until the lock is let go, and the wait below would time out).
        let answered = DispatchSemaphore(value: 0)
        let found = NIOLockedValueBox<ServedDocument?>(nil)
        documents.whileLocked {
            Thread.detachNewThread {
                found.withLockedValue { $0 = documents.cached(slug: self.slug, number: nil) }
                answered.signal()
            }
            #expect(answered.wait(timeout: .now() + 5) == .success, "the hit waited for the lock")
        }
        #expect(found.withLockedValue { $0 } === first)
        #expect(documents.cached(slug: slug, number: 1) === first, "its number is the same document")

        // A new version: the index moves on, the lock-free answer with it.
        let second = source.publish(slug: slug, appId: appId, document: Array(#"[{"name":"Home 2"}]"#.utf8))
        documents.update(slug: slug, version: second)
        #expect(documents.cached(slug: slug, number: nil)?.number == 2)
        #expect(documents.cached(slug: slug, number: 1)?.number == 1, "the older one, under the lock")
        documents.update(slug: slug, version: nil)
        #expect(documents.cached(slug: slug, number: nil) == nil, "a slug that serves nothing any more")
    }

    /// `count` apps of about 40 KB each, published on an in-memory source, and their documents
    /// (index loaded) with room for two and a half of them (body, gzip and headers each) among the
    /// current ones (seven eighths of the whole budget).
    func appsWithRoomForTwo(
        _ count: Int, slugPrefix: String, idDigit: Int
    ) async throws -> (InMemoryPublishedVersions, [(slug: String, appId: String)], PublishedDocuments) {
        let source = InMemoryPublishedVersions()
        let body = Array(repeating: UInt8(ascii: " "), count: 40_000)
        let apps = (0..<count).map { i in (slug: "\(slugPrefix)-\(i)", appId: "0b5c6f5e-0000-4000-8000-0000000000\(idDigit)\(i)") }
        let versions = apps.map { app in source.publish(slug: app.slug, appId: app.appId, document: Array("[\"\(app.slug)\"]".utf8) + body) }
        let each = DocumentCache.cost(ServedDocument(versions[0]))
        let documents = PublishedDocuments(store: source, cacheBytes: each * 5 / 2 * 8 / 7 + 8)
        #expect(documents.cacheBudgets.current / each == 2)
        try await documents.reloadAll()
        return (source, apps, documents)
    }

    @Test("a document the cache drops is no longer held for the lock-free path; one hit there gets a second chance")
    func droppedDocumentsLeaveTheLockFreeIndex() async throws {
        let (_, apps, documents) = try await appsWithRoomForTwo(4, slugPrefix: "app", idDigit: 1)
        for app in apps.prefix(2) { _ = try await documents.document(slug: app.slug, number: nil) }
        #expect(documents.cacheUsage.count == 2)
        // app-0 is hit on the lock-free path only: it stays when app-2 comes, app-1 goes.
        #expect(documents.cached(slug: apps[0].slug, number: nil) != nil)
        _ = try await documents.document(slug: apps[2].slug, number: nil)
        #expect(documents.cached(slug: apps[1].slug, number: nil) == nil, "dropped by the cache, gone from the index's slot")
        #expect(documents.cached(slug: apps[0].slug, number: nil) != nil)
        // Not hit since: its chance is spent, and it goes when app-3 comes.
        _ = try await documents.document(slug: apps[3].slug, number: nil)
        _ = try await documents.document(slug: apps[1].slug, number: nil)
        #expect(documents.cacheUsage.count == 2)
        #expect(documents.cacheUsage.bytes <= documents.cacheBudgets.current + documents.cacheBudgets.older)
        let held = apps.filter { documents.cached(slug: $0.slug, number: nil) != nil }.map(\.slug)
        #expect(held.count == 2, "only what the cache holds is served from memory: \(held)")
    }

    @Test("a connection's kept slot finds the current document again, follows every change, and holds no document the cache let go")
    func aKeptSlotFollowsTheIndexAndHoldsNoDocument() async throws {
        let (source, apps, documents) = try await appsWithRoomForTwo(3, slugPrefix: "kept", idDigit: 2)
        let body = Array(repeating: UInt8(ascii: " "), count: 40_000)
        var kept: PublishedDocuments.KeptSlot?
        #expect(documents.cached(slug: apps[0].slug, number: nil, kept: &kept) == nil, "not in memory yet")
        let first = try #require(try await documents.document(slug: apps[0].slug, number: nil))
        for _ in 0..<3 { #expect(documents.cached(slug: apps[0].slug, number: nil, kept: &kept) === first) }
        #expect(kept != nil)
        // Another slug on the same connection: its own document, not the kept one.
        #expect(documents.cached(slug: apps[1].slug, number: nil, kept: &kept) == nil)
        #expect(documents.cached(slug: apps[0].slug, number: nil, kept: &kept) === first)
        // A numbered URL is looked up (and leaves the kept slot as it is).
        #expect(documents.cached(slug: apps[0].slug, number: 1, kept: &kept) === first)
        #expect(documents.cached(slug: apps[0].slug, number: 2, kept: &kept) == nil)

        // A publish: the kept slot is outdated at once.
        let second = source.publish(slug: apps[0].slug, appId: apps[0].appId, document: Array(#"["kept-0, v2"]"#.utf8) + body)
        documents.update(slug: apps[0].slug, version: second)
        #expect(documents.cached(slug: apps[0].slug, number: nil, kept: &kept)?.number == 2)

        // The cache lets the kept app's document go (the other apps' take its place): the kept
        // slot holds it no longer, and nothing else here does either.
        weak var dropped = documents.cached(slug: apps[0].slug, number: nil, kept: &kept)
        #expect(dropped != nil)
        // (Asked without a hit: a hit gives a document a second chance in the cache.)
        for round in 0..<6 where documents.canServe(slug: apps[0].slug, number: nil) {
            _ = try await documents.document(slug: apps[1 + round % 2].slug, number: nil)
        }
        #expect(!documents.canServe(slug: apps[0].slug, number: nil), "still in the cache")
        #expect(documents.cached(slug: apps[0].slug, number: nil, kept: &kept) == nil, "what the cache let go is not served from memory")
        #expect(kept != nil && dropped == nil, "the kept slot held the document in memory past the cache's budget")

        // An app that serves nothing any more.
        documents.update(slug: apps[1].slug, version: nil)
        var keptOther: PublishedDocuments.KeptSlot?
        #expect(documents.cached(slug: apps[1].slug, number: nil, kept: &keptOther) == nil)
    }

    /// The lock-free index is cut into shards so that a publish copies one shard of slugs and one
    /// of apps, not an index of every app (`RiversPublicPathBench`: 15 ms a publish with 100,000
    /// apps when the whole index was copied, 0.05 ms now).
    @Test("a publish copies only the shards of the lock-free index it changes; every app is still found")
    func aPublishCopiesOnlyItsShards() async throws {
        let source = InMemoryPublishedVersions()
        let apps = (0..<2_000).map { i in (slug: "shard-\(i)", appId: "0b5c6f5e-0000-4000-8000-\(String(format: "%012x", i))") }
        for app in apps { source.publish(slug: app.slug, appId: app.appId, document: Array(#"{"v":1}"#.utf8)) }
        let documents = PublishedDocuments(store: source, cacheBytes: 1 << 20)
        try await documents.reloadAll()
        let before = documents.hot.load(ordering: .acquiring)
        #expect(before.slots.count == apps.count && before.serving.count == apps.count)
        #expect(apps.allSatisfy { before.slots[$0.slug]?.entry.appId == $0.appId && before.serving[$0.appId] === before.slots[$0.slug] })
        func changedShards(_ old: HotMap, _ new: HotMap) -> [Int] {
            zip(old.shards, new.shards).enumerated().filter { $0.element.0 !== $0.element.1 }.map(\.offset)
        }

        // The periodic check reads the same index: every shard is kept.
        try await documents.reloadAll()
        let reloaded = documents.hot.load(ordering: .acquiring)
        #expect(changedShards(before.slots, reloaded.slots).isEmpty && changedShards(before.serving, reloaded.serving).isEmpty)

        // One app publishes: its slug's shard and its app's shard are new, the rest shared.
        let app = apps[7]
        documents.update(slug: app.slug, version: source.publish(slug: app.slug, appId: app.appId, document: Array(#"{"v":2}"#.utf8)))
        let published = documents.hot.load(ordering: .acquiring)
        #expect(changedShards(reloaded.slots, published.slots) == [HotMap.shard(of: app.slug)])
        #expect(changedShards(reloaded.serving, published.serving) == [HotMap.shard(of: app.appId)])
        #expect(published.slots[app.slug]?.entry.number == 2 && published.serving[app.appId] === published.slots[app.slug])
        #expect(documents.cached(slug: app.slug, number: nil)?.number == 2)

        // Another stops serving: gone from both maps, and nothing else.
        let gone = apps[8]
        documents.update(slug: gone.slug, version: nil)
        let after = documents.hot.load(ordering: .acquiring)
        #expect(after.slots[gone.slug] == nil && after.serving[gone.appId] == nil)
        #expect(after.slots.count == apps.count - 1 && after.serving.count == apps.count - 1)
        #expect(changedShards(published.slots, after.slots).count == 1 && changedShards(published.serving, after.serving).count == 1)
        #expect(documents.isUnknown(slug: gone.slug) && !documents.isUnknown(slug: apps[9].slug))

        // The same change again changes nothing, and connections keep their slots.
        let generation = documents.generation
        documents.update(slug: gone.slug, version: nil)
        #expect(documents.hot.load(ordering: .acquiring) === after && documents.generation == generation)
    }

    @Test("slugs spread over the index's shards")
    func slugsSpreadOverTheShards() {
        var sizes = Array(repeating: 0, count: HotMap.shardCount)
        for i in 0..<25_600 { sizes[HotMap.shard(of: "app-\(i)")] += 1 }
        // 100 a shard on average.
        #expect(sizes.min()! >= 50 && sizes.max()! <= 200, "\(sizes.min()!)–\(sizes.max()!)")
    }

    @Test("many requests for a document not in memory at once: one read, whose answer they all get")
    func concurrentMissesShareOneRead() async throws {
        let source = InMemoryPublishedVersions()
        source.publish(slug: slug, appId: appId, document: Array(#"[{"name":"Home"}]"#.utf8))
        // Reads long enough that every caller joins the one under way even on a loaded machine
        // (with 200 ms, a caller kept waiting for a thread once came after it had ended).
        let versions = SlowVersions(source: source, delay: .seconds(2))
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
        // The second caller comes once the first one's read is under way.
        let started = ContinuousClock.now
        while versions.reads.withLockedValue({ $0 }) == 0, ContinuousClock.now - started < .seconds(10) {
            try await Task.sleep(for: .milliseconds(5))
        }
        let staying = Task { try await cold.document(slug: slug, number: nil)?.number }
        leaving.cancel()
        #expect(try await staying.value == 1)
        #expect(versions.reads.withLockedValue { $0 } == 1)
    }
}

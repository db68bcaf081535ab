import Atomics
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOHTTP1
import PostgresNIO
import RiversCore
import RiversStore
import ServiceLifecycle

/// A published document ready to send: its bytes, its gzip bytes, their ETags, and the whole
/// header block of every answer it can give, built once (no per-request string work). A class:
/// every cache hit hands it out, and a reference costs one retain where a copy costs one per field.
package final class ServedDocument: Sendable {
    /// Whose document it is and its hash: a hit is served only for the app the index names
    /// under that slug, and a current document only when its hash is the index's.
    let appId: String
    let sha256: String
    let number: Int
    let body: ByteBuffer
    let gzip: ByteBuffer
    let etag: String
    package let gzipETag: String
    /// The ETags' bytes, compared with an `If-None-Match` as received on the byte path.
    let etagBytes: [UInt8]
    let gzipETagBytes: [UInt8]
    /// Headers of a 200 (and HEAD) and of a 304, by [current or numbered URL][gzip or not], as
    /// HTTP types for the routes.
    let okHeaders: [[HTTPFields]]
    let notModifiedHeaders: [[HTTPFields]]
    /// The same eight blocks as the bytes of the status line and fields, for
    /// `PublicDocumentByteHandler` (which adds the date, the request id, any Connection field and
    /// the blank line), by `DocumentAnswer.headBlock`. Plain arrays: the handler copies one into
    /// its head buffer in a single write (each write into a `ByteBuffer` is an access
    /// checked for exclusivity at run time).
    let headBlocks: [[UInt8]]
    /// Served without the lock since the cache last looked (its second chance; see `HotIndex`).
    private let used = ManagedAtomic(false)

    /// Notes a hit the cache does not see. Written only when not set yet, so the cores serving
    /// a hot document share its cache line instead of taking it in turn.
    func markUsed() {
        if !used.load(ordering: .relaxed) { used.store(true, ordering: .relaxed) }
    }

    /// Whether it was served without the lock since the last call (under the cache's lock).
    func takeUse() -> Bool { used.exchange(false, ordering: .relaxed) }

    /// Which fields carry its cache tags (`CDN_TAG_HEADERS`), in its header blocks and in the
    /// tags the channel and app-version URLs add.
    let tagHeaders: CDNTagHeaders

    package init(_ version: PublishedVersion, tagHeaders: CDNTagHeaders = .both) {
        self.tagHeaders = tagHeaders
        appId = version.appId
        sha256 = version.sha256
        number = version.number
        body = ByteBuffer(bytes: version.document)
        gzip = ByteBuffer(bytes: version.gzip)
        // Strong validators, one per representation (RFC 9110 §8.8.3).
        etag = "\"\(version.sha256)\""
        gzipETag = "\"\(version.sha256)-gzip\""
        etagBytes = Array(etag.utf8)
        gzipETagBytes = Array(gzipETag.utf8)
        var ok: [[HTTPFields]] = []
        var notModified: [[HTTPFields]] = []
        for (cacheControl, channel) in [
            (PublicDocumentController.currentCacheControl, ChannelName.production as String?), (PublicDocumentController.versionCacheControl, nil),
        ] {
            var okRow: [HTTPFields] = []
            var notModifiedRow: [HTTPFields] = []
            for gzipped in [false, true] {
                var headers: HTTPFields = [
                    .eTag: gzipped ? gzipETag : etag, .cacheControl: cacheControl, .vary: "Accept-Encoding",
                    .accessControlAllowOrigin: "*", .accessControlExposeHeaders: "ETag, X-Rivers-Version",
                    .contentTypeOptions: "nosniff",
                ]
                headers[PublicDocumentController.versionHeader] = String(version.number)
                CacheTags(appId: version.appId, number: version.number, channel: channel).write(to: &headers, as: tagHeaders)
                notModifiedRow.append(headers)
                headers[.contentType] = "application/json; charset=utf-8"
                if gzipped { headers[.contentEncoding] = "gzip" }
                headers[.contentLength] = String(gzipped ? version.gzip.count : version.document.count)
                okRow.append(headers)
            }
            ok.append(okRow)
            notModified.append(notModifiedRow)
        }
        okHeaders = ok
        notModifiedHeaders = notModified
        func bytes(_ statusLine: String, _ fields: HTTPFields) -> [UInt8] { Array((statusLine + fields.headLines).utf8) }
        var blocks: [[UInt8]] = []
        for (statusLine, table) in [("HTTP/1.1 200 OK\r\n", ok), ("HTTP/1.1 304 Not Modified\r\n", notModified)] {
            for row in table { for fields in row { blocks.append(bytes(statusLine, fields)) } }
        }
        headBlocks = blocks
    }
}

extension ServedDocument: AtomicReference {}

/// What the public byte path reads without a lock (issue 26): every slug's index entry and,
/// when in memory, the app's current document. Immutable once published: a change of the index
/// makes a new one, swapped in atomically under the documents' lock. A publish or a
/// notification changes one slug, and copies only the shards it touches (`HotMap`); a document
/// read into the cache or dropped from it changes only its app's slot.
final class HotIndex: AtomicReference, Sendable {
    let loaded: Bool
    /// Each slug's slot.
    let slots: HotMap
    /// The slot of each app's serving slug (not a former slug's 301 or an archived app's 410), by app id.
    let serving: HotMap

    init(loaded: Bool, slots: HotMap, serving: HotMap) {
        self.loaded = loaded
        self.slots = slots
        self.serving = serving
    }
}

/// An immutable map of slots by slug or app id, cut into `shardCount` shards by a hash of the key:
/// a change makes a new map that copies the one shard it touches and shares every other, so a
/// publish costs about the same with a thousand apps as with a hundred thousand (one dictionary
/// of them all was copied whole, on every process, for each publish: 15 ms with 100,000 apps in
/// `RiversPublicPathBench`). A lookup hashes the key once more to find its shard.
struct HotMap: Sendable {
    static let shardCount = 256

    final class Shard: Sendable {
        let slots: [String: HotSlot]
        init(_ slots: [String: HotSlot]) { self.slots = slots }
    }

    let shards: [Shard]

    static let empty = HotMap(shards: Array(repeating: Shard([:]), count: shardCount))

    private init(shards: [Shard]) { self.shards = shards }

    /// The map of `slots`, sharing every shard of `old` whose slots are the same objects.
    init(_ slots: [String: HotSlot], reusing old: HotMap = .empty) {
        var split = Array(repeating: [String: HotSlot](), count: Self.shardCount)
        for (key, slot) in slots { split[Self.shard(of: key)][key] = slot }
        shards = split.enumerated().map { index, slots in
            let previous = old.shards[index]
            let same = previous.slots.count == slots.count && slots.allSatisfy { previous.slots[$0.key] === $0.value }
            return same ? previous : Shard(slots)
        }
    }

    /// The shard of `key`: FNV-1a of its UTF-8 bytes (a few nanoseconds for a slug; the
    /// shard's dictionary hashes the key with its own seeded hash).
    static func shard(of key: String) -> Int {
        var hash: UInt32 = 2_166_136_261
        for byte in key.utf8 {
            hash ^= UInt32(byte)
            hash &*= 16_777_619
        }
        return Int(hash % UInt32(shardCount))
    }

    subscript(key: String) -> HotSlot? { shards[Self.shard(of: key)].slots[key] }

    var count: Int { shards.reduce(0) { $0 + $1.slots.count } }

    /// The same map with `key` set to `slot` (removed when nil): one shard copied.
    func setting(_ key: String, to slot: HotSlot?) -> HotMap {
        let index = Self.shard(of: key)
        var slots = shards[index].slots
        slots[key] = slot
        var shards = shards
        shards[index] = Shard(slots)
        return HotMap(shards: shards)
    }
}

/// One slug's entry and, when the cache holds it, the current document it names (set and
/// cleared only under the documents' lock, with the cache; read without it).
final class HotSlot: Sendable {
    let entry: PublishedIndexEntry
    let current = ManagedAtomic<ServedDocument?>(nil)

    init(entry: PublishedIndexEntry) { self.entry = entry }
}

/// The tags a CDN purges public answers by (`Surrogate-Key` for Fastly and others, `Cache-Tag`
/// for Cloudflare): the app, the version, the channel the URL names or resolved to, and `rules`
/// on the app-version URLs (what they serve changes with the release rules).
struct CacheTags {
    var appId: String
    var number: Int
    var channel: String?
    var byRules = false

    static let surrogateKey = HTTPField.Name("Surrogate-Key")!
    static let cacheTag = HTTPField.Name("Cache-Tag")!

    var tags: [String] {
        var tags = ["app-\(appId)", "app-\(appId)-v\(number)"]
        if let channel { tags.append("app-\(appId)-channel-\(channel)") }
        if byRules { tags.append("app-\(appId)-rules") }
        return tags
    }

    func write(to headers: inout HTTPFields, as fields: CDNTagHeaders) {
        guard !fields.isEmpty else { return }
        let tags = tags
        if fields.contains(.surrogateKey) { headers[Self.surrogateKey] = tags.joined(separator: " ") }
        if fields.contains(.cacheTag) { headers[Self.cacheTag] = tags.joined(separator: ",") }
    }
}

/// Which fields of a public answer carry its cache tags (`CDN_TAG_HEADERS`): both by default
/// (`Surrogate-Key` for Fastly and others, `Cache-Tag` for Cloudflare), the one the CDN in front
/// reads, or none when no CDN purges by tag (every answer is then 200 to 320 bytes shorter: a
/// 304 of the main URL about 40%).
public struct CDNTagHeaders: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let surrogateKey = CDNTagHeaders(rawValue: 1)
    public static let cacheTag = CDNTagHeaders(rawValue: 2)
    public static let both: CDNTagHeaders = [.surrogateKey, .cacheTag]

    /// `both`, `surrogate-key`, `cache-tag` or `none`.
    public init?(setting: String) {
        switch setting.lowercased() {
        case "both": self = .both
        case "surrogate-key": self = .surrogateKey
        case "cache-tag": self = .cacheTag
        case "none": self = []
        default: return nil
        }
    }
}

/// The published documents this process serves. It knows every app's current version (the
/// published index: slug, number and hash, a few bytes per app, loaded at start and kept current
/// by LISTEN/NOTIFY and a periodic check that reads only the index) and keeps the documents
/// themselves in byte-budgeted LRU caches (`DOCUMENT_CACHE_BYTES` in all): the hot set is served
/// from memory, also while the database is away; a cold document is read once, when first asked
/// for.
///
/// Current documents and older versions have separate budgets (older ones get an eighth): the
/// numbered URLs need no token, so a scan of old versions must not push every app's current
/// document out of memory. Index, caches and the loaded flag share one lock: a hit takes it once.
public final class PublishedDocuments: Sendable {
    struct State {
        var index: [String: PublishedIndexEntry] = [:]
        var loaded = false
        /// Documents that were current when read (an app's current one stays here after a
        /// publish until it ages out).
        var current: DocumentCache
        /// Older versions read through their numbered URL.
        var older: DocumentCache
        /// Reads of documents not in memory, under way: a request for one joins the read
        /// already asked for, so a cold app that turns hot at once (an app launch, a CDN
        /// purge) costs the database one read, not one per request.
        var reading: [Miss: Task<PublishedVersion?, any Error>] = [:]
        /// The lock-free view of `index`, `loaded` and the current documents: kept equal to them
        /// by every change of them below.
        let hot: ManagedAtomic<HotIndex>
        /// Moves on with every new `hot` (see `PublishedDocuments.generation`).
        let generation: ManagedAtomic<UInt64>

        /// Tells the connections that keep a slot that the index changed. After the new index is
        /// stored: a reader that saw the old generation found the old index. (A slot's document
        /// coming and going needs none: a kept slot's document is read anew each time.)
        func changed() {
            generation.wrappingIncrement(ordering: .releasing)
        }

        /// The cached document for `key`, now the most recently used of its cache; nil when the
        /// index expects another hash (`sha256`, known for an app's current version).
        mutating func get(_ key: DocumentCache.Key, sha256: String?) -> ServedDocument? {
            guard let document = current.get(key) ?? older.get(key) else { return nil }
            guard sha256 == nil || document.sha256 == sha256 else {
                // Never served: the index says this version of this app has other bytes.
                current.remove(key)
                older.remove(key)
                unslot(document)
                return nil
            }
            return document
        }

        func contains(_ key: DocumentCache.Key, sha256: String?) -> Bool {
            guard let document = current.peek(key) ?? older.peek(key) else { return false }
            return sha256 == nil || document.sha256 == sha256
        }

        /// Forgets every document of `appId` (its slug now names another app, or none).
        mutating func drop(appId: String) {
            current.removeAll(appId: appId)
            older.removeAll(appId: appId)
            hot.load(ordering: .relaxed).serving[appId]?.current.store(nil, ordering: .releasing)
        }

        /// Sets the index entry of `slug`, dropping the documents of the app it named before when
        /// that was another app (a purge, then a new app with the slug).
        mutating func setEntry(_ entry: PublishedIndexEntry?, slug: String) {
            // A 301 or 410 entry names no documents of its own under this slug; a slug change
            // keeps the app's documents (they are kept by app id, served under the new slug).
            if let previous = index[slug], previous.serves, previous.appId != entry?.appId { drop(appId: previous.appId) }
            index[slug] = entry
            publishHot(slug: slug)
        }

        /// Sets the whole index (read from the database), loaded from now on.
        mutating func setIndex(_ entries: [String: PublishedIndexEntry]) {
            index = entries
            loaded = true
            publishHot()
        }

        mutating func insert(_ key: DocumentCache.Key, _ document: ServedDocument, isCurrent: Bool) {
            let dropped = isCurrent ? current.insert(key, document) : older.insert(key, document)
            for gone in dropped { unslot(gone) }
            // An app's current document goes in its slot, once the cache has kept it.
            if isCurrent, let slot = hot.load(ordering: .relaxed).serving[key.appId], slot.entry.number == key.number,
                slot.entry.sha256 == document.sha256, current.peek(key) === document
            {
                slot.current.store(document, ordering: .releasing)
            }
        }

        /// Takes a document the cache let go of out of its slot (so the budget holds).
        func unslot(_ document: ServedDocument) {
            guard let slot = hot.load(ordering: .relaxed).serving[document.appId] else { return }
            if slot.current.load(ordering: .relaxed) === document { slot.current.store(nil, ordering: .releasing) }
        }

        /// A slot for `entry`, holding its current document if the cache has it.
        func slot(for entry: PublishedIndexEntry) -> HotSlot {
            let slot = HotSlot(entry: entry)
            if entry.serves, let document = current.peek(.init(appId: entry.appId, number: entry.number)),
                document.sha256 == entry.sha256
            {
                slot.current.store(document, ordering: .relaxed)
            }
            return slot
        }

        /// A new lock-free view of the whole index (slots whose entry is unchanged are reused, and
        /// shards whose slots all are).
        func publishHot() {
            let old = hot.load(ordering: .relaxed)
            var slots: [String: HotSlot] = [:]
            var serving: [String: HotSlot] = [:]
            slots.reserveCapacity(index.count)
            serving.reserveCapacity(index.count)
            for (slug, entry) in index {
                let slot = old.slots[slug].flatMap { $0.entry == entry ? $0 : nil } ?? self.slot(for: entry)
                slots[slug] = slot
                if entry.serves { serving[entry.appId] = slot }
            }
            hot.store(
                HotIndex(loaded: loaded, slots: HotMap(slots, reusing: old.slots), serving: HotMap(serving, reusing: old.serving)),
                ordering: .releasing)
            changed()
        }

        /// A new lock-free view with one slug's entry changed (the shards of that slug and of
        /// the apps it named and names copied, the rest shared); none when its slot stays.
        func publishHot(slug: String) {
            let old = hot.load(ordering: .relaxed)
            let previous = old.slots[slug]
            let slot = index[slug].map { entry in previous.flatMap { $0.entry == entry ? $0 : nil } ?? self.slot(for: entry) }
            guard slot !== previous else { return }
            var serving = old.serving
            if let previous, previous.entry.serves, serving[previous.entry.appId] === previous {
                serving = serving.setting(previous.entry.appId, to: nil)
            }
            if let slot, slot.entry.serves { serving = serving.setting(slot.entry.appId, to: slot) }
            hot.store(HotIndex(loaded: loaded, slots: old.slots.setting(slug, to: slot), serving: serving), ordering: .releasing)
            changed()
        }

        /// What answers for version `number` (or the current one): `.known(key)` when it exists,
        /// `.absent` when the loaded index says it cannot (no version above the current one,
        /// nothing for a slug it does not know), `.ask` when only the database can tell.
        func lookup(slug: String, number: Int?) -> Lookup {
            lookup(slug: slug, target: number.map(Target.number) ?? .current)
        }

        func lookup(slug: String, target: Target) -> Lookup {
            guard loaded else { return .ask }
            guard let entry = index[slug] else { return .absent }
            guard let resolved = PublishedDocuments.resolve(entry, target) else { return .absent }
            return .known(.init(appId: entry.appId, number: resolved.number), isCurrent: resolved.isCurrent, sha256: resolved.sha256)
        }
    }

    /// What a public URL asks for: the current (production) document, a numbered version, a
    /// channel's, or what the release rules give an app of a store at a version.
    enum Target: Hashable {
        case current
        case number(Int)
        case channel(String)
        case device(AppStore, AppVersion?)
    }

    /// A target resolved against an app's index entry: the version, its hash when the entry
    /// knows it, and how it was reached (for the answer's `Surrogate-Key`).
    struct Resolution {
        var number: Int
        var sha256: String?
        var channel: String?
        var rule: Int?
        /// Kept with the current documents (what a channel serves is as hot as production).
        var isCurrent: Bool
    }

    /// Nil when the entry serves nothing there (archived, moved, no such version or channel).
    static func resolve(_ entry: PublishedIndexEntry, _ target: Target) -> Resolution? {
        guard !entry.gone, entry.movedTo == nil else { return nil }
        switch target {
        case .current:
            guard entry.number > 0 else { return nil }
            return Resolution(number: entry.number, sha256: entry.sha256, channel: ChannelName.production, isCurrent: true)
        case .number(let n):
            // Versions are never removed: every number up to the newest exists.
            guard n <= entry.newest else { return nil }
            let pointer = entry.number == n ? entry.sha256 : entry.channels.values.first(where: { $0.number == n })?.sha256
            return Resolution(number: n, sha256: pointer, isCurrent: n == entry.number)
        case .channel(let name):
            guard let pointer = entry.pointer(channel: name) else { return nil }
            return Resolution(number: pointer.number, sha256: pointer.sha256, channel: name, isCurrent: true)
        case .device(let store, let version):
            let (rule, target) = ReleaseRules.resolve(entry.rules, store: store, version: version)
            switch target {
            case .channel(let name):
                guard let pointer = entry.pointer(channel: name) else { return nil }
                return Resolution(number: pointer.number, sha256: pointer.sha256, channel: name, rule: rule, isCurrent: true)
            case .version(let n):
                guard var pinned = resolve(entry, .number(n)) else { return nil }
                pinned.rule = rule
                return pinned
            }
        }
    }

    /// A document read from the database: a version, or (`number` nil) the current one.
    struct Miss: Hashable {
        var slug: String
        var number: Int?
    }

    enum Lookup {
        /// The index names the app and the version (and, for the current one, its hash).
        case known(DocumentCache.Key, isCurrent: Bool, sha256: String?)
        /// Not loaded yet (the database was away at start): only the database can tell whose
        /// document a slug names, so nothing in memory is served for it.
        case ask
        case absent
    }

    private let state: NIOLockedValueBox<State>
    /// The same as the state's `hot`, read without the lock.
    let hot: ManagedAtomic<HotIndex>
    private let generationCounter: ManagedAtomic<UInt64>
    let store: any PublishedDocumentSource
    /// The default budget of the document caches: 128 MiB.
    public static let defaultCacheBytes = 128 * 1024 * 1024

    /// Which fields carry the answers' cache tags.
    let tagHeaders: CDNTagHeaders

    public init(store: any PublishedDocumentSource, cacheBytes: Int = PublishedDocuments.defaultCacheBytes, tagHeaders: CDNTagHeaders = .both) {
        self.store = store
        self.tagHeaders = tagHeaders
        let total = max(0, cacheBytes)
        let hot = ManagedAtomic(HotIndex(loaded: false, slots: .empty, serving: .empty))
        self.hot = hot
        let generation = ManagedAtomic<UInt64>(0)
        self.generationCounter = generation
        self.state = NIOLockedValueBox(
            State(current: DocumentCache(budget: total - total / 8), older: DocumentCache(budget: total / 8), hot: hot, generation: generation))
    }

    /// The published index has been loaded (and is kept current from then on).
    var isLoaded: Bool { state.withLockedValue { $0.loaded } }

    /// Bytes and documents in the caches now.
    var cacheUsage: (bytes: Int, count: Int) {
        state.withLockedValue { ($0.current.bytes + $0.older.bytes, $0.current.count + $0.older.count) }
    }

    /// What a slug answers instead of a document: 410 for an archived app, 301 for a former slug
    /// (the loaded index knows both; nil otherwise). A rename announces the two slugs it changes,
    /// so an older former slug's entry may name an earlier slug of the app until the next full
    /// reload: the app's chain is followed here, so that a client gets one 301 to where the app is
    /// now, and a rename back to an old slug never makes a loop.
    func redirect(slug: String) -> PublicRedirect? {
        state.withLockedValue { state in
            guard state.loaded, let entry = state.index[slug] else { return nil }
            if entry.gone { return .gone }
            guard let first = entry.movedTo else { return nil }
            var target = first, seen: Set<String> = [slug]
            while seen.count <= 8, let next = state.index[target], next.appId == entry.appId, let further = next.movedTo, seen.insert(target).inserted {
                target = further
            }
            if target == slug { return .moved(first) }
            if let last = state.index[target], last.appId == entry.appId, last.gone { return .gone }
            return .moved(target)
        }
    }

    /// The budget of each cache (for tests and diagnostics).
    var cacheBudgets: (current: Int, older: Int) { state.withLockedValue { ($0.current.budget, $0.older.budget) } }

    /// Whether version `number` of `slug` is in memory (so it can be served without the database).
    func hasVersion(slug: String, number: Int) -> Bool {
        state.withLockedValue { state in
            guard let appId = state.index[slug]?.appId else { return false }
            return state.contains(.init(appId: appId, number: number), sha256: nil)
        }
    }

    /// Whether the document (the current one when `number` is nil) can be answered without the
    /// database: it is cached, or the loaded index says it does not exist.
    func canServe(slug: String, number: Int?) -> Bool {
        canServe(slug: slug, target: number.map(Target.number) ?? .current)
    }

    func canServe(slug: String, target: Target) -> Bool {
        state.withLockedValue { state in
            switch state.lookup(slug: slug, target: target) {
            case .absent: return true
            case .known(let key, _, let sha256): return state.contains(key, sha256: sha256)
            case .ask: return false
            }
        }
    }

    /// What one connection keeps between its requests to find an app's current document again
    /// without a lookup (`cached(slug:number:kept:)`): the slug's slot in the lock-free index and
    /// the generation it was found in. A client asks for one document again and again (every
    /// start, every revalidation), and while the generation holds the slot is the one a lookup
    /// would find (`RiversPublicPathBench`: the handler's 304 took 1,331 ns looked up each time,
    /// 1,271 with the slot kept). It holds the slot, never the document: a slot lets go of
    /// its document when the cache does, so a thousand idle connections keep no document in
    /// memory past the cache's budget.
    package struct KeptSlot {
        fileprivate let slug: String
        fileprivate let slot: HotSlot
        fileprivate let generation: UInt64
    }

    /// The document if it is in memory: the current one (`number` nil) or a numbered version;
    /// nil when answering needs the database or a 404. No I/O: the public fast path uses it.
    /// An app's current document is found without a lock (`HotIndex`); other versions, and a
    /// current one the slot does not hold, under the lock.
    package func cached(slug: String, number: Int?) -> ServedDocument? {
        var kept: KeptSlot?
        return cached(slug: slug, number: number, kept: &kept)
    }

    /// `cached(slug:number:)`, taking the current document's slot from `kept` when it is still
    /// the one for `slug`, and keeping the slot found otherwise.
    package func cached(slug: String, number: Int?, kept: inout KeptSlot?) -> ServedDocument? {
        // Read before the index: a change made meanwhile leaves what is kept already outdated.
        let generation = self.generation
        if number == nil, let previous = kept, previous.generation == generation, previous.slug == slug,
            let document = previous.slot.current.load(ordering: .acquiring)
        {
            document.markUsed()
            return document
        }
        let hot = self.hot.load(ordering: .acquiring)
        guard hot.loaded, let slot = hot.slots[slug] else { return nil }
        if number == nil || number == slot.entry.number {
            guard slot.entry.serves else { return nil }
            if number == nil { kept = KeptSlot(slug: slug, slot: slot, generation: generation) }
            if let document = slot.current.load(ordering: .acquiring) {
                document.markUsed()
                return document
            }
        }
        return state.withLockedValue { state in
            switch state.lookup(slug: slug, number: number) {
            case .known(let key, _, let sha256): return state.get(key, sha256: sha256)
            case .ask, .absent: return nil
            }
        }
    }

    /// Moves on whenever the lock-free index is replaced, so that a connection may keep the slot
    /// it found last and take it again, without a lookup, while this is what it was then
    /// (`KeptSlot`). A plain load, no lock.
    var generation: UInt64 { generationCounter.load(ordering: .acquiring) }

    /// Whether the loaded index says no app has `slug` (none publishes under it, and no former
    /// slug still redirects from it): its documents are then 404s, as the routes answer from the
    /// same index (a publish in another process reaches it by LISTEN/NOTIFY, a moment later for
    /// both). No lock.
    package func isUnknown(slug: String) -> Bool {
        let hot = self.hot.load(ordering: .acquiring)
        return hot.loaded && hot.slots[slug] == nil
    }

    /// The current document (`number` nil) or version `number`, from memory or else the
    /// database; nil when there is none.
    package func document(slug: String, number: Int?) async throws -> ServedDocument? {
        try await document(slug: slug, target: number.map(Target.number) ?? .current)?.document
    }

    /// The document a target names, from memory or else the database, and how it was reached;
    /// nil when there is none.
    func document(slug: String, target: Target) async throws -> (document: ServedDocument, resolution: Resolution)? {
        let (entry, lookup, hit) = state.withLockedValue { state -> (PublishedIndexEntry?, Lookup, ServedDocument?) in
            let lookup = state.lookup(slug: slug, target: target)
            switch lookup {
            case .known(let key, _, let sha256): return (state.index[slug], lookup, state.get(key, sha256: sha256))
            case .ask, .absent: return (nil, lookup, nil)
            }
        }
        if let hit, let entry, let resolution = Self.resolve(entry, target) {
            ServerMetrics.documentCacheHits.increment()
            return (hit, resolution)
        }
        var resolution: Resolution
        switch lookup {
        case .absent: return nil
        case .known:
            guard let entry, let found = Self.resolve(entry, target) else { return nil }
            resolution = found
        case .ask:
            // Not warm yet (the database was away at start): the database says what is current.
            switch target {
            case .current: resolution = Resolution(number: 0, isCurrent: true)
            case .number(let n): resolution = Resolution(number: n, isCurrent: false)
            case .channel, .device:
                guard let read = try await store.publishedIndexEntry(slug: slug), let found = Self.resolve(read, target) else { return nil }
                resolution = found
            }
        }
        let miss = resolution.number > 0 ? Miss(slug: slug, number: resolution.number) : Miss(slug: slug, number: nil)
        guard let version = try await read(miss) else { return nil }
        if resolution.number == 0 {
            resolution.number = version.number
            if target == .current { resolution.channel = ChannelName.production }
        }
        if let sha = resolution.sha256, sha != version.sha256 { return nil }
        let document = ServedDocument(version, tagHeaders: tagHeaders)
        let isCurrent = resolution.isCurrent
        state.withLockedValue { state in
            // The index may have moved on while the database answered; the database read the
            // slug's app as it is now, so its answer is served, and kept only if the index agrees.
            guard state.loaded, let entry = state.index[slug] else { return }
            guard entry.appId == version.appId, entry.live else { return }
            if entry.number == version.number && entry.sha256 != version.sha256 { return }
            state.insert(.init(appId: version.appId, number: version.number), document, isCurrent: isCurrent || entry.number == version.number)
        }
        return (document, resolution)
    }

    /// Reads `miss` from the database, or waits for the read of it already under way. The read
    /// is a task of its own: a client that goes away does not cancel it for the others.
    func read(_ miss: Miss) async throws -> PublishedVersion? {
        let store = self.store
        let task = state.withLockedValue { state -> Task<PublishedVersion?, any Error> in
            if let running = state.reading[miss] {
                ServerMetrics.documentReadsJoined.increment()
                return running
            }
            ServerMetrics.documentCacheMisses.increment()
            let task = Task { [weak self] in
                defer { self?.state.withLockedValue { _ = $0.reading.removeValue(forKey: miss) } }
                if let number = miss.number { return try await store.document(slug: miss.slug, number: number) }
                return try await store.currentDocument(slug: miss.slug)
            }
            state.reading[miss] = task
            return task
        }
        return try await task.value
    }

    /// Runs `body` while this process's documents' lock is held (for tests of what needs none).
    func whileLocked<T>(_ body: () -> T) -> T {
        state.withLockedValue { _ in body() }
    }

    /// Reads of documents under way (for tests).
    var readsUnderWay: Int { state.withLockedValue { $0.reading.count } }

    /// What is served for one app changed (a publish here, or a notification from another
    /// process): the index follows, and the new document is kept hot.
    package func update(slug: String, version: PublishedVersion?) {
        guard let version else {
            state.withLockedValue { $0.setEntry(nil, slug: slug) }
            return
        }
        let document = ServedDocument(version, tagHeaders: tagHeaders)
        state.withLockedValue { state in
            // Channels and rules stay as known (the caller reads the entry again, with the
            // generation of this publish's move: `refresh`).
            var entry = state.index[slug].flatMap { $0.appId == version.appId ? $0 : nil }
                ?? PublishedIndexEntry(slug: slug, appId: version.appId, number: 0, sha256: "")
            (entry.number, entry.sha256, entry.gone, entry.movedTo) = (version.number, version.sha256, false, nil)
            entry.newest = max(entry.newest, version.number)
            state.setEntry(entry, slug: slug)
            state.insert(.init(appId: version.appId, number: version.number), document, isCurrent: true)
        }
    }

    /// After a notification: the app's index entry is read again.
    func refresh(slug: String) async throws {
        let entry = try await store.publishedIndexEntry(slug: slug)
        try await keepHot(entry.map { [$0] } ?? [])
        state.withLockedValue { state in
            state.setEntry(entry.map { Self.newer($0, than: state.index[slug]) }, slug: slug)
        }
    }

    /// Reads the whole published index (numbers and hashes, not documents) and serves from it.
    package func reloadAll() async throws {
        let entries = try await store.publishedIndex()
        var fresh: [String: PublishedIndexEntry] = [:]
        fresh.reserveCapacity(entries.count)
        for entry in entries { fresh[entry.slug] = entry }
        try await keepHot(Array(fresh.values))
        state.withLockedValue { state in
            if state.loaded {
                for (slug, entry) in state.index {
                    // A publish seen while the index was read (here or by a notification) stays.
                    if let read = fresh[slug] { fresh[slug] = Self.newer(read, than: entry) }
                    // Documents of an app that no longer has this slug are dropped.
                    if entry.serves, fresh[slug]?.appId != entry.appId { state.drop(appId: entry.appId) }
                }
            }
            state.setIndex(fresh)
        }
    }

    /// The entry to keep when the database says `entry` and the process knew `known`: the known
    /// one only when it is a later version of the same app (a publish heard of while the
    /// database was read). A 301 or 410 from the database always wins: a version number says
    /// nothing about a slug that moved, an app that was archived or purged.
    static func newer(_ entry: PublishedIndexEntry, than known: PublishedIndexEntry?) -> PublishedIndexEntry {
        guard let known, known.serves, entry.serves, known.appId == entry.appId, known.generation > entry.generation else { return entry }
        return known
    }

    /// Apps whose current document is in memory and is about to be replaced by `entries`: their
    /// new documents are read now, so they stay served from memory (a cold app stays cold).
    private func keepHot(_ entries: [PublishedIndexEntry]) async throws {
        let hot = state.withLockedValue { state -> [PublishedIndexEntry] in
            guard state.loaded else { return [] }
            return entries.filter { entry in
                guard entry.serves, let previous = state.index[entry.slug], previous.serves, previous.appId == entry.appId,
                    previous.number != entry.number
                else { return false }
                return state.current.contains(.init(appId: previous.appId, number: previous.number))
            }
        }
        for entry in hot {
            guard let version = try await store.document(slug: entry.slug, number: entry.number),
                version.appId == entry.appId, version.sha256 == entry.sha256
            else { continue }
            let document = ServedDocument(version, tagHeaders: tagHeaders)
            state.withLockedValue { $0.insert(.init(appId: version.appId, number: version.number), document, isCurrent: true) }
        }
    }
}

extension PublishedIndexEntry {
    /// Whether the slug serves documents itself (not a 410 or a 301).
    var serves: Bool { live && number > 0 }
    /// Not archived and not a former slug: its channels may serve even before production does.
    var live: Bool { !gone && movedTo == nil }
}

enum PublicRedirect: Equatable {
    case gone
    case moved(String)
}

/// Keeps `PublishedDocuments` current: a full load at start and after every reconnection, then
/// one reload per notification on `rivers_published`, and a full check every `interval` in case
/// a notification was lost.
public struct PublishListener: Service {
    let documents: PublishedDocuments
    let client: PostgresClient
    let logger: Logger
    var interval: Duration = .seconds(30)
    let failures = WarningGate(interval: .seconds(600))

    public init(documents: PublishedDocuments, client: PostgresClient, logger: Logger, interval: Duration = .seconds(30)) {
        self.documents = documents
        self.client = client
        self.logger = logger
        self.interval = interval
    }

    public func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await listen() }
            group.addTask { await periodicReload() }
            try? await gracefulShutdown()
            group.cancelAll()
        }
    }

    func listen() async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: publishedChannel) { notifications in
                        // Listening first, then loading: nothing published in between is missed.
                        try await documents.reloadAll()
                        for try await notification in notifications {
                            try await documents.refresh(slug: notification.payload)
                        }
                    }
                }
            } catch {
                // Shutting down closes the pool under the listener: nothing to report then.
                if Task.isCancelled || Task.isShuttingDownGracefully { return }
                ServerMetrics.listenReconnects.increment()
                logger.warning("listening for publishes failed; serving what is loaded and retrying: \(String(reflecting: error))")
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    func periodicReload() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            if Task.isCancelled { return }
            do { try await documents.reloadAll() } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { return }
                // What is served may be stale: said at warning, once every 10 minutes.
                failures.say("reload", "the periodic reload of published documents failed; serving what is loaded: \(String(reflecting: error))", to: logger)
            }
        }
    }
}

/// `GET|HEAD /rivers/{slug}/rivers.json` and `/rivers/{slug}/v{n}/rivers.json`: no auth, CORS,
/// strong ETags, 304, stored gzip, and caching a CDN can use.
struct PublicDocumentController {
    let documents: PublishedDocuments
    /// What is in memory is served whatever the database does; what is not is read from the
    /// database, so while it is away that is a 503 at once, not a wait on the pool.
    var availability = DatabaseAvailability(ready: true)

    static let currentCacheControl = "public, max-age=60, stale-while-revalidate=300, stale-if-error=86400"
    static let versionCacheControl = "public, max-age=31536000, immutable"

    func register(on routes: RouteRegistrar<RiversContext>) {
        for method in [HTTPRequest.Method.get, .head] {
            Self.onOpenToEveryOrigin(routes, method, "rivers/{slug}/rivers.json") { request, context in
                let slug = try context.pathParameter("slug")
                if let answer = try Self.redirect(documents.redirect(slug: slug), path: "rivers.json") { return answer }
                guard documents.canServe(slug: slug, number: nil) || availability.isReady else { throw Problem.databaseUnavailable }
                guard let document = try await documents.document(slug: slug, number: nil) else {
                    throw Problem.notFound("nothing is published for \(slug)")
                }
                return Self.respond(document, request: request, current: true)
            }
            // A channel's document (issue 27): `production` is the same as the URL above.
            Self.onOpenToEveryOrigin(routes, method, "rivers/{slug}/channels/{channel}/rivers.json") { request, context in
                let slug = try context.pathParameter("slug")
                let name = try context.pathParameter("channel")
                guard ChannelName.problem(name) == nil else { throw Problem.notFound("no channel here: channel names are like staging or qa") }
                return try await answer(slug: slug, target: .channel(name), path: "channels/\(name)/rivers.json", request: request) {
                    "\(slug) has no channel \(name)"
                }
            }
            // Zapp's per-store, per-app-version URL: the release rules say what it serves.
            // (The store's segment is named as in the numbered URL's route: the router needs one name
            // per position.)
            Self.onOpenToEveryOrigin(routes, method, "rivers/{slug}/{version}/{app_version}/rivers.json") { request, context in
                let slug = try context.pathParameter("slug")
                let storeName = try context.pathParameter("version")
                let versionText = try context.pathParameter("app_version")
                guard let store = AppStore(rawValue: storeName) else {
                    throw Problem.notFound("no such store: the stores are \(AppStore.names)")
                }
                guard versionText.utf8.count <= 64 else { throw Problem.notFound("an app version is at most 64 characters") }
                let version = AppVersion.leading(versionText)
                return try await answer(
                    slug: slug, target: .device(store, version), path: "\(storeName)/\(versionText)/rivers.json", request: request
                ) { "nothing is published for \(slug)" }
            }
            Self.onOpenToEveryOrigin(routes, method, "rivers/{slug}/{version}/rivers.json") { request, context in
                let slug = try context.pathParameter("slug")
                let text = try context.pathParameter("version")
                guard let number = PublicDocumentPath.versionNumber(text) else {
                    throw Problem.notFound("versions are addressed as v1, v2, … (got \(text.prefix(40)))")
                }
                if let answer = try Self.redirect(documents.redirect(slug: slug), path: "v\(number)/rivers.json") { return answer }
                guard documents.canServe(slug: slug, number: number) || availability.isReady else { throw Problem.databaseUnavailable }
                guard let document = try await documents.document(slug: slug, number: number) else {
                    throw Problem.notFound("\(slug) has no version \(number)")
                }
                return Self.respond(document, request: request, current: false)
            }
        }
        // A browser's CORS preflight, for each of these paths whose segments are of the shapes
        // its GET reads (any other is the GET's 404).
        Self.onOpenToEveryOrigin(routes, .options, "rivers/{slug}/rivers.json") { _, context in
            try Self.preflight(try Self.isSlug(context.pathParameter("slug")))
        }
        Self.onOpenToEveryOrigin(routes, .options, "rivers/{slug}/channels/{channel}/rivers.json") { _, context in
            try Self.preflight(try Self.isSlug(context.pathParameter("slug")) && ChannelName.problem(try context.pathParameter("channel")) == nil)
        }
        Self.onOpenToEveryOrigin(routes, .options, "rivers/{slug}/{version}/{app_version}/rivers.json") { _, context in
            try Self.preflight(
                try Self.isSlug(context.pathParameter("slug")) && AppStore(rawValue: try context.pathParameter("version")) != nil
                    && (try context.pathParameter("app_version")).utf8.count <= 64)
        }
        Self.onOpenToEveryOrigin(routes, .options, "rivers/{slug}/{version}/rivers.json") { _, context in
            try Self.preflight(try Self.isSlug(context.pathParameter("slug")) && PublicDocumentPath.versionNumber(try context.pathParameter("version")) != nil)
        }
    }

    /// Whether `slug` is of a slug's shape (lowercase letters, digits and `-`, 1 to 63).
    static func isSlug(_ slug: String) -> Bool {
        (1...63).contains(slug.utf8.count) && slug.utf8.first != UInt8(ascii: "-")
            && slug.utf8.allSatisfy { ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "-") }
    }

    /// The answer to a browser's CORS preflight (`OPTIONS`), asked before a request that sets a
    /// field of its own, such as a web app's (a TV's browser app) own `If-None-Match`: any origin
    /// may send `GET` or `HEAD` with it; browsers keep the answer a day. A path that cannot name a
    /// document (`shaped` false) is a 404, as its GET would be.
    static func preflight(_ shaped: Bool) throws -> Response {
        guard shaped else { throw Problem.notFound("nothing is published at this address") }
        return Response(status: .noContent, headers: [
            .accessControlAllowOrigin: "*", .accessControlAllowMethods: "GET, HEAD",
            .accessControlAllowHeaders: "If-None-Match, Cache-Control", .accessControlMaxAge: "86400",
            .cacheControl: "public, max-age=86400",
        ])
    }


    /// What a public document route's problems (404, 410, 503) carry beside the problem's own
    /// fields. `Access-Control-Allow-Origin`, as its documents and redirects: a web client (a TV's
    /// browser app, say) then reads what went wrong instead of a CORS failure that looks like no
    /// network. `Cache-Control: no-store`: a CDN that keeps a 404 by default (Fastly: an hour)
    /// would go on answering "nothing is published" after the first publish, and no purge by
    /// `Surrogate-Key` reaches an answer that names no app; unknown slugs are answered from memory
    /// here, so letting them all through costs the origin little.
    static let problemFields: HTTPFields = [.accessControlAllowOrigin: "*", .cacheControl: "no-store"]

    /// A public document route whose problems carry `problemFields`.
    static func onOpenToEveryOrigin(
        _ routes: RouteRegistrar<RiversContext>, _ method: HTTPRequest.Method, _ path: String,
        _ handler: @escaping @Sendable (Request, RiversContext) async throws -> Response
    ) {
        routes.on(method, path, need: .anyone) { request, context in
            do {
                return try await handler(request, context)
            } catch {
                guard var problem = error as? Problem ?? (DatabaseAvailability.isUnavailability(error) ? .databaseUnavailable : nil) else {
                    throw error
                }
                for field in problemFields { problem.headers[field.name] = field.value }
                throw problem
            }
        }
    }

    /// A channel's or an app version's answer: resolved from the index in memory, tagged with
    /// what it resolved to.
    func answer(slug: String, target: PublishedDocuments.Target, path: String, request: Request, missing: () -> String) async throws -> Response {
        if let answer = try Self.redirect(documents.redirect(slug: slug), path: path) { return answer }
        guard documents.canServe(slug: slug, target: target) || availability.isReady else { throw Problem.databaseUnavailable }
        guard let (document, resolution) = try await documents.document(slug: slug, target: target) else {
            throw Problem.notFound(missing())
        }
        var byRules = false
        if case .device = target { byRules = true }
        let tags = CacheTags(appId: document.appId, number: document.number, channel: resolution.channel, byRules: byRules)
        return Self.respond(document, request: request, current: true, tags: tags)
    }

    static let versionHeader = HTTPField.Name("X-Rivers-Version")!

    /// 410 for an archived app; 301 from a former slug to the same document under the new one.
    static func redirect(_ redirect: PublicRedirect?, path: String) throws -> Response? {
        switch redirect {
        case nil: return nil
        case .gone:
            throw Problem(.gone, type: "app-archived", title: "Gone", detail: "this app has been archived: it publishes nothing any more")
        case .moved(let slug):
            return Response(status: .movedPermanently, headers: [
                .location: "/rivers/\(slug)/\(path)", .cacheControl: "public, max-age=3600", .accessControlAllowOrigin: "*",
            ])
        }
    }

    /// The comma-separated members of a header, trimmed, without Foundation (this is the hot path).
    static func members(_ header: String) -> [Substring] {
        header.split(separator: ",").map { member in
            var m = member[...]
            while m.first == " " || m.first == "\t" { m = m.dropFirst() }
            while m.last == " " || m.last == "\t" { m = m.dropLast() }
            return m
        }
    }

    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        // What browsers and app clients send ("gzip", "gzip, deflate, br"): no weights to read.
        if header == "gzip" || header == "gzip, deflate, br" || header == "gzip, deflate" { return true }
        // RFC 9110, 12.5.3: gzip's own member decides (x-gzip is the same coding), else `*`'s;
        // a weight of zero (`q=0`, `Q=0.000`) refuses. Neither named: not acceptable.
        var wildcard: Bool?
        for member in members(header) {
            let parts = member.split(separator: ";")
            guard let coding = parts.first.map({ $0.filter { $0 != " " && $0 != "\t" }.lowercased() }) else { continue }
            let refused = parts.dropFirst().contains { parameter in
                let p = parameter.filter { $0 != " " && $0 != "\t" }.lowercased()
                guard p.hasPrefix("q=") else { return false }
                let weight = p.dropFirst(2)
                return weight.first == "0" && weight.filter({ $0 == "." }).count <= 1 && weight.allSatisfy { $0 == "0" || $0 == "." }
            }
            if coding == "gzip" || coding == "x-gzip" { return !refused }
            if coding == "*", wildcard == nil { wildcard = !refused }
        }
        return wildcard ?? false
    }

    /// `acceptsGzip` of a value as received: the common values compared as bytes (no string made).
    static func acceptsGzip(_ header: UnsafeRawBufferPointer) -> Bool {
        if PublicDocumentRequest.equals(header, "gzip") || PublicDocumentRequest.equals(header, "gzip, deflate, br")
            || PublicDocumentRequest.equals(header, "gzip, deflate")
        {
            return true
        }
        return acceptsGzip(String(decoding: header, as: UTF8.self))
    }

    /// `matches` of a value as received: one of the document's own ETags compared as bytes (what
    /// a client sends back), anything else read as a list.
    static func matches(_ ifNoneMatch: UnsafeRawBufferPointer, _ document: ServedDocument) -> Bool {
        if PublicDocumentRequest.equals(ifNoneMatch, document.gzipETagBytes) || PublicDocumentRequest.equals(ifNoneMatch, document.etagBytes) {
            return true
        }
        return matches(String(decoding: ifNoneMatch, as: UTF8.self), document)
    }

    static func matches(_ ifNoneMatch: String, _ document: ServedDocument) -> Bool {
        if ifNoneMatch == document.etag || ifNoneMatch == document.gzipETag { return true }
        for member in members(ifNoneMatch) {
            let tag = member.hasPrefix("W/") ? member.dropFirst(2) : member
            if tag == "*" || tag == document.etag || tag == document.gzipETag { return true }
        }
        return false
    }

    /// `tags`: the cache tags when they are not the prebuilt ones (a channel's or app version's URL).
    static func respond(_ document: ServedDocument, request: Request, current: Bool, tags: CacheTags? = nil) -> Response {
        let answer = DocumentAnswer(
            document, isHead: request.method == .head, acceptEncoding: request.headers[.acceptEncoding],
            ifNoneMatch: request.headers[.ifNoneMatch], current: current)
        let (row, column) = (Int(answer.row), Int(answer.column))
        var headers = answer.notModified ? document.notModifiedHeaders[row][column] : document.okHeaders[row][column]
        tags?.write(to: &headers, as: document.tagHeaders)
        if answer.notModified { return Response(status: .notModified, headers: headers) }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: answer.body(of: document) ?? ByteBuffer()))
    }
}

/// How a document answers one GET or HEAD: a 304 or a 200, which of its prebuilt header blocks,
/// and the bytes to send (none for a 304 or a HEAD). The routes and `PublicDocumentByteHandler` both
/// answer through it.
package struct DocumentAnswer {
    /// Several fields of one name are one comma-separated list (RFC 9110 §5.3).
    static func list(_ list: String?, adding value: String) -> String {
        list.map { $0 + ", " + value } ?? value
    }

    // Small on purpose (four bytes): the byte path moves an answer through a few enums and
    // tuples per request, and a larger one was copied with `memcpy` each time.
    var notModified: Bool
    /// Whether a body goes with it (a 200 to a GET).
    var sendsBody: Bool
    /// 0 for the current URL, 1 for a numbered version's.
    var row: UInt8
    /// 0 for the document as is, 1 for its gzip.
    var column: UInt8

    /// The index of its head in `ServedDocument.headBlocks`: 200s, then 304s, each by row and column.
    var headBlock: Int { (notModified ? 4 : 0) + 2 * Int(row) + Int(column) }

    /// The body sent, if any: the document or its gzip (counted in `rivers_public_document_bytes_total`).
    func body(of document: ServedDocument) -> ByteBuffer? {
        guard sendsBody else { return nil }
        let bytes = column == 1 ? document.gzip : document.body
        ServerMetrics.documentBytes.increment(by: bytes.readableBytes)
        return bytes
    }

    init(_ document: ServedDocument, isHead: Bool, acceptEncoding: String?, ifNoneMatch: String?, current: Bool) {
        // If-None-Match compares weakly (RFC 9110 §13.1.2): W/ is ignored.
        self.init(
            document, isHead: isHead, gzip: PublicDocumentController.acceptsGzip(acceptEncoding),
            notModified: ifNoneMatch.map { PublicDocumentController.matches($0, document) } ?? false, current: current)
    }

    /// A request read from the bytes: its fields compared where they are in `head`.
    init(_ document: ServedDocument, request: PublicDocumentRequest, head: UnsafeRawBufferPointer) {
        self.init(
            document, isHead: request.isHead,
            gzip: request.acceptEncoding.map { $0.withBytes(in: head, PublicDocumentController.acceptsGzip) } ?? false,
            notModified: request.ifNoneMatch.map { $0.withBytes(in: head) { PublicDocumentController.matches($0, document) } } ?? false,
            current: request.number == nil)
    }

    private init(_ document: ServedDocument, isHead: Bool, gzip: Bool, notModified: Bool, current: Bool) {
        row = current ? 0 : 1
        column = gzip ? 1 : 0
        self.notModified = notModified
        sendsBody = !notModified && !isHead
    }
}

/// The paths of the public documents.
enum PublicDocumentPath {
    /// `/rivers/{slug}/rivers.json` (number nil) or `/rivers/{slug}/v{n}/rivers.json`, with or
    /// without a query (ignored); nil for any other path, or one that needs decoding (the routes
    /// handle those). Byte by byte: this runs on every app start.
    /// A version's path segment: `v` and a number written as one, without a sign or a leading
    /// zero (`v01` would be a second URL, cached apart, for `v1`); at most 9 digits.
    static func versionNumber(_ text: String) -> Int? {
        let digits = text.utf8.dropFirst()
        guard text.utf8.first == UInt8(ascii: "v"), (1...9).contains(digits.count), digits.first != UInt8(ascii: "0"),
            digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(text.dropFirst())
    }

    static func parse(_ target: String) -> (slug: String, number: Int?)? {
        var target = target
        return target.withUTF8 { parse($0) }
    }

    static func parse(_ target: UnsafeBufferPointer<UInt8>) -> (slug: String, number: Int?)? {
        let slash = UInt8(ascii: "/")
        let (prefix, suffix): (StaticString, StaticString) = ("/rivers/", "/rivers.json")
        let end = target.firstIndex(of: UInt8(ascii: "?")) ?? target.count
        let bytes = UnsafeRawBufferPointer(target)
        guard end > prefix.utf8CodeUnitCount + suffix.utf8CodeUnitCount, PublicDocumentRequest.has(bytes, at: 0, prefix),
            PublicDocumentRequest.has(bytes, at: end - suffix.utf8CodeUnitCount, suffix)
        else { return nil }
        let middle = target[prefix.utf8CodeUnitCount..<(end - suffix.utf8CodeUnitCount)]
        if middle.contains(UInt8(ascii: "%")) { return nil }
        guard let cut = middle.firstIndex(of: slash) else {
            return (String(decoding: UnsafeBufferPointer(rebasing: middle), as: UTF8.self), nil)
        }
        let slug = middle[..<cut], version = middle[(cut + 1)...]
        guard !slug.isEmpty, version.count > 1, version.count <= 10, version.first == UInt8(ascii: "v"),
            version.dropFirst().first != UInt8(ascii: "0")
        else { return nil }
        var number = 0
        for byte in version.dropFirst() {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            number = number * 10 + Int(byte - UInt8(ascii: "0"))
        }
        guard number > 0 else { return nil }
        return (String(decoding: UnsafeBufferPointer(rebasing: slug), as: UTF8.self), number)
    }
}

extension HTTPFields {
    /// The fields as they go in a head written by hand: `Name: value` and CRLF each.
    var headLines: String { map { "\($0.name.rawName): \($0.value)\r\n" }.joined() }
}

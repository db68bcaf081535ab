import RiversCore

/// Published documents kept in memory, within a budget of bytes, least recently used first out.
/// Keys are (app id, version number), never a slug: a slug can pass to another app (after a
/// purge), an app's versions never change, so an entry is never stale, and an app's current
/// document is just its current version.
struct DocumentCache {
    struct Key: Hashable {
        var appId: String
        var number: Int
    }

    /// Bytes counted for an entry beyond its bodies and header blocks (keys, bookkeeping).
    static let overheadPerEntry = 512

    private var entries: LRUCache<Key, ServedDocument>

    init(budget: Int) { entries = LRUCache(budget: budget) }

    var budget: Int { entries.budget }
    var bytes: Int { entries.cost }
    var count: Int { entries.count }
    /// Keys from most to least recently used (for tests and diagnostics).
    var keysByRecency: [Key] { entries.keysByRecency }

    static func cost(_ document: ServedDocument) -> Int {
        // The header blocks are kept in two forms (HTTP types, bytes) of about the same size.
        let headers = document.headBlocks.reduce(0) { $0 + $1.count }
        return document.body.readableBytes + document.gzip.readableBytes + 2 * headers + overheadPerEntry
    }

    func contains(_ key: Key) -> Bool { entries.contains(key) }

    /// The document, without making it the most recently used.
    func peek(_ key: Key) -> ServedDocument? { entries.peek(key) }

    mutating func remove(_ key: Key) { entries.remove(key) }

    /// Removes every version of one app (rare: a purge, a slug taken by another app).
    mutating func removeAll(appId: String) {
        for key in entries.keysByRecency where key.appId == appId { entries.remove(key) }
    }

    /// The document, now the most recently used.
    mutating func get(_ key: Key) -> ServedDocument? { entries.get(key) }

    /// Keeps `document` as the most recently used, dropping the least recently used until the
    /// budget holds, and returns the documents dropped. A document larger than the whole budget
    /// is not kept. One served without the lock since it was last looked at (`takeUse`) gets a
    /// second chance: lock-free hits do not move it to the front themselves.
    @discardableResult
    mutating func insert(_ key: Key, _ document: ServedDocument) -> [ServedDocument] {
        entries.insert(key, document, cost: Self.cost(document)) { $0.takeUse() }
    }
}

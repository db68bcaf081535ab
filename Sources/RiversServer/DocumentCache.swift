/// Published documents kept in memory, within a budget of bytes, least recently used first out.
/// Keys are (slug, version number): versions never change, so an entry is never stale, and an
/// app's current document is just its current version. A true LRU: every hit moves the entry to
/// the front of a doubly linked list (kept in an array, so no allocation per hit).
struct DocumentCache {
    struct Key: Hashable {
        var slug: String
        var number: Int
    }

    private struct Node {
        var key: Key
        var document: ServedDocument
        var cost: Int
        var newer: Int
        var older: Int
    }

    /// Bytes counted for an entry beyond its bodies (headers, keys, bookkeeping).
    static let overheadPerEntry = 512

    let budget: Int
    private(set) var bytes = 0
    private var slots: [Key: Int] = [:]
    private var nodes: [Node] = []
    private var free: [Int] = []
    /// Most and least recently used, or -1 when empty.
    private var newest = -1
    private var oldest = -1

    init(budget: Int) { self.budget = max(0, budget) }

    var count: Int { slots.count }

    static func cost(_ document: ServedDocument) -> Int {
        document.body.readableBytes + document.gzip.readableBytes + overheadPerEntry
    }

    func contains(_ key: Key) -> Bool { slots[key] != nil }

    /// The document, now the most recently used.
    mutating func get(_ key: Key) -> ServedDocument? {
        guard let slot = slots[key] else { return nil }
        moveToFront(slot)
        return nodes[slot].document
    }

    /// Keeps `document` as the most recently used, dropping the least recently used until the
    /// budget holds. A document larger than the whole budget is not kept.
    mutating func insert(_ key: Key, _ document: ServedDocument) {
        let cost = Self.cost(document)
        if let slot = slots[key] {
            bytes += cost - nodes[slot].cost
            nodes[slot].document = document
            nodes[slot].cost = cost
            moveToFront(slot)
        } else {
            guard cost <= budget else { return }
            let node = Node(key: key, document: document, cost: cost, newer: -1, older: newest)
            let slot: Int
            if let reused = free.popLast() {
                slot = reused
                nodes[slot] = node
            } else {
                slot = nodes.count
                nodes.append(node)
            }
            if newest >= 0 { nodes[newest].newer = slot }
            newest = slot
            if oldest < 0 { oldest = slot }
            slots[key] = slot
            bytes += cost
        }
        while bytes > budget, oldest >= 0, oldest != newest {
            remove(oldest)
        }
    }

    /// Keys from most to least recently used (for tests and diagnostics).
    var keysByRecency: [Key] {
        var keys: [Key] = []
        var slot = newest
        while slot >= 0 {
            keys.append(nodes[slot].key)
            slot = nodes[slot].older
        }
        return keys
    }

    private mutating func unlink(_ slot: Int) {
        let (newer, older) = (nodes[slot].newer, nodes[slot].older)
        if newer >= 0 { nodes[newer].older = older } else { newest = older }
        if older >= 0 { nodes[older].newer = newer } else { oldest = newer }
        nodes[slot].newer = -1
        nodes[slot].older = -1
    }

    private mutating func moveToFront(_ slot: Int) {
        guard slot != newest else { return }
        unlink(slot)
        nodes[slot].older = newest
        if newest >= 0 { nodes[newest].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }

    private mutating func remove(_ slot: Int) {
        unlink(slot)
        slots.removeValue(forKey: nodes[slot].key)
        bytes -= nodes[slot].cost
        // The slot keeps a stale document until reused: drop its buffers now.
        nodes[slot].document = ServedDocument.empty
        free.append(slot)
    }
}

/// Values kept within a budget (bytes, or 1 an entry), least recently used first out: the
/// caches of published documents, parsed screens, plugin registries and tokens. A true LRU:
/// every hit moves the entry to the front of a doubly linked list kept in an array, so a hit
/// allocates nothing. Not synchronised: its owner holds it under a lock.
public struct LRUCache<Key: Hashable, Value> {
    fileprivate struct Node {
        var key: Key
        /// nil once removed, so that a free slot holds nothing alive.
        var value: Value?
        var cost: Int
        var newer: Int
        var older: Int
    }

    public let budget: Int
    public private(set) var cost = 0
    private var slots: [Key: Int] = [:]
    private var nodes: [Node] = []
    private var free: [Int] = []
    /// Most and least recently used, or -1 when empty.
    private var newest = -1
    private var oldest = -1

    public init(budget: Int) { self.budget = max(0, budget) }

    public var count: Int { slots.count }

    public func contains(_ key: Key) -> Bool { slots[key] != nil }

    /// The value, now the most recently used.
    public mutating func get(_ key: Key) -> Value? {
        guard let slot = slots[key] else { return nil }
        moveToFront(slot)
        return nodes[slot].value
    }

    /// The value, without counting as a use.
    public func peek(_ key: Key) -> Value? {
        slots[key].flatMap { nodes[$0].value }
    }

    /// Keeps `value` as the most recently used, dropping the least recently used until the
    /// budget holds, and returns what it dropped. A value costing more than the whole budget is
    /// not kept. `usedSince` gives an entry about to be dropped a second chance: when it says
    /// the value was used since it was last asked (by readers the cache does not see, such as a
    /// lock-free path), the entry becomes the most recently used instead, once per entry and call.
    @discardableResult
    public mutating func insert(_ key: Key, _ value: Value, cost: Int, usedSince: (Value) -> Bool = { _ in false }) -> [Value] {
        var dropped: [Value] = []
        if let slot = slots[key] {
            self.cost += cost - nodes[slot].cost
            if let replaced = nodes[slot].value { dropped.append(replaced) }
            nodes[slot].value = value
            nodes[slot].cost = cost
            moveToFront(slot)
        } else {
            guard cost <= budget else { return [] }
            let node = Node(key: key, value: value, cost: cost, newer: -1, older: newest)
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
            self.cost += cost
        }
        var chances = slots.count
        while self.cost > budget, oldest >= 0, oldest != newest {
            if chances > 0, let value = nodes[oldest].value, usedSince(value) {
                chances -= 1
                moveToFront(oldest)
                continue
            }
            if let value = nodes[oldest].value { dropped.append(value) }
            remove(at: oldest)
        }
        return dropped
    }

    /// Drops `key`'s entry, if any.
    public mutating func remove(_ key: Key) {
        if let slot = slots[key] { remove(at: slot) }
    }

    /// Drops every entry.
    public mutating func removeAll() {
        self = LRUCache(budget: budget)
    }

    /// Keys from most to least recently used (for tests and diagnostics).
    public var keysByRecency: [Key] {
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

    private mutating func remove(at slot: Int) {
        unlink(slot)
        slots.removeValue(forKey: nodes[slot].key)
        cost -= nodes[slot].cost
        nodes[slot].value = nil
        free.append(slot)
    }
}

extension LRUCache: Sendable where Key: Sendable, Value: Sendable {}
extension LRUCache.Node: Sendable where Key: Sendable, Value: Sendable {}

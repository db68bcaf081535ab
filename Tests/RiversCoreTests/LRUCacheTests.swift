import RiversCore
import Testing

@Suite("A least-recently-used cache within a budget")
struct LRUCacheTests {
    @Test("the least recently used goes first; a hit counts as a use, a peek does not")
    func eviction() {
        var cache = LRUCache<String, Int>(budget: 3)
        for (i, key) in ["a", "b", "c"].enumerated() { cache.insert(key, i, cost: 1) }
        #expect(cache.get("a") == 0)
        #expect(cache.peek("b") == 1)
        cache.insert("d", 3, cost: 1)
        #expect(cache.keysByRecency == ["d", "a", "c"], "b was used least lately (a peek is no use)")
        #expect(cache.cost == 3 && cache.count == 3)
    }

    /// Issue 26: hits the cache does not see (the public documents' lock-free path) are told at
    /// eviction; such an entry is kept once more, as the most recently used.
    @Test("an entry used unseen gets a second chance; what is dropped is returned")
    func secondChance() {
        var cache = LRUCache<String, Int>(budget: 3)
        for (i, key) in ["a", "b", "c"].enumerated() { cache.insert(key, i, cost: 1) }
        var usedUnseen: Set<Int> = [0]
        let dropped = cache.insert("d", 3, cost: 1) { value in usedUnseen.remove(value) != nil }
        #expect(dropped == [1], "a (0) was used since it was last asked: b goes instead")
        #expect(cache.keysByRecency == ["a", "d", "c"])
        #expect(cache.insert("e", 4, cost: 1) { value in usedUnseen.remove(value) != nil } == [2])
        #expect(cache.insert("f", 5, cost: 1) { value in usedUnseen.remove(value) != nil } == [3], "d is older than a since a's second chance")
        // Asked once, the use is spent: a is dropped in its turn.
        #expect(cache.insert("g", 6, cost: 1) { value in usedUnseen.remove(value) != nil } == [0])
        // Every entry used unseen: each gets its chance, then one goes all the same.
        #expect(cache.insert("h", 7, cost: 1) { _ in true }.count == 1)
        #expect(cache.count == 3 && cache.cost == 3)
        // A replaced value is returned too.
        #expect(cache.insert("h", 8, cost: 1) == [7])
    }

    @Test("costs: a bigger value pushes out as many as it needs; one above the budget is not kept; a new value replaces its cost")
    func costs() {
        var cache = LRUCache<Int, String>(budget: 10)
        for key in 0..<5 { cache.insert(key, "v\(key)", cost: 2) }
        cache.insert(9, "big", cost: 7)
        #expect(cache.keysByRecency == [9, 4], "7 + 2 fit in 10")
        cache.insert(10, "huge", cost: 11)
        #expect(!cache.contains(10) && cache.count == 2)
        cache.insert(4, "v4 again", cost: 3)
        #expect(cache.cost == 10 && cache.peek(4) == "v4 again" && cache.keysByRecency == [4, 9])
    }

    @Test("removing one or all; freed slots are reused")
    func removal() {
        var cache = LRUCache<Int, Int>(budget: 100)
        for key in 0..<10 { cache.insert(key, key, cost: 1) }
        cache.remove(3)
        cache.remove(42)
        #expect(cache.count == 9 && !cache.contains(3) && cache.cost == 9)
        cache.insert(3, 33, cost: 1)
        #expect(cache.keysByRecency.first == 3 && cache.get(3) == 33)
        cache.removeAll()
        #expect(cache.count == 0 && cache.cost == 0 && cache.keysByRecency.isEmpty)
        cache.insert(1, 1, cost: 1)
        #expect(cache.keysByRecency == [1])
    }
}

import NIOConcurrencyHelpers

/// Runs `work` on a copy of `box`'s value and keeps what it returns, unless another change was
/// kept meanwhile (counted at `commits`): then it runs again on a fresh copy. What the in-memory
/// storages' transactions are: all or nothing, one after another as PostgreSQL's locks make them.
func keepOptimistically<Value, Result>(
    _ box: NIOLockedValueBox<Value>, commits: WritableKeyPath<Value, Int>, _ work: (Value) async throws -> (changed: Value, result: Result)
) async rethrows -> Result {
    while true {
        let start = box.withLockedValue { $0 }
        let (changed, result) = try await work(start)
        let kept: Bool = box.withLockedValue { current in
            guard current[keyPath: commits] == start[keyPath: commits] else { return false }
            current = changed
            current[keyPath: commits] += 1
            return true
        }
        if kept { return result }
    }
}

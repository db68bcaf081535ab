import NIOConcurrencyHelpers

/// Whose turn it is to hold a transaction over each app in this process. Every write of an app
/// locks the app's row first (`Store.withApp`), so they run one after another anyway; without
/// turns, each one waiting for the lock held a pooled connection while it waited, and one app's
/// burst of writes (or one write held long) took every connection of the pool from every other
/// app. Now a write waits for its app's turn in memory, in order, and takes a connection only
/// then: an app holds at most one connection per process for its writes. At most
/// `maxWaitingPerApp` wait for one app; past that, `StoreError.busy` at once.
final class AppTurns: Sendable {
    let maxWaitingPerApp: Int

    private struct Waiter {
        var id: Int
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        /// Apps with a transaction running, and who waits for each, first come first.
        var lines: [String: [Waiter]] = [:]
        var lastId = 0
        /// Waits cancelled before they were in line.
        var cancelledEarly: Set<Int> = []
    }

    private let state = NIOLockedValueBox(State())

    init(maxWaitingPerApp: Int = 64) { self.maxWaitingPerApp = maxWaitingPerApp }

    /// Runs `work` in `app`'s turn.
    func run<T: Sendable>(_ app: String, _ work: () async throws -> T) async throws -> T {
        try await take(app)
        defer { pass(app) }
        return try await work()
    }

    /// Apps with a transaction running here, and writes waiting in all (for tests).
    var load: (running: Int, waiting: Int) { state.withLockedValue { ($0.lines.count, $0.lines.values.reduce(0) { $0 + $1.count }) } }

    private enum Admission { case now, wait(Int), refuse }

    private func take(_ app: String) async throws {
        let admission = state.withLockedValue { s -> Admission in
            guard let line = s.lines[app] else {
                s.lines[app] = []
                return .now
            }
            if line.count >= maxWaitingPerApp { return .refuse }
            s.lastId &+= 1
            return .wait(s.lastId)
        }
        switch admission {
        case .now: return
        case .refuse:
            throw StoreError.busy("\(maxWaitingPerApp) changes of this app are waiting for their turn already; retry in a moment")
        case .wait(let id):
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let state = self.state.withLockedValue { s -> (cancelled: Bool, free: Bool) in
                        if s.cancelledEarly.remove(id) != nil { return (true, false) }
                        // The turn may have ended between the admission and now.
                        guard s.lines[app] != nil else {
                            s.lines[app] = []
                            return (false, true)
                        }
                        s.lines[app]!.append(Waiter(id: id, continuation: continuation))
                        return (false, false)
                    }
                    if state.cancelled { continuation.resume(throwing: CancellationError()) }
                    else if state.free { continuation.resume() }
                }
            } onCancel: {
                let waiter = state.withLockedValue { s -> Waiter? in
                    if let i = s.lines[app]?.firstIndex(where: { $0.id == id }) { return s.lines[app]!.remove(at: i) }
                    s.cancelledEarly.insert(id)
                    return nil
                }
                waiter?.continuation.resume(throwing: CancellationError())
            }
            // A cancellation that came after the wait ended leaves nothing behind.
            state.withLockedValue { _ = $0.cancelledEarly.remove(id) }
        }
    }

    /// Ends the turn: the next in line gets it, or the app has none running.
    private func pass(_ app: String) {
        let next = state.withLockedValue { s -> Waiter? in
            guard var line = s.lines[app], !line.isEmpty else {
                s.lines[app] = nil
                return nil
            }
            let next = line.removeFirst()
            s.lines[app] = line
            return next
        }
        next?.continuation.resume()
    }
}

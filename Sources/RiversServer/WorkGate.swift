import Foundation
import NIOConcurrencyHelpers

#if os(Linux)
/// glibc's `malloc_trim` (in malloc.h, which the Glibc module leaves out).
@_silgen_name("malloc_trim") private func mallocTrim(_ pad: Int) -> Int32
#endif

/// Bounds the reads that parse a whole app (a draft, the publish check, a publish, a diff, an
/// import) or lay out a screen (a preview): at most `concurrent` run at once in the process and
/// one per app, the rest wait in line (at most `maxWaiting` in all and `maxWaitingPerApp` for one
/// app; past that, 503 `busy` at once). So their memory is bounded by the caps of an app times
/// `concurrent`, and no app's requests can take every core from the others or from the database
/// monitor. When the last one ends, freed memory is handed back to the system (`malloc_trim`).
final class WorkGate: Sendable {
    let concurrent: Int
    let maxWaiting: Int
    let maxWaitingPerApp: Int
    let name: String

    private struct Waiter {
        var id: Int
        var app: String
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var running = 0
        var runningApps: [String: Int] = [:]
        var waiting: [Waiter] = []
        var lastId = 0
        var cancelledEarly: Set<Int> = []
    }

    private let state = NIOLockedValueBox(State())

    init(name: String, concurrent: Int, maxWaiting: Int = 32, maxWaitingPerApp: Int = 4) {
        self.name = name
        self.concurrent = max(1, concurrent)
        self.maxWaiting = maxWaiting
        self.maxWaitingPerApp = maxWaitingPerApp
    }

    /// Work running and waiting now (for tests).
    var load: (running: Int, waiting: Int) { state.withLockedValue { ($0.running, $0.waiting.count) } }

    func run<T: Sendable>(app: String, _ work: () async throws -> T) async throws -> T {
        try await enter(app: app)
        defer { leave(app: app) }
        return try await work()
    }

    private enum Admission { case now, wait(Int), refuse }

    private func enter(app: String) async throws {
        let admission = state.withLockedValue { s -> Admission in
            if s.running < concurrent, s.runningApps[app] == nil {
                s.running += 1
                s.runningApps[app] = 1
                return .now
            }
            if s.waiting.count >= maxWaiting || s.waiting.lazy.filter({ $0.app == app }).count >= maxWaitingPerApp { return .refuse }
            s.lastId &+= 1
            return .wait(s.lastId)
        }
        switch admission {
        case .now: return
        case .refuse:
            ServerMetrics.workRefused.increment()
            throw Problem(.serviceUnavailable, type: "busy", title: "Too busy",
                          detail: "too many drafts, checks and previews are running for this app or this server right now; retry in a moment",
                          headers: [.retryAfter: "1"])
        case .wait(let id):
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let cancelled = state.withLockedValue { s -> Bool in
                        if s.cancelledEarly.remove(id) != nil { return true }
                        s.waiting.append(Waiter(id: id, app: app, continuation: continuation))
                        return false
                    }
                    if cancelled { continuation.resume(throwing: CancellationError()) }
                    // A slot may have freed between the admission and the queueing.
                    self.wake()
                }
            } onCancel: {
                let waiter = state.withLockedValue { s -> Waiter? in
                    if let i = s.waiting.firstIndex(where: { $0.id == id }) { return s.waiting.remove(at: i) }
                    s.cancelledEarly.insert(id)
                    return nil
                }
                waiter?.continuation.resume(throwing: CancellationError())
            }
            state.withLockedValue { _ = $0.cancelledEarly.remove(id) }
        }
    }

    private func leave(app: String) {
        let idle = state.withLockedValue { s -> Bool in
            s.running -= 1
            s.runningApps[app] = nil
            return s.running == 0 && s.waiting.isEmpty
        }
        wake()
        #if os(Linux)
        // The parse of a whole app leaves many small blocks free; with nothing else running,
        // hand the free pages back instead of keeping the peak for good.
        if idle { _ = mallocTrim(0) }
        #endif
    }

    /// Starts the first waiters whose apps are not running, while there are free slots.
    private func wake() {
        let started = state.withLockedValue { s -> [Waiter] in
            var started: [Waiter] = []
            while s.running < concurrent, let i = s.waiting.firstIndex(where: { s.runningApps[$0.app] == nil }) {
                let waiter = s.waiting.remove(at: i)
                s.running += 1
                s.runningApps[waiter.app] = 1
                started.append(waiter)
            }
            return started
        }
        for waiter in started { waiter.continuation.resume() }
    }
}

import Foundation
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import RiversStore
import ServiceLifecycle

/// Whether the database answers, as this process last saw it. The monitor updates it every
/// second; requests read it without a query, so `/health` and an API request during an outage
/// answer at once instead of waiting on the pool.
public final class DatabaseAvailability: Sendable {
    private struct State {
        var ready: Bool
        var since = Date()
        /// Requests in flight waiting to hear of an outage (`outage()`), resumed when it comes.
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Waits cancelled before they were registered.
        var cancelledEarly: Set<Int> = []
        var lastWaiter = 0
    }

    private let state: NIOLockedValueBox<State>
    public init(ready: Bool = false) { state = NIOLockedValueBox(State(ready: ready)) }

    public var isReady: Bool { state.withLockedValue { $0.ready } }

    /// Requests waiting in `outage()` now, and cancellations not yet matched (for tests).
    var waitingCount: Int { state.withLockedValue { $0.waiters.count + $0.cancelledEarly.count } }

    /// Records what was seen; true when that changes what was known. Going down wakes every
    /// request waiting in `outage()`.
    @discardableResult
    public func record(ready: Bool) -> Bool {
        ServerMetrics.databaseReady.record(ready ? 1 : 0)
        let (changed, woken) = state.withLockedValue { current -> (Bool, [CheckedContinuation<Void, Never>]) in
            guard current.ready != ready else { return (false, []) }
            current.ready = ready
            current.since = Date()
            guard !ready else { return (true, []) }
            defer { current.waiters.removeAll() }
            return (true, Array(current.waiters.values))
        }
        for waiter in woken { waiter.resume() }
        return changed
    }

    /// Returns once the database is seen down (at once if it is), or when the task is cancelled.
    /// No timer and no polling: a request in flight costs one entry in a table.
    func outage() async {
        let id = state.withLockedValue { s -> Int in
            s.lastWaiter &+= 1
            return s.lastWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLockedValue { s -> Bool in
                    if !s.ready || s.cancelledEarly.remove(id) != nil { return true }
                    s.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLockedValue { s -> CheckedContinuation<Void, Never>? in
                if let waiter = s.waiters.removeValue(forKey: id) { return waiter }
                s.cancelledEarly.insert(id)
                return nil
            }
            waiter?.resume()
        }
        // A cancellation that came after the wait ended leaves nothing behind.
        state.withLockedValue { _ = $0.cancelledEarly.remove(id) }
    }

    /// Whether an error means the database cannot be reached (the connection failed or was closed,
    /// or the server is shutting down or starting), as opposed to a query the database refused.
    static func isUnavailability(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
            return true
        case .server:
            // Class 08 (connection exception) and 57 (operator intervention: shutdown, starting up).
            let state = error.serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("08") || state.hasPrefix("57")
        default:
            return false
        }
    }
}

extension Problem {
    /// 503 for a write given up on after it may have committed: it may or may not be saved.
    static let writeOutcomeUnknown = Problem(
        .serviceUnavailable, type: "write-outcome-unknown", title: "The change may or may not have been saved",
        detail: "the database went away while this change was being committed: read it back before writing again, or repeat the request with the same Idempotency-Key",
        headers: [.retryAfter: "2"])

    /// 503 while the database cannot be reached; nothing of the request was saved; clients retry
    /// after `Retry-After` seconds.
    static let databaseUnavailable = Problem(
        .serviceUnavailable, type: "database-unavailable", title: "The database is unavailable",
        detail: "the database cannot be reached right now; published documents are still served; retry shortly",
        headers: [.retryAfter: "2"])
}

/// Answers API requests with 503 at once while the database is known to be down, and turns a
/// request that fails because the database went away into a 503 too (never a 500 or a hang: a
/// request in flight when the monitor sees the database go down is answered then).
struct DatabaseAvailabilityMiddleware<Context: RequestContext>: RouterMiddleware {
    let availability: DatabaseAvailability

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard availability.isReady else {
            ServerMetrics.databaseUnavailable.increment()
            throw Problem.databaseUnavailable
        }
        // A write reports what its transactions committed, so that giving up on it tells the
        // client the truth: "nothing changed" only when nothing can have.
        guard !AuthMiddleware.isSafe(request.method) else { return try await answer(request, context: context, next: next) }
        let outcome = WriteOutcome()
        do {
            return try await WriteOutcome.$current.withValue(outcome) { try await answer(request, context: context, next: next) }
        } catch let problem as Problem where problem.type == Problem.databaseUnavailable.type {
            if outcome.abandon() == .mayHaveCommitted {
                ServerMetrics.writeOutcomeUnknown.increment()
                throw Problem.writeOutcomeUnknown
            }
            throw problem
        }
    }

    private func answer(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let availability = self.availability
        do {
            return try await withoutActuallyEscaping(next) { next in
                // The next responder runs in a child task so the watcher can give up on it; the
                // group waits for both before returning, so `next` never outlives this call.
                let handler = UncheckedResponder(call: next)
                return try await withThrowingTaskGroup(of: Response?.self) { group in
                    group.addTask { try await handler.call(request, context) }
                    group.addTask {
                        // Gives up on the request as soon as the monitor sees the database go down
                        // (it checks twice a second), after a moment for an answer already on its way.
                        await availability.outage()
                        try await Task.sleep(for: .milliseconds(300))
                        return nil
                    }
                    defer { group.cancelAll() }
                    guard let first = try await group.next(), let response = first else { throw Problem.databaseUnavailable }
                    return response
                }
            }
        } catch where DatabaseAvailability.isUnavailability(error) {
            availability.record(ready: false)
            throw Problem.databaseUnavailable
        }
    }
}

/// The rest of the middleware chain, called from a child task. Hummingbird's responders are
/// values that handle concurrent requests; the closure is only not declared `@Sendable`.
private struct UncheckedResponder<Context: RequestContext>: @unchecked Sendable {
    let call: (Request, Context) async throws -> Response
}

/// Checks the schema once the database answers (retrying while it does not, with a log line
/// naming the address tried), then checks the database twice a second. Readiness (`/health`) is
/// what it last saw.
public struct DatabaseMonitor: Service {
    let client: PostgresClient
    let availability: DatabaseAvailability
    let address: String
    let logger: Logger
    /// Run once the database first answers (the schema check); an error stops the server.
    let prepare: @Sendable () async throws -> Void
    var interval: Duration = .milliseconds(500)

    public init(
        client: PostgresClient, availability: DatabaseAvailability, address: String, logger: Logger,
        interval: Duration = .milliseconds(500), prepare: @escaping @Sendable () async throws -> Void = {}
    ) {
        self.client = client
        self.availability = availability
        self.address = address
        self.logger = logger
        self.interval = interval
        self.prepare = prepare
    }

    /// A client of one connection for the monitor's pings, run beside the shared one: requests
    /// that keep every pooled connection busy are not an outage (a ping that waited for one
    /// timed out on a loaded machine, and the API answered 503 for a moment).
    public static func ownClient(_ url: DatabaseURL, logger: Logger) -> PostgresClient {
        var configuration = url.clientConfiguration()
        configuration.options.maximumConnections = 1
        var background = logger
        background.logLevel = max(logger.logLevel, .error)
        return PostgresClient(configuration: configuration, backgroundLogger: background)
    }

    public func run() async throws {
        // Start: wait for the database, then check (or migrate) the schema.
        var attempt = 0
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await ping()
                break
            } catch {
                if attempt % 20 == 0 {
                    logger.warning("cannot reach the database at \(address) (\(Self.describe(error))); retrying twice a second, not ready meanwhile")
                }
                attempt += 1
                try? await Task.sleep(for: interval)
            }
        }
        if Task.isCancelled || Task.isShuttingDownGracefully { return }
        try await prepare()
        availability.record(ready: true)
        logger.info("the database at \(address) answers: ready")

        // Then: a check every `interval`.
        var judge = ReadinessJudge()
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            // After a time-out the next ping goes at once: a frozen database is seen down within
            // a second and a half (two half-second pings after one interval).
            if judge.timeoutsInARow == 0 { try? await Task.sleep(for: interval) }
            // Stopping is not an outage.
            if Task.isCancelled || Task.isShuttingDownGracefully { return }
            var failure: (any Error)?
            do {
                try await ping()
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { return }
                failure = error
            }
            observe(failure, judge: &judge)
        }
    }

    /// Records what one ping came to (nil: answered), as `judge` reads it, and logs a change.
    func observe(_ failure: (any Error)?, judge: inout ReadinessJudge) {
        let ping: ReadinessJudge.Ping = failure == nil ? .answered : failure is PingTimeout ? .timedOut : .failed
        guard let ready = judge.readiness(after: ping), availability.record(ready: ready) else { return }
        if ready {
            logger.notice("the database at \(address) answers again: ready")
        } else {
            let cause = failure.map(Self.describe) ?? ""
            logger.error("the database at \(address) stopped answering (\(cause)): API requests get 503 until it is back; published documents are still served")
        }
    }

    /// `SELECT 1`, given at most half a second. The query runs in a task of its own that is not
    /// awaited past the deadline: a query stuck on a dying connection must not stop the checks.
    func ping() async throws {
        let client = self.client, logger = self.logger
        let outcome = PingOutcome()
        let query = Task {
            do {
                try await client.query("SELECT 1", logger: logger)
                outcome.finish(nil)
            } catch {
                outcome.finish(error)
            }
        }
        let deadline = ContinuousClock.now + .milliseconds(500)
        while ContinuousClock.now < deadline {
            if let result = outcome.result {
                if let error = result { throw error }
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        query.cancel()
        throw PingTimeout()
    }

    /// What a ping's query ended with (nil inside: it succeeded).
    final class PingOutcome: Sendable {
        private let box = NIOLockedValueBox<(any Error)??>(nil)
        var result: (any Error)?? { box.withLockedValue { $0 } }
        func finish(_ error: (any Error)?) { box.withLockedValue { if $0 == nil { $0 = .some(error) } } }
    }

    struct PingTimeout: Error, CustomStringConvertible {
        var description: String { "no answer within half a second, \(ReadinessJudge.timeoutsForOutage) times in a row" }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            return "\(error.code)"
        }
        return "\(error)"
    }
}

/// What the monitor makes of its pings (pure, so that tests give it any sequence). An answer is
/// ready; an error (the connection refused or closed, the server shutting down) is down at once;
/// a ping that only ran out of time is down when the one before ran out too. Down answers every
/// API request in flight with 503, and one `SELECT 1` slower than half a second (a checkpoint on
/// a loaded machine) is not an outage; a database that stopped answering is seen down after two
/// pings in a row (the monitor sends the second at once; on the monitor's one connection it waits
/// for the first query, so the two together allow the database about a second of silence).
struct ReadinessJudge {
    enum Ping { case answered, timedOut, failed }

    static let timeoutsForOutage = 2
    private(set) var timeoutsInARow = 0

    /// The readiness `ping` shows, or nil when it shows nothing yet (a first time-out).
    mutating func readiness(after ping: Ping) -> Bool? {
        switch ping {
        case .answered:
            timeoutsInARow = 0
            return true
        case .failed:
            timeoutsInARow = 0
            return false
        case .timedOut:
            timeoutsInARow += 1
            return timeoutsInARow >= Self.timeoutsForOutage ? false : nil
        }
    }
}

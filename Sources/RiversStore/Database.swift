import Foundation
import Logging
import Metrics
import NIOConcurrencyHelpers
import PostgresNIO

/// Connection settings read from a `DATABASE_URL`:
/// `postgres://user[:password]@host[:port]/database` or, for a Unix socket,
/// `postgres:///database?host=/path/to/socket/dir&user=name` (as libpq writes it).
public struct DatabaseURL: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var socketDirectory: String?
    public var user: String
    public var password: String?
    public var database: String

    public init(_ text: String) throws {
        guard let components = URLComponents(string: text),
              components.scheme == "postgres" || components.scheme == "postgresql"
        else {
            throw ConfigurationError("DATABASE_URL must look like postgres://user:password@host:5432/database (got \"\(text)\")")
        }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, b in b })
        host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost"
        port = components.port ?? Int(query["port"] ?? "") ?? 5432
        user = components.user ?? query["user"] ?? "postgres"
        password = components.password ?? query["password"]
        database = String(components.path.drop(while: { $0 == "/" }))
        if database.isEmpty { database = query["dbname"] ?? user }
        if let socket = query["host"], socket.hasPrefix("/") { socketDirectory = socket }
    }

    /// The socket file inside the socket directory, as Postgres names it.
    public var socketPath: String? {
        socketDirectory.map { "\($0)/.s.PGSQL.\(port)" }
    }

    /// The pool's size unless `DATABASE_POOL_SIZE` says otherwise.
    public static let defaultPoolSize = 20

    /// A client of at most `maximumConnections` connections.
    public func clientConfiguration(maximumConnections: Int = defaultPoolSize) -> PostgresClient.Configuration {
        var config: PostgresClient.Configuration
        if let socketPath {
            config = .init(unixSocketPath: socketPath, username: user, password: password, database: database)
        } else {
            config = .init(host: host, port: port, username: user, password: password, database: database, tls: .disable)
        }
        config.options.maximumConnections = maximumConnections
        return config
    }

    /// The URL again, as `DATABASE_URL` takes it.
    public var urlString: String {
        var text = "postgres://\(user)"
        if let password { text += ":\(password)" }
        text += "@\(host):\(port)/\(database)"
        if let socketDirectory { text += "?host=\(socketDirectory)" }
        return text
    }

    /// The same server and credentials, another database (tests create throwaway databases).
    public func with(database: String) -> DatabaseURL {
        var copy = self
        copy.database = database
        return copy
    }
}

public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension PostgresConnection {
    /// Runs `body` in a transaction and rethrows its own error unchanged (PostgresNIO's
    /// `withTransaction` wraps it), so domain errors reach the HTTP layer as they were thrown.
    func transaction<T: Sendable>(logger: Logger, _ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await query("BEGIN", logger: logger)
        do {
            // Who is acting, for the audit triggers: settings that end with the transaction.
            if let actor = AuditActor.current {
                try await query(
                    """
                    SELECT set_config('rivers.actor', \(actor.name), true), set_config('rivers.actor_kind', \(actor.kind.rawValue), true),
                           set_config('rivers.request_id', \(actor.requestId), true), set_config('rivers.address', \(actor.address), true)
                    """, logger: logger)
            }
            let result = try await body(self)
            // A request that was given up on (its answer already said nothing changed) never
            // commits afterwards: the check and the mark are one step (`WriteOutcome`).
            let outcome = WriteOutcome.current
            // The request's Idempotency-Key is marked carried out in the same transaction as the
            // change (the first of the request's transactions that commits).
            if let claim = outcome?.unmarkedClaim {
                try await query(
                    "UPDATE idempotency_keys SET committed = true WHERE scope = \(claim.scope) AND caller = \(claim.caller) AND key = \(claim.key)",
                    logger: logger)
            }
            if let outcome, !outcome.beginCommit() { throw CancellationError() }
            do {
                try await query("COMMIT", logger: logger)
            } catch {
                // Sent, and no answer: the database may have committed it.
                outcome?.endCommit(confirmed: false)
                throw error
            }
            outcome?.endCommit(confirmed: true)
            return result
        } catch {
            _ = try? await query("ROLLBACK", logger: logger)
            throw error
        }
    }
}

/// What a write request's transactions did, for its answer when the database goes away under
/// it: a client told "nothing changed" must be able to trust it. Set per request (a task local)
/// by the HTTP layer; the transactions of that request report to it.
public final class WriteOutcome: Sendable {
    public enum State: Sendable, Equatable {
        /// No commit sent: nothing of this request is saved.
        case nothingCommitted
        /// A COMMIT was sent and its answer not (yet) received, or a commit succeeded: something
        /// of this request is, or may be, saved.
        case mayHaveCommitted
        /// The request was given up on before any commit: none will be sent.
        case abandoned
    }

    @TaskLocal public static var current: WriteOutcome?

    private struct Inner {
        var committing = false
        var committedAny = false
        var abandoned = false
        var claim: IdempotencyClaim?
    }
    private let inner = NIOLockedValueBox(Inner())

    public init() {}

    /// The request's Idempotency-Key, claimed before it runs.
    public func attach(_ claim: IdempotencyClaim) { inner.withLockedValue { $0.claim = claim } }

    /// The claim still to be marked committed (none once a transaction of the request committed).
    var unmarkedClaim: IdempotencyClaim? { inner.withLockedValue { $0.committedAny ? nil : $0.claim } }

    /// Before sending COMMIT: false when the request was given up on (roll back instead).
    public func beginCommit() -> Bool {
        inner.withLockedValue { s in
            if s.abandoned { return false }
            s.committing = true
            return true
        }
    }

    public func endCommit(confirmed: Bool) {
        inner.withLockedValue { s in
            // An unconfirmed commit stays "committing" for good: its outcome is unknown.
            if confirmed {
                s.committing = false
                s.committedAny = true
            }
        }
    }

    /// The request is answered without waiting for its work: from now on its transactions roll
    /// back instead of committing. Says whether something may have been committed already.
    public func abandon() -> State {
        inner.withLockedValue { s in
            if s.committing || s.committedAny { return .mayHaveCommitted }
            s.abandoned = true
            return .abandoned
        }
    }

    /// What is known now, without giving up.
    public var state: State {
        inner.withLockedValue { s in
            if s.committing || s.committedAny { return .mayHaveCommitted }
            return s.abandoned ? .abandoned : .nothingCommitted
        }
    }
}

extension PostgresClient {
    /// One transaction on a connection of the pool. The caller may stop waiting (see `abandonable`).
    func transaction<T: Sendable>(logger: Logger, _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await reading { connection in try await connection.transaction(logger: logger, body) }
    }

    /// A connection of the pool. The caller may stop waiting (see `abandonable`). The time spent
    /// waiting for a connection and the connections in use are measured (`PoolMetrics`).
    func reading<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await abandonable {
            let asked = ContinuousClock.now
            return try await self.withConnection { connection in
                PoolMetrics.leased(waited: ContinuousClock.now - asked)
                defer { PoolMetrics.returned() }
                return try await body(connection)
            }
        }
    }
}

/// Runs `work` in a task of its own and waits for it; when the waiting task is cancelled, it stops
/// waiting at once (and cancels the work, which ends on its own). A request whose database went
/// away while it waited on the pool or on a dying connection can then be answered (503) instead
/// of hanging until the pool gives up.
func abandonable<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
    let waiter = Waiter<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            waiter.start(continuation, work: work)
        }
    } onCancel: {
        waiter.resume(with: .failure(CancellationError()))
    }
}

/// The continuation of one `abandonable` call, resumed once: by the work, or by cancellation.
private final class Waiter<T: Sendable>: Sendable {
    private let state = NIOLockedValueBox<(continuation: CheckedContinuation<T, any Error>?, done: Bool, task: Task<Void, Never>?)>((nil, false, nil))

    func start(_ continuation: CheckedContinuation<T, any Error>, work: @escaping @Sendable () async throws -> T) {
        let cancelledAlready = state.withLockedValue { s -> Bool in
            if s.done { return true }
            s.continuation = continuation
            return false
        }
        if cancelledAlready {
            continuation.resume(throwing: CancellationError())
            return
        }
        let task = Task {
            let result: Result<T, any Error>
            do { result = .success(try await work()) } catch { result = .failure(error) }
            self.resume(with: result)
        }
        state.withLockedValue { $0.task = task }
    }

    func resume(with result: Result<T, any Error>) {
        let (continuation, task) = state.withLockedValue { s -> (CheckedContinuation<T, any Error>?, Task<Void, Never>?) in
            if s.done { return (nil, nil) }
            s.done = true
            defer { s.continuation = nil }
            return (s.continuation, s.task)
        }
        if case .failure(let error) = result, error is CancellationError { task?.cancel() }
        continuation?.resume(with: result)
    }
}

/// How the store uses the connection pool (PostgresNIO does not report it to swift-metrics):
/// `rivers_database_connections_in_use` and `rivers_database_connection_wait_seconds`.
enum PoolMetrics {
    private static let inUse = NIOLockedValueBox(0)
    private static let inUseGauge = Gauge(label: "rivers_database_connections_in_use")
    private static let wait = Metrics.Timer(label: "rivers_database_connection_wait_seconds")

    static func leased(waited: Duration) {
        let n = inUse.withLockedValue { $0 += 1; return $0 }
        inUseGauge.record(n)
        wait.recordNanoseconds(waited.components.seconds * 1_000_000_000 + waited.components.attoseconds / 1_000_000_000)
    }

    static func returned() {
        inUseGauge.record(inUse.withLockedValue { $0 -= 1; return $0 })
    }
}

/// Who is making the changes of the current task (a request, or a command), for the audit log:
/// `transaction` hands it to the database's audit triggers. Unset, changes are the system's.
public struct AuditActor: Sendable {
    public enum Kind: String, Sendable {
        case user, token, system, anonymous
        /// A scheduled promotion firing (issue 27).
        case schedule
    }

    public var name: String
    public var kind: Kind
    public var requestId: String
    public var address: String

    public init(name: String, kind: Kind, requestId: String = "", address: String = "") {
        self.name = String(name.prefix(200))
        self.kind = kind
        self.requestId = String(requestId.prefix(100))
        self.address = String(address.prefix(100))
    }

    @TaskLocal public static var current: AuditActor?
}

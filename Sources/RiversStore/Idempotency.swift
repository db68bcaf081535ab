import Foundation
import PostgresNIO
import RiversCore

/// A write's Idempotency-Key: whose (scope and caller) and which.
public struct IdempotencyClaim: Sendable, Hashable {
    /// The app's id, or "" for routes outside apps.
    public var scope: String
    /// The caller: a person's id or a token's id.
    public var caller: String
    public var key: String
    public init(scope: String, caller: String, key: String) {
        self.scope = scope
        self.caller = caller
        self.key = key
    }
}

/// An answer kept for a key: its status, the headers worth repeating, and its body (nil when it
/// was not kept: it held a secret shown once, or was too large).
public struct StoredAnswer: Sendable, Equatable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]?
    public init(status: Int, headers: [String: String], body: [UInt8]?) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// What claiming a key found.
public enum IdempotencyClaimResult: Sendable, Equatable {
    /// First use (or a use whose request died before committing): carry the request out.
    case claimed
    /// Done before: answer as then.
    case replay(StoredAnswer)
    /// The same key with another request (method, path or body).
    case mismatch
    /// A request with this key is being carried out now.
    case inProgress
    /// Carried out (committed) but its answer was lost with its process.
    case committedWithoutAnswer
    /// The caller has used `limit` keys in this scope in the last 24 hours.
    case tooMany(limit: Int)
}

/// Where `Idempotency-Key`s and their answers are kept (the rules are `IdempotencyMiddleware`'s).
/// `Store` in SQL, where a key is marked carried out inside the write's own transaction;
/// `InMemoryIdempotency` for the fast tier's router tests.
public protocol IdempotencyRepository: Sendable {
    /// Claims `claim` for a request of `requestHash`, or says why not.
    func claimIdempotencyKey(_ claim: IdempotencyClaim, requestHash: String) async throws -> IdempotencyClaimResult
    /// Keeps the answer of a claimed key.
    func keepIdempotentAnswer(_ claim: IdempotencyClaim, _ answer: StoredAnswer) async throws
    /// Gives a key back: its request failed before changing anything.
    func releaseIdempotencyKey(_ claim: IdempotencyClaim) async throws
}

extension Store: IdempotencyRepository {}

extension Store {
    /// How long keys are kept.
    public static let idempotencyLifetime: TimeInterval = 24 * 3600
    /// Keys one caller may use in one scope within the lifetime.
    public static let maxIdempotencyKeys = 10_000
    /// A request that claimed its key and has neither committed nor answered for this long died:
    /// its key may be claimed again.
    public static let idempotencyClaimTimeout: TimeInterval = 60

    /// Claims `claim` for a request of `requestHash`, or says why not. Old keys are dropped on
    /// the way (a few at a time).
    public func claimIdempotencyKey(_ claim: IdempotencyClaim, requestHash: String) async throws -> IdempotencyClaimResult {
        try await client.transaction(logger: logger) { connection in
            let lifetime = Self.idempotencyLifetime
            try await connection.query(
                """
                DELETE FROM idempotency_keys WHERE ctid IN (
                    SELECT ctid FROM idempotency_keys WHERE created_at < now() - make_interval(secs => \(lifetime)) LIMIT 100)
                """, logger: self.logger)
            let rows = try await connection.query(
                """
                SELECT request_hash, committed, status, headers::text, body, claimed_at < now() - make_interval(secs => \(Self.idempotencyClaimTimeout))
                FROM idempotency_keys WHERE scope = \(claim.scope) AND caller = \(claim.caller) AND key = \(claim.key)
                  AND created_at > now() - make_interval(secs => \(lifetime))
                FOR UPDATE
                """, logger: self.logger)
            for try await (hash, committed, status, headers, body, stale) in rows.decode((String, Bool, Int?, String?, ByteBuffer?, Bool).self) {
                guard hash == requestHash else { return .mismatch }
                if let status {
                    var fields: [String: String] = [:]
                    if let headers, case .object(let o)? = try? JSONValue.parse(Array(headers.utf8)) {
                        for (name, value) in o { if let v = value.stringValue { fields[name] = v } }
                    }
                    return .replay(StoredAnswer(status: status, headers: fields, body: body.map { Array(buffer: $0) }))
                }
                if committed { return stale ? .committedWithoutAnswer : .inProgress }
                guard stale else { return .inProgress }
                try await connection.query(
                    "UPDATE idempotency_keys SET claimed_at = now() WHERE scope = \(claim.scope) AND caller = \(claim.caller) AND key = \(claim.key)",
                    logger: self.logger)
                return .claimed
            }
            var used = 0
            for try await n in try await connection.query(
                """
                SELECT count(*)::int FROM idempotency_keys WHERE scope = \(claim.scope) AND caller = \(claim.caller)
                  AND created_at > now() - make_interval(secs => \(lifetime))
                """, logger: self.logger
            ).decode(Int.self) { used = n }
            if used >= Self.maxIdempotencyKeys { return .tooMany(limit: Self.maxIdempotencyKeys) }
            try await connection.query(
                """
                INSERT INTO idempotency_keys (scope, caller, key, request_hash) VALUES (\(claim.scope), \(claim.caller), \(claim.key), \(requestHash))
                ON CONFLICT (scope, caller, key) DO UPDATE
                  SET request_hash = EXCLUDED.request_hash, claimed_at = now(), created_at = now(), committed = false,
                      status = NULL, headers = NULL, body = NULL
                """, logger: self.logger)
            return .claimed
        }
    }

    /// Keeps the answer of a claimed key.
    public func keepIdempotentAnswer(_ claim: IdempotencyClaim, _ answer: StoredAnswer) async throws {
        let headers = JSONValue.object(answer.headers.mapValues { .string($0) }).serializedString()
        try await client.query(
            """
            UPDATE idempotency_keys SET status = \(answer.status), headers = \(headers)::jsonb, body = \(answer.body.map { Data($0) })
            WHERE scope = \(claim.scope) AND caller = \(claim.caller) AND key = \(claim.key)
            """, logger: logger)
    }

    /// Gives a key back: its request failed before changing anything, so it may be sent again.
    public func releaseIdempotencyKey(_ claim: IdempotencyClaim) async throws {
        try await client.query(
            "DELETE FROM idempotency_keys WHERE scope = \(claim.scope) AND caller = \(claim.caller) AND key = \(claim.key) AND NOT committed",
            logger: logger)
    }
}

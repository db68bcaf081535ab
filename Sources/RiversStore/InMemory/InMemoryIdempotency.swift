import Foundation
import NIOConcurrencyHelpers
import RiversCore

/// `Idempotency-Key`s in memory: an `IdempotencyRepository` for the fast tier's router tests of
/// `IdempotencyMiddleware` (replays, another request under a key, a key in use, answers not
/// kept, the cap per caller). Keys do not age out, and none is marked carried out inside a
/// write's transaction (PostgreSQL's part, tested there): a key claimed and neither answered
/// nor given back stays in progress.
public final class InMemoryIdempotency: IdempotencyRepository {
    struct Entry {
        var requestHash: String
        var answer: StoredAnswer?
    }

    private let keys = NIOLockedValueBox<[IdempotencyClaim: Entry]>([:])
    /// Keys one caller may use in one scope (`Store.maxIdempotencyKeys` unless a test says less).
    let limit: Int

    public init(limit: Int = Store.maxIdempotencyKeys) { self.limit = limit }

    public func claimIdempotencyKey(_ claim: IdempotencyClaim, requestHash: String) async throws -> IdempotencyClaimResult {
        keys.withLockedValue { keys in
            if let entry = keys[claim] {
                guard entry.requestHash == requestHash else { return .mismatch }
                return entry.answer.map { .replay($0) } ?? .inProgress
            }
            if keys.keys.filter({ $0.scope == claim.scope && $0.caller == claim.caller }).count >= limit { return .tooMany(limit: limit) }
            keys[claim] = Entry(requestHash: requestHash)
            return .claimed
        }
    }

    public func keepIdempotentAnswer(_ claim: IdempotencyClaim, _ answer: StoredAnswer) async throws {
        keys.withLockedValue { $0[claim]?.answer = answer }
    }

    public func releaseIdempotencyKey(_ claim: IdempotencyClaim) async throws {
        keys.withLockedValue { keys in
            if keys[claim]?.answer == nil { keys[claim] = nil }
        }
    }

    /// Keys kept (for tests).
    public var count: Int { keys.withLockedValue { $0.count } }
}

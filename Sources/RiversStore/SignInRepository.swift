import Foundation
import RiversCore

/// What signing in, changing a password, using a one-time link and managing one's sessions
/// read and write (the rules are `AccountService`'s, in RiversServices): accounts and their
/// password hashes, sessions, the throttle's counts, links. `Store` in SQL; `InMemoryAccounts` for the fast tier.
public protocol SignInRepository: Sendable {
    /// The account of `email` (lowercased) and its password hash, if it has one.
    func user(email: String) async throws -> (user: User, passwordHash: String?)?
    func passwordHash(userId: String) async throws -> String?
    /// Sets a password (hashed); every session of the account ends.
    func setPassword(userId: String, hash: String) async throws
    /// A new session: the cookie's secret (returned once) and the session with its CSRF token.
    func createSession(userId: String, userAgent: String, address: String) async throws -> (secret: String, session: SignedInSession)
    /// The audit entry of a sign-in.
    func recordSignIn(userId: String) async throws
    /// The account's live sessions, the most recently used first.
    func sessions(userId: String) async throws -> [SessionSummary]
    /// Ends one session of the account (`id`), or all of them (nil): how many ended.
    @discardableResult
    func endSessions(userId: String, id: String?) async throws -> Int

    /// Counts an attempt against each key before its password is checked (so concurrent guesses
    /// see each other): the attempt's rows and, per key, what is counted within `window`.
    func beginSignInAttempt(keys: [String], window: TimeInterval) async throws -> (ids: [Int], counts: [String: SignInAttemptCount])
    /// The attempt's check has ended: the delay before the next runs from now.
    func endSignInAttempt(ids: [Int]) async throws
    /// Takes back the attempt's rows under `keys` only.
    func dropSignInAttempt(ids: [Int], keys: [String]) async throws
    /// Whether the account of `email` signed in with its password from `address` lately.
    func isKnownAddress(email: String, address: String) async throws -> Bool
    /// A password sign-in succeeded from `address`: remembered for the throttle.
    func recordSignInSuccess(email: String, address: String) async throws
    /// A failed attempt stays counted; its audit entry is written.
    func recordSignInFailure(email: String) async throws

    /// The link a secret names, whatever its state.
    func link(secret: String) async throws -> OneTimeLink?
    /// Uses a link once, in one transaction (marked used; the password set or the account made;
    /// an invitation's membership added). Nil when the link is unknown, used, expired or void.
    func useLink(secret: String, _ use: LinkUse) async throws -> User?
}

/// What the throttle knows of one key: attempts within the window (this one included), the
/// oldest of them, and when the one before this was made.
public struct SignInAttemptCount: Sendable {
    public var count: Int
    public var oldest: Date
    public var previous: Date?
    public init(count: Int, oldest: Date, previous: Date?) {
        self.count = count
        self.oldest = oldest
        self.previous = previous
    }
}

/// How a one-time link is used.
public enum LinkUse: Sendable {
    /// Sets this password (hashed) on the account: a new one, or one without a password.
    case setPassword(hash: String, name: String?)
    /// The account exists with a password, checked by the caller: only the invitation is taken.
    case existingAccount
}

extension Store: SignInRepository {}

import Foundation
import RiversCore
import RiversStore

/// Hashes and checks passwords (bcrypt on a bounded pool of its own in the server, `Passwords`).
public protocol PasswordHasher: Sendable {
    func hash(_ password: String, from address: String) async throws -> String
    func verify(_ password: String, hash: String, from address: String) async throws -> Bool
    /// A hash of no one's password: checking against it costs what a real check costs, so an
    /// unknown email cannot be told from a wrong password by the time the answer takes.
    var decoy: String { get }
}

/// Who is signing in: where from, with what, in which request (for the audit log).
public struct SignInClient: Sendable {
    public var address: String
    public var userAgent: String
    public var requestId: String

    public init(address: String, userAgent: String, requestId: String = "") {
        self.address = address
        self.userAgent = userAgent
        self.requestId = requestId
    }
}

/// Why a sign-in, a password change or a link's use was refused (besides `StoreError`s).
public enum AccountError: Error, Equatable {
    /// The email or the password is wrong (which of them is not said).
    case signInFailed
    /// Held back by the throttle: try again in this many seconds.
    case tooManySignIns(wait: Int)
    /// The password given to prove who one is (at `field`) is wrong.
    case wrongPassword(field: String, detail: String)
    case linkUnknown
    case linkUsedOrExpired
    /// An invitation never sets the password of an account that exists.
    case accountNeedsItsOwnLink
}

/// A new session: the cookie's secret (shown once) and the session.
public typealias NewSession = (secret: String, session: SignedInSession)

/// The use cases of people signing in: with a password, changing it, and using a one-time link
/// (set a password; accept an invitation). They hold the rules (the throttle, the decoy check,
/// who may set which password, who acts in the audit log); the repository only reads and writes.
public struct AccountService: Sendable {
    let store: any SignInRepository
    let passwords: any PasswordHasher
    let throttle: SignInThrottle

    public init(store: any SignInRepository, passwords: any PasswordHasher, throttle: SignInThrottle = SignInThrottle()) {
        self.store = store
        self.passwords = passwords
        self.throttle = throttle
    }

    /// A password people may choose: 10 characters or more (spaces at either end not counted),
    /// at most 72 bytes (bcrypt reads no further).
    public static let minimumPasswordLength = 10
    public static let maximumPasswordBytes = 72

    public static func checkNewPassword(_ password: String, field: String = "/password") throws {
        guard password.trimmingCharacters(in: .whitespacesAndNewlines).count >= minimumPasswordLength else {
            throw StoreError.invalid([FieldError(field, "must be at least \(minimumPasswordLength) characters, not counting spaces at either end")])
        }
        guard password.utf8.count <= maximumPasswordBytes else {
            throw StoreError.invalid([FieldError(field, "must be at most \(maximumPasswordBytes) bytes")])
        }
    }

    /// Signs in with an email (lowercased) and a password.
    public func signIn(email: String, password: String, client: SignInClient) async throws -> NewSession {
        let found = try await store.user(email: email)
        guard try await checkPassword(password, hash: found?.passwordHash, email: email, client: client), let user = found?.user else {
            throw AccountError.signInFailed
        }
        return try await startSession(user, client: client)
    }

    /// A new password, proven by the current one: every session of the account ends, and the
    /// caller gets a new one.
    public func changePassword(of user: User, current: String, new: String, client: SignInClient) async throws -> NewSession {
        try Self.checkNewPassword(new, field: "/new_password")
        let hash = try await store.passwordHash(userId: user.id)
        guard try await checkPassword(current, hash: hash, email: user.email, client: client) else {
            throw AccountError.wrongPassword(field: "/current_password", detail: "the current password is wrong")
        }
        try await store.setPassword(userId: user.id, hash: try await passwords.hash(new, from: client.address))
        return try await startSession(user, client: client)
    }

    /// A link that can still be used, and whether its account has a password (so the page that
    /// opens it asks the right question).
    public func liveLink(secret: String) async throws -> (link: OneTimeLink, hasPassword: Bool) {
        let link = try await live(secret)
        return (link, try await store.user(email: link.email)?.passwordHash != nil)
    }

    /// Uses a link once and signs its person in: a password link sets the password; an
    /// invitation makes the account (with this password) or, for an account with a password,
    /// takes that password as proof. `credentials` (the request's password and name) is read
    /// once the link is known to be usable.
    public func useLink(
        secret: String, client: SignInClient, credentials: () async throws -> (password: String, name: String?)
    ) async throws -> NewSession {
        let link = try await live(secret)
        let (password, name) = try await credentials()
        let existing = try await store.user(email: link.email)
        let use: LinkUse
        if link.kind == .invitation, let hash = existing?.passwordHash {
            guard try await checkPassword(password, hash: hash, email: link.email, client: client) else {
                throw AccountError.wrongPassword(field: "/password", detail: "this account has a password already: enter it to accept")
            }
            use = .existingAccount
        } else {
            // Refused before any hashing: an invitation never sets the password of an account
            // that exists (the store refuses it too), so being told so costs no bcrypt work.
            if link.kind == .invitation, existing != nil { throw AccountError.accountNeedsItsOwnLink }
            try Self.checkNewPassword(password)
            use = .setPassword(hash: try await passwords.hash(password, from: client.address), name: name)
        }
        // The person the link is for is who acts (the audit log names them, not "anonymous").
        guard let user = try await acting(as: link.email, client, { try await store.useLink(secret: secret, use) }) else {
            throw AccountError.linkUsedOrExpired
        }
        // The address a password was just chosen from is one its owner uses (the per-account
        // throttle does not hold them back there).
        if case .setPassword = use { try await store.recordSignInSuccess(email: user.email, address: client.address) }
        return try await startSession(user, client: client)
    }

    private func live(_ secret: String) async throws -> OneTimeLink {
        guard secret.utf8.count <= 100, let link = try await store.link(secret: secret) else { throw AccountError.linkUnknown }
        guard link.usedAt == nil, link.expiresAt > Date() else { throw AccountError.linkUsedOrExpired }
        return link
    }

    /// Checks a password under the throttle. The attempt is counted before the check, so
    /// concurrent attempts see each other; one held back is refused at once and not counted. A
    /// success takes back its failures (not its place among the attempts); a failure stays
    /// counted and is audited. Without a hash (no account, or no password yet) the decoy is
    /// checked, so the time taken tells nothing.
    func checkPassword(_ password: String, hash: String?, email: String, client: SignInClient) async throws -> Bool {
        let keys = SignInThrottle.keys(email: email, address: client.address)
        let attempt = try await store.beginSignInAttempt(keys: keys.all, window: SignInThrottle.window)
        let knownAddress = try await store.isKnownAddress(email: email, address: client.address)
        if let wait = throttle.wait(counts: attempt.counts, keys: keys, knownAddress: knownAddress, now: Date()) {
            try await store.dropSignInAttempt(ids: attempt.ids, keys: keys.all)
            throw AccountError.tooManySignIns(wait: wait)
        }
        let ok: Bool
        do {
            ok = try await passwords.verify(password, hash: hash ?? passwords.decoy, from: client.address) && hash != nil
        } catch {
            try await store.dropSignInAttempt(ids: attempt.ids, keys: keys.all)
            throw error
        }
        try await store.endSignInAttempt(ids: attempt.ids)
        if ok {
            try await store.dropSignInAttempt(ids: attempt.ids, keys: keys.failures)
            try await store.recordSignInSuccess(email: email, address: client.address)
        } else {
            try await store.recordSignInFailure(email: email)
        }
        return ok
    }

    /// A session for `user`, who is the one acting (not "anonymous").
    func startSession(_ user: User, client: SignInClient) async throws -> NewSession {
        try await acting(as: user.email, client) {
            let created = try await store.createSession(userId: user.id, userAgent: client.userAgent, address: client.address)
            try await store.recordSignIn(userId: user.id)
            return created
        }
    }

    private func acting<T: Sendable>(as email: String, _ client: SignInClient, _ work: () async throws -> T) async throws -> T {
        try await AuditActor.$current.withValue(AuditActor(name: email, kind: .user, requestId: client.requestId, address: client.address)) {
            try await work()
        }
    }
}

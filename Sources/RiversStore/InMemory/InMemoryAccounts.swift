import Foundation
import NIOConcurrencyHelpers
import RiversCore

/// People in memory: accounts, their sessions (gone after `Store.sessionIdleLifetime` unused),
/// the sign-in throttle's counts, one-time links, app memberships and API tokens. A `SignInRepository` and a `TeamStorage` without PostgreSQL, for
/// the fast tier's tests of `AccountService`, `TeamService` and the session and link routes;
/// `InMemoryCallers` finds its sessions. Each call or transaction changes a copy of the state and
/// keeps it only when it returns (a refused use of a link leaves the link as it was, as
/// PostgreSQL's rolled-back transaction does); a transaction that started before another
/// committed runs again. Preview links are not kept here (what a demotion revokes of them is
/// PostgreSQL's tests' part).
public final class InMemoryAccounts: SignInRepository, TeamStorage {
    struct Person {
        var user: User
        var passwordHash: String?
        /// Addresses it signed in from with its password, and when last.
        var addresses: [String: Date] = [:]
    }

    struct Session {
        var id: String
        var userId: String
        var csrfToken: String
        var userAgent: String
        var address: String
        var createdAt: Date
        var lastSeenAt: Date

        /// Used within `Store.sessionIdleLifetime` of `now`.
        func isAlive(at now: Date) -> Bool { lastSeenAt > now.addingTimeInterval(-Store.sessionIdleLifetime) }
    }

    struct Link {
        var link: OneTimeLink
        var grantedBy: Grantor
    }

    struct Token {
        var secret: String
        var appId: String
        var info: TokenInfo
        var grantedBy: Grantor
    }

    struct State {
        /// Accounts by email.
        var people: [String: Person] = [:]
        /// Sessions by their cookie's secret.
        var sessions: [String: Session] = [:]
        var attempts: [(id: Int, key: String, at: Date)] = []
        var nextAttempt = 1
        /// Links by secret.
        var links: [String: Link] = [:]
        /// Roles by app id, then user id.
        var members: [String: [String: Role]] = [:]
        var tokens: [Token] = []
        /// The entries of no app the audit log holds (accounts, sign-ins), oldest first (team
        /// changes are audited by PostgreSQL's triggers: not here).
        var audit: [AuditEntry] = []

        mutating func record(_ kind: String, _ action: String, _ resourceId: String, summary: String = "") {
            audit.append(AuditEntry(
                id: audit.count + 1, at: Date(), actor: "", actorKind: "", kind: kind, resourceId: resourceId, action: action,
                revisionBefore: nil, revisionAfter: nil, summary: summary, requestId: "", address: ""))
        }
        /// Moves on with every change kept.
        var commits = 0

        /// Whether `grantor` still holds the app's admin role: an admin member (or an instance
        /// admin), or an admin token of the app; the operator always.
        func mayStillGrant(_ grantor: Grantor, appId: String) -> Bool {
            switch grantor {
            case .operator: return true
            case .person(let userId):
                return members[appId]?[userId] == .admin || people.values.contains { $0.user.id == userId && $0.user.isAdmin }
            case .token(let id):
                return tokens.contains { $0.info.id == id && $0.appId == appId && $0.info.role == .admin }
            }
        }
    }

    let state = NIOLockedValueBox(State())

    public init() {}

    // MARK: Setting up (what the store's other calls write on PostgreSQL)

    /// A new account; `passwordHash` as the hasher in use makes it (nil: no password yet).
    @discardableResult
    public func addPerson(email: String, name: String = "", passwordHash: String? = nil, isAdmin: Bool = false) -> User {
        let user = User(id: UUIDText.random(), email: email, name: name, isAdmin: isAdmin, hasPassword: passwordHash != nil, createdAt: Date())
        state.withLockedValue { $0.people[email] = Person(user: user, passwordHash: passwordHash) }
        return user
    }

    /// A one-time link for `email` (an invitation to `app` as `role` when both are given); its secret.
    public func addLink(
        kind: OneTimeLink.Kind, email: String, app: App? = nil, role: Role? = nil, expiresIn: TimeInterval = 3600, grantedBy: Grantor = .operator
    ) -> String {
        let secret = "rvl_" + UUIDText.random().replacingOccurrences(of: "-", with: "")
        let link = OneTimeLink(
            id: UUIDText.random(), kind: kind, email: email, app: app, role: role, createdBy: "memory", createdAt: Date(),
            expiresAt: Date().addingTimeInterval(expiresIn))
        transaction { $0.links[secret] = Link(link: link, grantedBy: grantedBy) }
        return secret
    }

    /// Sets a membership as it is, revoking nothing (`TeamService.setRole` is the use case).
    public func addMember(appId: String, userId: String, role: Role) {
        transaction { $0.members[appId, default: [:]][userId] = role }
    }

    // MARK: Reading back (for tests)

    public func role(appId: String, userId: String) -> Role? { state.withLockedValue { $0.members[appId]?[userId] } }
    /// The app's tokens, oldest first.
    public func tokens(appId: String) -> [TokenInfo] { state.withLockedValue { $0.tokens.filter { $0.appId == appId }.map(\.info) } }
    /// The app's invitations not used yet.
    public func pendingInvitations(appId: String) -> [OneTimeLink] {
        state.withLockedValue { $0.links.values.map(\.link).filter { $0.kind == .invitation && $0.app?.id == appId && $0.usedAt == nil } }
    }
    /// The audit log's entries as "kind action resource", oldest first.
    public var audit: [String] { state.withLockedValue { $0.audit.map { "\($0.kind) \($0.action) \($0.resourceId)" } } }
    public func passwordHashOf(email: String) -> String? { state.withLockedValue { $0.people[email]?.passwordHash } }

    /// The signed-in person of a session's secret (what `InMemoryCallers` answers with), while
    /// it is alive (used within `Store.sessionIdleLifetime`); its last use is recorded at most
    /// once a minute (`renewed`), as the SQL repository does.
    public func session(secret: String) -> SignedInSession? {
        state.withLockedValue { state in
            guard let s = state.sessions[secret], s.isAlive(at: Date()),
                let person = state.people.values.first(where: { $0.user.id == s.userId })
            else { return nil }
            let stale = s.lastSeenAt < Date().addingTimeInterval(-60)
            if stale { state.sessions[secret]?.lastSeenAt = Date() }
            return SignedInSession(id: s.id, user: person.user, csrfToken: s.csrfToken, renewed: stale)
        }
    }

    /// Whether the session `id` is alive, without recording a use (`Store.sessionIsAlive`).
    public func sessionIsAlive(id: String) -> Bool {
        state.withLockedValue { state in state.sessions.values.contains { $0.id == id && $0.isAlive(at: Date()) } }
    }

    /// Ages every session by `seconds` (as time passing without their use would).
    public func age(sessionsBy seconds: TimeInterval) {
        state.withLockedValue { state in
            for secret in state.sessions.keys { state.sessions[secret]?.lastSeenAt.addTimeInterval(-seconds) }
        }
    }

    /// Runs `change` on a copy of the state, kept only when it returns.
    func transaction<T>(_ change: (inout State) throws -> T) rethrows -> T {
        try state.withLockedValue { state in
            var copy = state
            let result = try change(&copy)
            copy.commits += 1
            state = copy
            return result
        }
    }

    // MARK: SignInRepository

    public func user(email: String) async throws -> (user: User, passwordHash: String?)? {
        state.withLockedValue { $0.people[email].map { ($0.user, $0.passwordHash) } }
    }

    public func passwordHash(userId: String) async throws -> String? {
        state.withLockedValue { $0.people.values.first { $0.user.id == userId }?.passwordHash }
    }

    public func setPassword(userId: String, hash: String) async throws {
        transaction { Self.setPassword(&$0, userId: userId, hash: hash) }
    }

    static func setPassword(_ state: inout State, userId: String, hash: String) {
        guard let email = state.people.first(where: { $0.value.user.id == userId })?.key else { return }
        state.people[email]?.passwordHash = hash
        state.people[email]?.user.hasPassword = true
        state.sessions = state.sessions.filter { $0.value.userId != userId }
        state.record("account", "set-password", userId)
    }

    public func createSession(userId: String, userAgent: String, address: String) async throws -> (secret: String, session: SignedInSession) {
        try transaction { state in
            guard let person = state.people.values.first(where: { $0.user.id == userId }) else { throw StoreError.notFound("no account \(userId)") }
            // An account keeps its newest sessions only; ones idle too long are gone already.
            let now = Date()
            for (secret, session) in state.sessions where session.userId == userId && !session.isAlive(at: now) { state.sessions[secret] = nil }
            let mine = state.sessions.filter { $0.value.userId == userId }.sorted { $0.value.lastSeenAt > $1.value.lastSeenAt }
            for (secret, _) in mine.dropFirst(Limits.maxSessionsPerAccount - 1) { state.sessions[secret] = nil }
            let secret = "rss_" + UUIDText.random().replacingOccurrences(of: "-", with: "")
            let session = Session(
                id: UUIDText.random(), userId: userId, csrfToken: UUIDText.random(), userAgent: String(userAgent.prefix(300)),
                address: String(address.prefix(100)), createdAt: Date(), lastSeenAt: Date())
            state.sessions[secret] = session
            return (secret, SignedInSession(id: session.id, user: person.user, csrfToken: session.csrfToken))
        }
    }

    public func recordSignIn(userId: String) async throws {
        transaction { $0.record("session", "sign-in", userId) }
    }

    public func sessions(userId: String) async throws -> [SessionSummary] {
        state.withLockedValue { state in
            state.sessions.values.filter { $0.userId == userId && $0.isAlive(at: Date()) }.sorted { $0.lastSeenAt > $1.lastSeenAt }.map {
                SessionSummary(id: $0.id, createdAt: $0.createdAt, lastSeenAt: $0.lastSeenAt, userAgent: $0.userAgent, address: $0.address)
            }
        }
    }

    @discardableResult
    public func endSessions(userId: String, id: String?) async throws -> Int {
        if let id, UUIDText.normalize(id) == nil { return 0 }
        let id = id.flatMap(UUIDText.normalize)
        return transaction { state in
            let ending = state.sessions.filter { $0.value.userId == userId && (id == nil || $0.value.id == id) }
            for secret in ending.keys { state.sessions[secret] = nil }
            return ending.count
        }
    }

    public func beginSignInAttempt(keys: [String], window: TimeInterval) async throws -> (ids: [Int], counts: [String: SignInAttemptCount]) {
        transaction { state in
            let now = Date()
            var ids: [Int] = []
            for key in keys {
                state.attempts.append((state.nextAttempt, key, now))
                ids.append(state.nextAttempt)
                state.nextAttempt += 1
            }
            var counts: [String: SignInAttemptCount] = [:]
            for key in keys {
                let within = state.attempts.filter { $0.key == key && $0.at > now.addingTimeInterval(-window) }
                guard let oldest = within.map(\.at).min() else { continue }
                counts[key] = SignInAttemptCount(count: within.count, oldest: oldest, previous: within.filter { !ids.contains($0.id) }.map(\.at).max())
            }
            return (ids, counts)
        }
    }

    public func endSignInAttempt(ids: [Int]) async throws {
        transaction { state in
            let now = Date()
            for i in state.attempts.indices where ids.contains(state.attempts[i].id) { state.attempts[i].at = now }
        }
    }

    public func dropSignInAttempt(ids: [Int], keys: [String]) async throws {
        transaction { $0.attempts.removeAll { ids.contains($0.id) && keys.contains($0.key) } }
    }

    public func isKnownAddress(email: String, address: String) async throws -> Bool {
        state.withLockedValue { state in
            guard let at = state.people[email]?.addresses[address] else { return false }
            return at > Date().addingTimeInterval(-Store.knownAddressLifetime)
        }
    }

    public func recordSignInSuccess(email: String, address: String) async throws {
        transaction { $0.people[email]?.addresses[address] = Date() }
    }

    public func recordSignInFailure(email: String) async throws {
        transaction { $0.record("session", "sign-in-failed", email) }
    }

    public func link(secret: String) async throws -> OneTimeLink? {
        state.withLockedValue { $0.links[secret]?.link }
    }

    public func useLink(secret: String, _ use: LinkUse) async throws -> User? {
        try transaction { state in
            guard var stored = state.links[secret], stored.link.usedAt == nil, stored.link.expiresAt > Date() else { return nil }
            stored.link.usedAt = Date()
            state.links[secret] = stored
            let link = stored.link
            // An invitation whose grantor may no longer grant its role is void: used up (kept),
            // nothing else done.
            if link.kind == .invitation, let appId = link.app?.id, !state.mayStillGrant(stored.grantedBy, appId: appId) { return nil }
            var person = state.people[link.email]
            if person == nil {
                guard link.kind == .invitation else { throw StoreError.notFound("the account of this link no longer exists") }
                var name = ""
                if case .setPassword(_, let n?) = use { name = String(n.prefix(200)) }
                let user = User(id: UUIDText.random(), email: link.email, name: name, isAdmin: false, hasPassword: false, createdAt: Date())
                person = Person(user: user)
                state.people[link.email] = person
                state.record("account", "create", user.id, summary: user.email)
            } else if link.kind == .invitation, case .setPassword = use {
                throw StoreError.conflict(
                    "this email has an account already: set its password with its own link first, then accept with it", usedBy: [])
            }
            guard let userId = person?.user.id else { return nil }
            if case .setPassword(let hash, let name) = use {
                Self.setPassword(&state, userId: userId, hash: hash)
                if let name, !name.isEmpty { state.people[link.email]?.user.name = String(name.prefix(200)) }
            }
            if let appId = link.app?.id, let role = link.role {
                let members = state.members[appId, default: [:]]
                if members[userId] == nil { try AppCaps.refuseAtCap(members.count, limit: Limits.maxMembersPerApp, "members") }
                // A membership only ever goes up by an invitation.
                if members[userId].map({ role > $0 }) ?? true { state.members[appId, default: [:]][userId] = role }
            }
            return state.people[link.email]?.user
        }
    }

    // MARK: TeamStorage

    public func withTeam<T: Sendable>(appId: String, _ work: @escaping @Sendable (any TeamTransaction) async throws -> T) async throws -> T {
        try await keepOptimistically(state, commits: \.commits) { start in
            let tx = TeamTransactionInMemory(appId: appId, state: start)
            let result = try await work(tx)
            return (tx.state, result)
        }
    }

    /// One team transaction: a copy of the state, changed in place.
    final class TeamTransactionInMemory: TeamTransaction {
        let appId: String
        var state: State

        init(appId: String, state: State) {
            self.appId = appId
            self.state = state
        }

        func userExists(_ userId: String) async throws -> Bool { state.people.values.contains { $0.user.id == userId } }

        func adminMembers() async throws -> [String] { (state.members[appId] ?? [:]).filter { $0.value == .admin }.map(\.key).sorted() }

        func memberCount() async throws -> Int { state.members[appId]?.count ?? 0 }

        func role(of userId: String) async throws -> Role? { state.members[appId]?[userId] }

        func setMember(_ userId: String, role: Role) async throws { state.members[appId, default: [:]][userId] = role }

        func removeMember(_ userId: String) async throws -> Bool { state.members[appId]?.removeValue(forKey: userId) != nil }

        func revokeGrants(of userId: String, above role: Role?) async throws {
            func revoked(_ granted: Role?, _ grantor: Grantor) -> Bool {
                grantor == .person(userId: userId) && (role.map { kept in granted.map { $0 > kept } ?? false } ?? true)
            }
            state.links = state.links.filter { !($0.value.link.app?.id == appId && $0.value.link.usedAt == nil && revoked($0.value.link.role, $0.value.grantedBy)) }
            state.tokens.removeAll { $0.appId == appId && revoked($0.info.role, $0.grantedBy) }
        }

        private var pending: [Link] {
            state.links.values.filter { $0.link.kind == .invitation && $0.link.app?.id == appId && $0.link.usedAt == nil && $0.link.expiresAt > Date() }
        }

        func pendingInvitationCount() async throws -> Int { pending.count }

        func insertInvitation(email: String, role: Role, createdBy: String, grantedBy: Grantor) async throws -> (secret: String, link: OneTimeLink) {
            let secret = "rvl_" + UUIDText.random().replacingOccurrences(of: "-", with: "")
            let link = OneTimeLink(
                id: UUIDText.random(), kind: .invitation, email: email, app: App(id: appId, slug: "", name: "", createdAt: Date()), role: role,
                createdBy: createdBy, createdAt: Date(), expiresAt: Date().addingTimeInterval(Store.linkLifetime))
            state.links[secret] = Link(link: link, grantedBy: grantedBy)
            return (secret, link)
        }

        func deletePendingInvitation(id: String) async throws -> Bool {
            guard let secret = state.links.first(where: { $0.value.link.id == id && $0.value.link.app?.id == appId && $0.value.link.usedAt == nil })?.key
            else { return false }
            state.links[secret] = nil
            return true
        }

        func tokenCount() async throws -> Int { state.tokens.filter { $0.appId == appId }.count }

        func insertToken(name: String, role: Role, expiresAt: Date?, createdBy: String, grantedBy: Grantor) async throws -> (token: String, info: TokenInfo) {
            let secret = "rvs_" + UUIDText.random().replacingOccurrences(of: "-", with: "")
            let info = TokenInfo(id: UUIDText.random(), name: name, role: role, createdBy: createdBy, createdAt: Date(), expiresAt: expiresAt, lastUsedAt: nil)
            state.tokens.append(Token(secret: secret, appId: appId, info: info, grantedBy: grantedBy))
            return (secret, info)
        }

        func deleteToken(id: String) async throws -> Bool {
            let before = state.tokens.count
            state.tokens.removeAll { $0.appId == appId && $0.info.id == id }
            return state.tokens.count < before
        }
    }
}

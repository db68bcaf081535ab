import Crypto
import NIOConcurrencyHelpers
import Foundation
import Logging
import PostgresNIO
import RiversCore

/// What someone may do in one app; each role can do everything the ones before it can.
public enum Role: String, Sendable, CaseIterable, Comparable {
    /// Read, preview, download documents.
    case viewer
    /// + families, layouts, screens, components, navigations, plugins.
    case editor
    /// + publish, rollback.
    case publisher
    /// + members, tokens, app settings, delete.
    case admin

    public static func < (a: Role, b: Role) -> Bool { a.rank < b.rank }
    var rank: Int { Role.allCases.firstIndex(of: self)! }
}

public struct User: Sendable, Equatable {
    public var id: String
    public var email: String
    public var name: String
    public var isAdmin: Bool
    public var hasPassword: Bool
    public var createdAt: Date

    /// How the audit log and "published by" name this person.
    public var displayName: String { name.isEmpty ? email : "\(name) <\(email)>" }
}

/// A signed-in session, as a request finds it through its cookie.
public struct SignedInSession: Sendable {
    public var id: String
    public var user: User
    public var csrfToken: String
    /// Its last use was recorded just now (at most once a minute): the cookie is sent again.
    public var renewed = false
}

public struct SessionSummary: Sendable {
    public var id: String
    public var createdAt: Date
    public var lastSeenAt: Date
    public var userAgent: String
    public var address: String
}

/// Who granted a token or an invitation: what is revoked with them (a member removed or
/// demoted, a token revoked).
public enum Grantor: Sendable, Equatable {
    case person(userId: String)
    case token(id: String)
    /// The command line (an operator): revoked only by hand.
    case `operator`

    var userId: String? { if case .person(let id) = self { id } else { nil } }
    var tokenId: String? { if case .token(let id) = self { id } else { nil } }
}

/// An API token as its app's admins see it (never the token itself).
public struct TokenInfo: Sendable {
    public var id: String
    public var name: String
    public var role: Role
    public var createdBy: String
    public var createdAt: Date
    public var expiresAt: Date?
    public var lastUsedAt: Date?
}

/// A one-time link: setting a password, or accepting an invitation to an app with a role.
public struct OneTimeLink: Sendable {
    public enum Kind: String, Sendable { case setPassword = "set-password", invitation }
    public var id: String
    public var kind: Kind
    public var email: String
    public var app: App?
    public var role: Role?
    public var createdBy: String
    public var createdAt: Date
    public var expiresAt: Date
    public var usedAt: Date?
}

public struct AuditEntry: Sendable {
    public var id: Int
    public var at: Date
    public var actor: String
    public var actorKind: String
    public var kind: String
    public var resourceId: String
    public var action: String
    public var revisionBefore: Int?
    public var revisionAfter: Int?
    public var summary: String
    public var requestId: String
    public var address: String
}

public struct AuditFilter: Sendable {
    public var actor: String?
    public var kind: String?
    public var resourceId: String?
    public var since: Date?
    public var until: Date?
    public init(actor: String? = nil, kind: String? = nil, resourceId: String? = nil, since: Date? = nil, until: Date? = nil) {
        self.actor = actor
        self.kind = kind
        self.resourceId = resourceId
        self.since = since
        self.until = until
    }
}

/// Random secrets (session ids, link secrets, tokens, CSRF tokens): 32 bytes from the system's
/// generator, as hex, after a prefix that says what they are.
enum Secret {
    static func make(_ prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let hex = Array("0123456789abcdef".utf8)
        var text = Array(prefix.utf8)
        for _ in 0..<32 {
            let byte = UInt8.random(in: 0...255, using: &generator)
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

extension Store {
    /// Sessions end after this long unused.
    public static let sessionIdleLifetime: TimeInterval = 14 * 24 * 3600
    /// Links are valid this long, and usable once.
    public static let linkLifetime: TimeInterval = 7 * 24 * 3600

    // MARK: Users

    static let userColumns = "id::text, email, name, is_admin, password_hash IS NOT NULL, created_at"

    private func users(_ rows: PostgresRowSequence) async throws -> [User] {
        var users: [User] = []
        for try await (id, email, name, admin, hasPassword, created) in rows.decode((String, String, String, Bool, Bool, Date).self) {
            users.append(User(id: id, email: email, name: name, isAdmin: admin, hasPassword: hasPassword, createdAt: created))
        }
        return users
    }

    /// An email as accounts keep it: lower case, 3 to 254 characters once lowered (lower-casing
    /// can lengthen a string).
    public static func normalizedEmail(_ email: String, field: String = "/email") throws -> String {
        let lowered = email.trimmingCharacters(in: .whitespaces).lowercased()
        guard (3...254).contains(lowered.unicodeScalars.count) else {
            throw StoreError.invalid([FieldError(field, "must be an email address of 3 to 254 characters")])
        }
        return lowered
    }

    public func createUser(email: String, name: String, isAdmin: Bool) async throws -> User {
        try await createAccount(email: email, name: name, isAdmin: isAdmin, passwordLinkBy: nil).user
    }

    /// A new account and, when `passwordLinkBy` names who asks, the link to set its password, in
    /// one transaction: an account is never left without the link its maker was to hand on.
    public func createAccount(
        email: String, name: String, isAdmin: Bool, passwordLinkBy createdBy: String?
    ) async throws -> (user: User, link: (secret: String, link: OneTimeLink)?) {
        let email = try Self.normalizedEmail(email)
        let id = UUIDText.random()
        do {
            return try await client.transaction(logger: logger) { connection in
                guard let user = try await self.users(connection.query(
                    "INSERT INTO users (id, email, name, is_admin) VALUES (\(id)::uuid, \(email), \(name), \(isAdmin)) RETURNING \(unescaped: Self.userColumns)",
                    logger: self.logger)).first
                else { throw StoreError.notFound("account") }
                try await self.appendAudit(
                    appId: nil, kind: "account", resourceId: id, action: "create", summary: email + (isAdmin ? " (instance admin)" : ""), on: connection)
                guard let createdBy else { return (user, nil) }
                return (user, try await self.insertPasswordLink(email: email, createdBy: createdBy, on: connection))
            }
        } catch let error as PSQLError where error.isUniqueViolation {
            throw StoreError.conflict("an account with this email exists already", usedBy: [])
        }
    }

    public func user(email: String) async throws -> (user: User, passwordHash: String?)? {
        let rows = try await client.query(
            "SELECT \(unescaped: Self.userColumns), password_hash FROM users WHERE email = \(email.lowercased())", logger: logger)
        for try await (id, email, name, admin, hasPassword, created, hash) in rows.decode((String, String, String, Bool, Bool, Date, String?).self) {
            return (User(id: id, email: email, name: name, isAdmin: admin, hasPassword: hasPassword, createdAt: created), hash)
        }
        return nil
    }

    public func user(id: String) async throws -> User? {
        guard UUIDText.normalize(id) != nil else { return nil }
        return try await users(client.query("SELECT \(unescaped: Self.userColumns) FROM users WHERE id = \(id)::uuid", logger: logger)).first
    }

    public func passwordHash(userId: String) async throws -> String? {
        let rows = try await client.query("SELECT password_hash FROM users WHERE id = \(userId)::uuid", logger: logger)
        for try await hash in rows.decode(String?.self) { return hash }
        return nil
    }

    public func listUsers(limit: Int, offset: Int) async throws -> (users: [User], total: Int) {
        let list = try await users(client.query(
            "SELECT \(unescaped: Self.userColumns) FROM users ORDER BY email LIMIT \(limit) OFFSET \(offset)", logger: logger))
        var total = 0
        for try await n in try await client.query("SELECT count(*) FROM users", logger: logger).decode(Int.self) { total = n }
        return (list, total)
    }

    /// Sets a password (already hashed) and ends every session of the account.
    public func setPassword(userId: String, hash: String) async throws {
        try await client.transaction(logger: logger) { connection in
            try await self.setPassword(userId: userId, hash: hash, on: connection)
        }
    }

    func setPassword(userId: String, hash: String, on connection: PostgresConnection) async throws {
        try await connection.query(
            "UPDATE users SET password_hash = \(hash), password_changed_at = now() WHERE id = \(userId)::uuid", logger: logger)
        try await connection.query("DELETE FROM sessions WHERE user_id = \(userId)::uuid", logger: logger)
        try await appendAudit(appId: nil, kind: "account", resourceId: userId, action: "set-password", summary: "", on: connection)
    }

    // MARK: Sessions

    /// A new session for a signed-in person: the cookie's secret (returned once) and the CSRF token.
    public func createSession(userId: String, userAgent: String, address: String) async throws -> (secret: String, session: SignedInSession) {
        let secret = Secret.make("rss_"), csrf = Secret.make(""), id = UUIDText.random()
        let keep = Limits.maxSessionsPerAccount - 1, idle = Self.sessionIdleLifetime
        try await client.transaction(logger: logger) { connection in
            // An account keeps its newest sessions only; ones idle too long are gone already.
            try await connection.query(
                """
                DELETE FROM sessions WHERE user_id = \(userId)::uuid AND (last_seen_at < now() - make_interval(secs => \(idle)) OR id NOT IN (
                    SELECT id FROM sessions WHERE user_id = \(userId)::uuid ORDER BY last_seen_at DESC LIMIT \(keep)))
                """, logger: self.logger)
            try await connection.query(
                """
                INSERT INTO sessions (secret_hash, id, user_id, csrf_token, user_agent, address)
                VALUES (\(Self.hash(secret)), \(id)::uuid, \(userId)::uuid, \(csrf), \(String(userAgent.prefix(300))), \(String(address.prefix(100))))
                """, logger: self.logger)
        }
        guard let user = try await user(id: userId) else { throw StoreError.notFound("no account \(userId)") }
        return (secret, SignedInSession(id: id, user: user, csrfToken: csrf))
    }

    /// The session a cookie's secret names, if it is still alive; its last use is recorded (at
    /// most once a minute, so reading costs no write per request).
    public func session(secret: String) async throws -> SignedInSession? {
        let hash = Self.hash(secret), idle = Self.sessionIdleLifetime
        let rows = try await client.query(
            """
            SELECT s.id::text, s.csrf_token, s.last_seen_at < now() - interval '1 minute',
                   u.id::text, u.email, u.name, u.is_admin, u.password_hash IS NOT NULL, u.created_at
            FROM sessions s JOIN users u ON u.id = s.user_id
            WHERE s.secret_hash = \(hash) AND s.last_seen_at > now() - make_interval(secs => \(idle))
            """, logger: logger)
        for try await (id, csrf, stale, userId, email, name, admin, hasPassword, created) in rows.decode(
            (String, String, Bool, String, String, String, Bool, Bool, Date).self)
        {
            if stale {
                try await client.query("UPDATE sessions SET last_seen_at = now() WHERE secret_hash = \(hash)", logger: logger)
            }
            return SignedInSession(
                id: id, user: User(id: userId, email: email, name: name, isAdmin: admin, hasPassword: hasPassword, createdAt: created),
                csrfToken: csrf, renewed: stale)
        }
        return nil
    }

    public func sessionIsAlive(id: String) async throws -> Bool {
        guard let id = UUIDText.normalize(id) else { return false }
        let idle = Self.sessionIdleLifetime
        for try await alive in try await client.query(
            "SELECT EXISTS (SELECT 1 FROM sessions WHERE id = \(id)::uuid AND last_seen_at > now() - make_interval(secs => \(idle)))",
            logger: logger
        ).decode(Bool.self) { return alive }
        return false
    }

    public func sessions(userId: String) async throws -> [SessionSummary] {
        let idle = Self.sessionIdleLifetime
        let rows = try await client.query(
            """
            SELECT id::text, created_at, last_seen_at, user_agent, address FROM sessions
            WHERE user_id = \(userId)::uuid AND last_seen_at > now() - make_interval(secs => \(idle))
            ORDER BY last_seen_at DESC LIMIT 200
            """, logger: logger)
        var list: [SessionSummary] = []
        for try await (id, created, seen, agent, address) in rows.decode((String, Date, Date, String, String).self) {
            list.append(SessionSummary(id: id, createdAt: created, lastSeenAt: seen, userAgent: agent, address: address))
        }
        return list
    }

    /// Ends one session of the account (`id`), or all of them (nil). Returns how many ended.
    @discardableResult
    public func endSessions(userId: String, id: String?) async throws -> Int {
        if let id, UUIDText.normalize(id) == nil { return 0 }
        let rows = try await client.query(
            "DELETE FROM sessions WHERE user_id = \(userId)::uuid AND (CAST(\(id) AS uuid) IS NULL OR id = CAST(\(id) AS uuid)) RETURNING 1",
            logger: logger)
        var n = 0
        for try await _ in rows.decode(Int.self) { n += 1 }
        return n
    }

    // MARK: Throttling sign-ins

    /// Counts an attempt against each key before its password is checked (so concurrent guesses
    /// see each other), and returns the attempt's rows and, per key, what is counted within `window`.
    public func beginSignInAttempt(keys: [String], window: TimeInterval) async throws -> (ids: [Int], counts: [String: SignInAttemptCount]) {
        try await client.transaction(logger: logger) { connection in
            var ids: [Int] = []
            for try await id in try await connection.query(
                "INSERT INTO sign_in_failures (key) SELECT unnest(\(keys)::text[]) RETURNING id", logger: self.logger
            ).decode(Int.self) { ids.append(id) }
            var counts: [String: SignInAttemptCount] = [:]
            for try await (key, count, oldest, previous) in try await connection.query(
                """
                SELECT key, count(*)::int, min(at), max(at) FILTER (WHERE NOT (id = ANY(\(ids)))) FROM sign_in_failures
                WHERE key = ANY(\(keys)) AND at > now() - make_interval(secs => \(window)) GROUP BY key
                """, logger: self.logger
            ).decode((String, Int, Date, Date?).self) { counts[key] = SignInAttemptCount(count: count, oldest: oldest, previous: previous) }
            return (ids, counts)
        }
    }

    /// The attempt's password check has ended: its time is now, so the delay before the next
    /// attempt runs from the end of this one (a check that waited in line does not use up the
    /// delay).
    public func endSignInAttempt(ids: [Int]) async throws {
        try await client.query("UPDATE sign_in_failures SET at = now() WHERE id = ANY(\(ids))", logger: logger)
    }

    /// Takes back the rows of an attempt under some of its keys only (a success takes back its
    /// failures, not its place in the count of attempts).
    public func dropSignInAttempt(ids: [Int], keys: [String]) async throws {
        try await client.query("DELETE FROM sign_in_failures WHERE id = ANY(\(ids)) AND key = ANY(\(keys))", logger: logger)
    }

    /// How long an address that signed in to an account stays one its owner uses.
    public static let knownAddressLifetime: TimeInterval = 30 * 24 * 3600

    /// Whether the account of `email` signed in with its password from `address` lately.
    public func isKnownAddress(email: String, address: String) async throws -> Bool {
        let rows = try await client.query(
            """
            SELECT 1 FROM sign_in_addresses s JOIN users u ON u.id = s.user_id
            WHERE u.email = \(email) AND s.address = \(address)
              AND s.last_success > now() - make_interval(secs => \(Self.knownAddressLifetime))
            """, logger: logger)
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }

    /// A password sign-in succeeded from `address`: remembered for the throttle (and older
    /// addresses of the account forgotten).
    public func recordSignInSuccess(email: String, address: String) async throws {
        try await client.transaction(logger: logger) { connection in
            try await connection.query("DELETE FROM sign_in_failures WHERE at < now() - interval '1 day'", logger: self.logger)
            try await connection.query(
                """
                INSERT INTO sign_in_addresses (user_id, address) SELECT id, \(address) FROM users WHERE email = \(email)
                ON CONFLICT (user_id, address) DO UPDATE SET last_success = now()
                """, logger: self.logger)
            try await connection.query(
                """
                DELETE FROM sign_in_addresses WHERE user_id = (SELECT id FROM users WHERE email = \(email))
                  AND last_success < now() - make_interval(secs => \(Self.knownAddressLifetime))
                """, logger: self.logger)
        }
    }

    /// Takes an attempt back (it succeeded, or was not checked at all).
    public func dropSignInAttempt(ids: [Int]) async throws {
        try await client.query("DELETE FROM sign_in_failures WHERE id = ANY(\(ids))", logger: logger)
    }

    /// An attempt failed: it stays counted; the audit entry is written, and failures older than a
    /// day are dropped.
    public func recordSignInFailure(email: String) async throws {
        try await client.transaction(logger: logger) { connection in
            try await connection.query("DELETE FROM sign_in_failures WHERE at < now() - interval '1 day'", logger: self.logger)
            try await self.appendAudit(appId: nil, kind: "session", resourceId: "", action: "sign-in-failed", summary: String(email.prefix(254)), on: connection)
        }
    }

    public func recordSignIn(userId: String) async throws {
        try await client.transaction(logger: logger) { connection in
            try await self.appendAudit(appId: nil, kind: "session", resourceId: userId, action: "sign-in", summary: "", on: connection)
        }
    }

    // MARK: Links

    /// A link to set the password of the account of `email`: its secret (returned once; only
    /// its hash is kept) and the link.
    public func createPasswordLink(email: String, createdBy: String) async throws -> (secret: String, link: OneTimeLink) {
        let email = try Self.normalizedEmail(email)
        return try await client.transaction(logger: logger) { connection in
            try await self.insertPasswordLink(email: email, createdBy: createdBy, on: connection)
        }
    }

    func insertPasswordLink(email: String, createdBy: String, on connection: PostgresConnection) async throws -> (secret: String, link: OneTimeLink) {
        let made = try await insertLink(
            kind: .setPassword, email: email, appId: nil, role: nil, createdBy: createdBy, grantedBy: .operator, on: connection)
        try await appendAudit(appId: nil, kind: "account", resourceId: made.link.id, action: "password-link", summary: email, on: connection)
        return made
    }

    /// Stores a one-time link in the caller's transaction (valid `linkLifetime`), dropping links
    /// used or expired a month ago (kept that long for support).
    func insertLink(
        kind: OneTimeLink.Kind, email: String, appId: String?, role: Role?, createdBy: String, grantedBy: Grantor, on connection: PostgresConnection
    ) async throws -> (secret: String, link: OneTimeLink) {
        let secret = Secret.make("rvl_"), id = UUIDText.random()
        try await connection.query(
            "DELETE FROM links WHERE coalesce(used_at, expires_at) < now() - interval '30 days'", logger: logger)
        try await connection.query(
            """
            INSERT INTO links (secret_hash, id, kind, email, app_id, role, created_by, expires_at, granted_by_user, granted_by_token)
            VALUES (\(Self.hash(secret)), \(id)::uuid, \(kind.rawValue), \(email), CAST(\(appId) AS uuid), \(role?.rawValue), \(createdBy),
                    now() + make_interval(secs => \(Self.linkLifetime)), CAST(\(grantedBy.userId) AS uuid), CAST(\(grantedBy.tokenId) AS uuid))
            """, logger: logger)
        guard let link = try await links(connection.query(
            "SELECT \(unescaped: Self.linkColumns) FROM links l LEFT JOIN apps a ON a.id = l.app_id WHERE l.id = \(id)::uuid", logger: logger)).first
        else { throw StoreError.notFound("link") }
        return (secret, link)
    }

    static let linkColumns = """
        l.id::text, l.kind, l.email, a.id::text, a.slug, a.name, a.created_at, l.role, l.created_by, l.created_at, l.expires_at, l.used_at
        """

    func links(_ rows: PostgresRowSequence) async throws -> [OneTimeLink] {
        var list: [OneTimeLink] = []
        for try await (id, kind, email, appId, slug, appName, appCreated, role, by, created, expires, used) in rows.decode(
            (String, String, String, String?, String?, String?, Date?, String?, String, Date, Date, Date?).self)
        {
            var app: App?
            if let appId, let slug, let appName, let appCreated { app = App(id: appId, slug: slug, name: appName, createdAt: appCreated) }
            list.append(OneTimeLink(
                id: id, kind: OneTimeLink.Kind(rawValue: kind) ?? .setPassword, email: email, app: app, role: role.flatMap(Role.init),
                createdBy: by, createdAt: created, expiresAt: expires, usedAt: used))
        }
        return list
    }

    /// The link a secret names, whatever its state (the caller tells used and expired apart).
    public func link(secret: String) async throws -> OneTimeLink? {
        try await links(client.query(
            "SELECT \(unescaped: Self.linkColumns) FROM links l LEFT JOIN apps a ON a.id = l.app_id WHERE l.secret_hash = \(Self.hash(secret))",
            logger: logger)).first
    }

    /// Invitations to an app not yet used nor expired, newest first, a page at a time, with how
    /// many there are.
    public func pendingInvitations(appId: String, limit: Int = Store.maxPageSize, offset: Int = 0) async throws -> (links: [OneTimeLink], total: Int) {
        let links = try await links(client.query(
            """
            SELECT \(unescaped: Self.linkColumns) FROM links l LEFT JOIN apps a ON a.id = l.app_id
            WHERE l.app_id = \(appId)::uuid AND l.kind = 'invitation' AND l.used_at IS NULL AND l.expires_at > now()
            ORDER BY l.created_at DESC, l.id LIMIT \(limit) OFFSET \(offset)
            """, logger: logger))
        let total = try await count(
            "SELECT count(*)::int FROM links WHERE app_id = \(appId)::uuid AND kind = 'invitation' AND used_at IS NULL AND expires_at > now()")
        return (links, total)
    }

    /// Uses a link once, in one transaction: marks it used (a second use finds it used), sets the
    /// password or creates the account, and adds the membership of an invitation. Returns the
    /// account, or nil when the link is unknown, used or expired.
    public func useLink(secret: String, _ use: LinkUse) async throws -> User? {
        let hash = Self.hash(secret)
        do {
            return try await useLink(hash: hash, use)
        } catch let error as PSQLError where error.isUniqueViolation {
            // Two invitations of one new email accepted at the same moment: one made the account.
            throw StoreError.conflict("this account was just created by another link: open this link again", usedBy: [])
        }
    }

    private func useLink(hash: Data, _ use: LinkUse) async throws -> User? {
        try await client.transaction(logger: logger) { connection -> User? in
            let rows = try await connection.query(
                """
                UPDATE links SET used_at = now() WHERE secret_hash = \(hash) AND used_at IS NULL AND expires_at > now()
                RETURNING kind, email, app_id::text, role, granted_by_user::text, granted_by_token::text
                """, logger: self.logger)
            var found: (String, String, String?, String?, String?, String?)?
            for try await row in rows.decode((String, String, String?, String?, String?, String?).self) { found = row }
            guard let (kind, email, appId, role, byUser, byToken) = found else { return nil }
            // An invitation grants only what its grantor may still grant: one whose grantor lost
            // the app's admin role (or was revoked) since is void, whatever else missed it: it is
            // used up (committed) and answers as a used link.
            if kind == "invitation", let appId,
                try await !Self.mayStillGrant(appId: appId, userId: byUser, tokenId: byToken, on: connection, logger: self.logger)
            {
                return nil
            }
            var userId: String?
            for try await id in try await connection.query("SELECT id::text FROM users WHERE email = \(email)", logger: self.logger).decode(String.self) {
                userId = id
            }
            if userId == nil {
                // Rolled back: the link stays as it was.
                guard kind == "invitation" else { throw StoreError.notFound("the account of this link no longer exists") }
                let id = UUIDText.random()
                var name = ""
                if case .setPassword(_, let n?) = use { name = String(n.prefix(200)) }
                try await connection.query("INSERT INTO users (id, email, name) VALUES (\(id)::uuid, \(email), \(name))", logger: self.logger)
                try await self.appendAudit(appId: nil, kind: "account", resourceId: id, action: "create", summary: email, on: connection)
                userId = id
            } else if kind == "invitation", case .setPassword = use {
                // An invitation never sets the password of an account that exists: whoever invited
                // holds the link. (Rolled back: the link stays usable.)
                throw StoreError.conflict(
                    "this email has an account already: set its password with its own link first, then accept with it", usedBy: [])
            }
            guard let userId else { return nil }
            if case .setPassword(let passwordHash, let name) = use {
                try await self.setPassword(userId: userId, hash: passwordHash, on: connection)
                if let name, !name.isEmpty {
                    try await connection.query("UPDATE users SET name = \(String(name.prefix(200))) WHERE id = \(userId)::uuid", logger: self.logger)
                }
            }
            if let appId, let role {
                try await self.refuseNewMemberAtCap(appId: appId, userId: userId, on: connection)
                try await connection.query(
                    """
                    INSERT INTO memberships (app_id, user_id, role) VALUES (\(appId)::uuid, \(userId)::uuid, \(role))
                    ON CONFLICT (app_id, user_id) DO UPDATE SET role = EXCLUDED.role
                    WHERE array_position(\(Role.allCases.map(\.rawValue)), EXCLUDED.role) > array_position(\(Role.allCases.map(\.rawValue)), memberships.role)
                    """, logger: self.logger)
            }
            return try await self.users(connection.query(
                "SELECT \(unescaped: Self.userColumns) FROM users WHERE id = \(userId)::uuid", logger: self.logger)).first
        }
    }

    /// Whether the grantor of an invitation still holds the app's admin role: a member who is an
    /// admin of it (or of the instance), or a token of it with the admin role. The operator
    /// (neither named) always may.
    static func mayStillGrant(appId: String, userId: String?, tokenId: String?, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        if let userId {
            for try await _ in try await connection.query(
                """
                SELECT 1 FROM users u WHERE u.id = \(userId)::uuid
                  AND (u.is_admin OR EXISTS (SELECT 1 FROM memberships m WHERE m.app_id = \(appId)::uuid AND m.user_id = u.id AND m.role = 'admin'))
                """, logger: logger
            ).decode(Int.self) { return true }
            return false
        }
        if let tokenId {
            for try await _ in try await connection.query(
                """
                SELECT 1 FROM api_tokens WHERE id = \(tokenId)::uuid AND app_id = \(appId)::uuid AND role = 'admin'
                  AND (expires_at IS NULL OR expires_at > now())
                """, logger: logger
            ).decode(Int.self) { return true }
            return false
        }
        return true
    }

    /// Revokes what a member granted in an app beyond `role` (everything when nil: removed):
    /// their pending invitations and their tokens, in the caller's transaction (audited).
    func revokeGrants(appId: String, userId: String, above role: Role?, on connection: PostgresConnection) async throws {
        let kept = Role.allCases.filter { candidate in role.map { candidate <= $0 } ?? false }.map(\.rawValue)
        try await connection.query(
            """
            DELETE FROM links WHERE app_id = \(appId)::uuid AND granted_by_user = \(userId)::uuid AND used_at IS NULL
              AND NOT (role = ANY(\(kept)))
            """, logger: logger)
        try await connection.query(
            """
            DELETE FROM api_tokens WHERE app_id = \(appId)::uuid AND granted_by_user = \(userId)::uuid AND NOT (role = ANY(\(kept)))
            """, logger: logger)
        // A preview link needs the editor role to make: it goes when its maker is below that.
        if role.map({ $0 < .editor }) ?? true {
            try await connection.query(
                "DELETE FROM preview_links WHERE app_id = \(appId)::uuid AND granted_by_user = \(userId)::uuid", logger: logger)
        }
    }

    // MARK: Members

    /// An app (by id or slug, not archived) and the role a person has in it (nil: not a
    /// member), in one query: what every app route asks for a signed-in person.
    public func appAndRole(_ idOrSlug: String, userId: String) async throws -> (app: App, role: Role?)? {
        let id = UUIDText.normalize(idOrSlug)
        guard id != nil || Self.isValidSlug(idOrSlug) else { return nil }
        // By id or by slug: the statement is planned with its values, so one side folds away.
        let rows = try await client.query(
            """
            SELECT a.id::text, a.slug, a.name, a.created_at, m.role
            FROM apps a LEFT JOIN memberships m ON m.app_id = a.id AND m.user_id = \(userId)::uuid
            WHERE a.archived_at IS NULL
              AND (a.id = CAST(\(id) AS uuid) OR (CAST(\(id) AS uuid) IS NULL AND a.slug = \(idOrSlug)))
            """, logger: logger)
        for try await (id, slug, name, createdAt, role) in rows.decode((String, String, String, Date, String?).self) {
            return (App(id: id, slug: slug, name: name, createdAt: createdAt), role.flatMap(Role.init(rawValue:)))
        }
        return nil
    }

    /// The person's role in the app (nil: not a member).
    public func role(userId: String, appId: String) async throws -> Role? {
        let rows = try await client.query(
            "SELECT role FROM memberships WHERE app_id = \(appId)::uuid AND user_id = \(userId)::uuid", logger: logger)
        for try await role in rows.decode(String.self) { return Role(rawValue: role) }
        return nil
    }

    /// Members, by email, a page at a time, with how many there are.
    public func members(appId: String, limit: Int = Store.maxPageSize, offset: Int = 0) async throws -> (members: [(user: User, role: Role)], total: Int) {
        let rows = try await client.query(
            """
            SELECT u.id::text, u.email, u.name, u.is_admin, u.password_hash IS NOT NULL, u.created_at, m.role, count(*) OVER ()
            FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.app_id = \(appId)::uuid
            ORDER BY u.email LIMIT \(limit) OFFSET \(offset)
            """, logger: logger)
        var list: [(User, Role)] = []
        var total = 0
        for try await (id, email, name, admin, hasPassword, created, role, count) in rows.decode((String, String, String, Bool, Bool, Date, String, Int).self) {
            list.append((User(id: id, email: email, name: name, isAdmin: admin, hasPassword: hasPassword, createdAt: created), Role(rawValue: role) ?? .viewer))
            total = count
        }
        if list.isEmpty && offset > 0 { total = try await count("SELECT count(*)::int FROM memberships WHERE app_id = \(appId)::uuid") }
        return (list, total)
    }

    /// One number a statement selects, on a connection of the pool (`number(_:on:)` in a transaction).
    func count(_ statement: PostgresQuery) async throws -> Int {
        try await client.reading { try await self.number(statement, on: $0) }
    }

    /// 409 when `userId` is not a member yet and the app has as many members as it may.
    func refuseNewMemberAtCap(appId: String, userId: String, on connection: PostgresConnection) async throws {
        let (members, isMember) = try await (
            number("SELECT count(*)::int FROM memberships WHERE app_id = \(appId)::uuid", on: connection),
            number("SELECT count(*)::int FROM memberships WHERE app_id = \(appId)::uuid AND user_id = \(userId)::uuid", on: connection))
        if isMember == 0 { try AppCaps.refuseAtCap(members, limit: Limits.maxMembersPerApp, "members") }
    }

    /// Runs one audited statement in a transaction of its own (the audit triggers read who acts
    /// from the transaction's settings) and counts the rows it returned.
    func changedRows(_ statement: PostgresQuery) async throws -> Int {
        try await client.transaction(logger: logger) { connection in
            var n = 0
            for try await _ in try await connection.query(statement, logger: self.logger).decode(Int.self) { n += 1 }
            return n
        }
    }

    // MARK: Apps a caller can see

    /// Apps in slug order: all of them (instance admins, `userId` nil), or those `userId` is a
    /// member of, with the caller's role in each; with `search`, only those whose slug or name
    /// contains it (any case).
    public func apps(
        visibleTo userId: String?, search: String? = nil, limit: Int, offset: Int
    ) async throws -> (apps: [(app: App, role: Role?)], total: Int) {
        let pattern = search.map { "%" + Self.likeEscaped($0) + "%" }
        let rows = try await client.query(
            """
            SELECT a.id::text, a.slug, a.name, a.created_at, m.role, count(*) OVER ()
            FROM apps a LEFT JOIN memberships m ON m.app_id = a.id AND m.user_id = CAST(\(userId) AS uuid)
            WHERE a.archived_at IS NULL AND (\(userId == nil) OR m.user_id IS NOT NULL)
              AND (CAST(\(pattern) AS text) IS NULL OR a.slug ILIKE \(pattern) OR a.name ILIKE \(pattern))
            ORDER BY a.slug LIMIT \(limit) OFFSET \(offset)
            """, logger: logger)
        var list: [(App, Role?)] = []
        var total = 0
        for try await (id, slug, name, created, role, count) in rows.decode((String, String, String, Date, String?, Int).self) {
            list.append((App(id: id, slug: slug, name: name, createdAt: created), role.flatMap(Role.init)))
            total = count
        }
        // Past the last page no row carries the count: it is asked of the first.
        if list.isEmpty && offset > 0 { total = try await apps(visibleTo: userId, search: search, limit: 1, offset: 0).total }
        return (list, total)
    }

    /// `text` for a LIKE pattern that matches it literally (`%`, `_` and `\\` escaped; backslash
    /// is LIKE's default escape).
    static func likeEscaped(_ text: String) -> String {
        var out = ""
        for c in text {
            if c == "%" || c == "_" || c == "\\" { out.append("\\") }
            out.append(c)
        }
        return out
    }

    // MARK: App settings, archive, restore, purge

    /// Former slugs keep answering (301) this long.
    public static let slugRedirectLifetime: TimeInterval = 90 * 24 * 3600

    /// What a slug must be, as every refusal of one says it.
    public static let slugRule = "must be lower-case letters, digits and '-', starting with a letter or digit, at most 63 characters, and not shaped like a UUID"

    /// Records that `appId`'s documents are public under `slug` (once and for good).
    static func reserveSlug(_ slug: String, appId: String, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            "INSERT INTO published_slugs (slug, app_id) VALUES (\(slug), \(appId)::uuid) ON CONFLICT (slug) DO NOTHING", logger: logger)
    }

    /// Archived apps, newest archived first, a page at a time, with how many there are.
    public func archivedApps(limit: Int = Store.maxPageSize, offset: Int = 0) async throws -> (apps: [App], total: Int) {
        let rows = try await client.query(
            """
            SELECT id::text, slug, name, created_at FROM apps WHERE archived_at IS NOT NULL
            ORDER BY archived_at DESC, id LIMIT \(limit) OFFSET \(offset)
            """, logger: logger)
        var list: [App] = []
        for try await (id, slug, name, created) in rows.decode((String, String, String, Date).self) {
            list.append(App(id: id, slug: slug, name: name, createdAt: created))
        }
        return (list, try await count("SELECT count(*)::int FROM apps WHERE archived_at IS NOT NULL"))
    }

    // MARK: Audit log

    /// Appends an entry outside the triggers (sign-ins, passwords), in the caller's transaction.
    func appendAudit(appId: String?, kind: String, resourceId: String, action: String, summary: String, on connection: PostgresConnection) async throws {
        try await connection.query(
            "SELECT audit_append(CAST(\(appId) AS uuid), \(kind), \(resourceId), \(action), NULL, NULL, \(summary))", logger: logger)
    }

    /// Audit log entries (every app's and the instance's) older than `days` go, from the
    /// `batch` first written (by the primary key: entries are numbered in the order they are
    /// written, so the oldest come first and no index on the time is needed), in one transaction;
    /// how many went. A process trimming at the same time waits for this one's rows and finds
    /// them gone.
    public func trimAuditLog(olderThanDays days: Int, batch: Int) async throws -> Int {
        try await client.transaction(logger: logger) { connection in
            try await connection.query("SELECT set_config('rivers.trimming', 'on', true)", logger: self.logger)
            return try await self.number(
                """
                WITH gone AS (
                    DELETE FROM audit_log WHERE id IN (
                        SELECT id FROM (SELECT id, at FROM audit_log ORDER BY id LIMIT \(batch)) AS oldest
                        WHERE at < now() - make_interval(days => \(days)::int))
                    RETURNING 1)
                SELECT count(*)::int FROM gone
                """, on: connection)
        }
    }

    /// The newest entries an audit query looks at, at most: a page and its count never read more
    /// of a log of millions (older ones are reached by narrowing with `until`).
    public static let auditWindow = 10_000

    /// Entries of one app (or, with nil, those of no app: sign-ins and accounts), newest first,
    /// within the newest `auditWindow` that match; `capped`
    /// when more match than that (`total` is then the window).
    public func auditEntries(
        appId: String?, filter: AuditFilter, limit: Int, offset: Int
    ) async throws -> (entries: [AuditEntry], total: Int, capped: Bool) {
        // One app's entries, or the instance's (app_id NULL): each by its own index, since an
        // unnamed statement is planned with its values (one side of the OR folds away).
        let rows = try await client.query(
            """
            SELECT id, at, actor, actor_kind, kind, resource_id, action, revision_before, revision_after, summary, request_id, address,
                   count(*) OVER ()
            FROM (
                SELECT id, at, actor, actor_kind, kind, resource_id, action, revision_before, revision_after, summary, request_id, address
                FROM audit_log
                WHERE (app_id = CAST(\(appId) AS uuid) OR (CAST(\(appId) AS uuid) IS NULL AND app_id IS NULL))
                  AND (CAST(\(filter.actor) AS text) IS NULL OR actor = \(filter.actor))
                  AND (CAST(\(filter.kind) AS text) IS NULL OR kind = \(filter.kind))
                  AND (CAST(\(filter.resourceId) AS text) IS NULL OR resource_id = \(filter.resourceId))
                  AND (CAST(\(filter.since) AS timestamptz) IS NULL OR at >= \(filter.since))
                  AND (CAST(\(filter.until) AS timestamptz) IS NULL OR at < \(filter.until))
                ORDER BY id DESC LIMIT \(Self.auditWindow + 1)
            ) AS newest
            ORDER BY id DESC LIMIT \(limit) OFFSET \(offset)
            """, logger: logger)
        var entries: [AuditEntry] = []
        var counted = 0
        for try await (id, at, actor, actorKind, kind, resource, action, before, after, summary, requestId, address, count) in rows.decode(
            (Int, Date, String, String, String, String, String, Int?, Int?, String, String, String, Int).self)
        {
            entries.append(AuditEntry(
                id: id, at: at, actor: actor, actorKind: actorKind, kind: kind, resourceId: resource, action: action, revisionBefore: before,
                revisionAfter: after, summary: summary, requestId: requestId, address: address))
            counted = count
        }
        // Past the last page no row carries the count: it is asked of the first.
        if entries.isEmpty && offset > 0 {
            let first = try await auditEntries(appId: appId, filter: filter, limit: 1, offset: 0)
            return ([], first.total, first.capped)
        }
        // The one past the window only tells that there are more.
        return (Array(entries.prefix(max(0, Self.auditWindow - offset))), min(counted, Self.auditWindow), counted > Self.auditWindow)
    }

    // MARK: Tokens

    /// The app's tokens, oldest first, a page at a time, with how many there are.
    public func tokens(appId: String, limit: Int = Store.maxPageSize, offset: Int = 0) async throws -> (tokens: [TokenInfo], total: Int) {
        let rows = try await client.query(
            """
            SELECT id::text, name, role, created_by, created_at, expires_at, last_used_at FROM api_tokens
            WHERE app_id = \(appId)::uuid ORDER BY created_at, id LIMIT \(limit) OFFSET \(offset)
            """, logger: logger)
        var list: [TokenInfo] = []
        for try await (id, name, role, by, created, expires, used) in rows.decode((String, String, String, String, Date, Date?, Date?).self) {
            list.append(TokenInfo(
                id: id, name: name, role: Role(rawValue: role) ?? .viewer, createdBy: by, createdAt: created, expiresAt: expires, lastUsedAt: used))
        }
        return (list, try await count("SELECT count(*)::int FROM api_tokens WHERE app_id = \(appId)::uuid"))
    }
}

/// Valid API tokens looked up in the last second, so that a client's burst of requests costs
/// one query for its token rather than one each. Only tokens found valid are kept (a guess costs
/// its query, and fills nothing). A revoked token, an archived, renamed or purged app, is
/// dropped here at once: every such write clears the cache after committing, and a lookup that
/// raced with the write does not put its stale answer back (the generation moved). Another
/// process sees the change when its entry ages out, within `lifetime`.
final class TokenCache: Sendable {
    let lifetime: Duration
    /// Tokens kept, least recently used first out.
    static let capacity = 10_000

    private struct Entry {
        var app: App
        var token: TokenInfo
        var until: ContinuousClock.Instant
    }
    private struct State {
        var entries = LRUCache<Data, Entry>(budget: TokenCache.capacity)
        var generation = 0
    }
    private let state = NIOLockedValueBox(State())

    init(lifetime: Duration = .seconds(1)) { self.lifetime = lifetime }

    var generation: Int { state.withLockedValue { $0.generation } }

    func lookup(_ hash: Data) -> (app: App, token: TokenInfo)? {
        let now = ContinuousClock.now
        return state.withLockedValue { state -> (app: App, token: TokenInfo)? in
            guard let entry = state.entries.get(hash) else { return nil }
            // Aged out, or expired since it was read: asked of the database again.
            guard entry.until > now, entry.token.expiresAt.map({ $0 > Date() }) ?? true else {
                state.entries.remove(hash)
                return nil
            }
            return (entry.app, entry.token)
        }
    }

    func keep(_ found: (app: App, token: TokenInfo), hash: Data, ifStill generation: Int) {
        let until = ContinuousClock.now + lifetime
        state.withLockedValue { state in
            guard state.generation == generation else { return }
            state.entries.insert(hash, Entry(app: found.app, token: found.token, until: until), cost: 1)
        }
    }

    /// After a write to tokens or apps: nothing kept is trusted any more.
    func clear() {
        state.withLockedValue { state in
            state.entries.removeAll()
            state.generation &+= 1
        }
    }
}

/// Set by a transaction's write that changes what a kept token may be trusted for (a token
/// deleted, a member's role changed or removed, an app renamed, archived, restored or purged);
/// the cache is cleared after such a transaction ends, and only then (an invitation or a new
/// token leaves every kept token as true as it was).
final class TrustChange: Sendable {
    private let changed = NIOLockedValueBox(false)
    func mark() { changed.withLockedValue { $0 = true } }
    var happened: Bool { changed.withLockedValue { $0 } }
}

// MARK: - The team's writes

extension Store: TeamStorage {
    /// The app's row is locked first, as every write of an app's content is; after a write that
    /// changed a grant, valid tokens this process keeps are forgotten once the transaction ends
    /// (`withApp`: a revoked token, or one of a member who lost the role that granted it, stops
    /// working at once here; elsewhere within the cache's second).
    public func withTeam<T: Sendable>(appId: String, _ work: @escaping @Sendable (any TeamTransaction) async throws -> T) async throws -> T {
        try await withApp(appId) { try await work($0) }
    }
}

/// What the team use cases (`TeamService`) read and write of one app in one PostgreSQL
/// transaction: SQL only.
extension PostgresContentTransaction: TeamTransaction {
    func userExists(_ userId: String) async throws -> Bool {
        guard UUIDText.normalize(userId) != nil else { return false }
        return try await store.number("SELECT count(*)::int FROM users WHERE id = \(userId)::uuid", on: connection) > 0
    }

    func adminMembers() async throws -> [String] {
        var admins: [String] = []
        for try await id in try await connection.query(
            "SELECT user_id::text FROM memberships WHERE app_id = \(appId)::uuid AND role = 'admin' FOR UPDATE", logger: logger
        ).decode(String.self) { admins.append(id) }
        return admins
    }

    func memberCount() async throws -> Int {
        try await store.number("SELECT count(*)::int FROM memberships WHERE app_id = \(appId)::uuid", on: connection)
    }

    func role(of userId: String) async throws -> Role? {
        guard UUIDText.normalize(userId) != nil else { return nil }
        for try await role in try await connection.query(
            "SELECT role FROM memberships WHERE app_id = \(appId)::uuid AND user_id = \(userId)::uuid", logger: logger
        ).decode(String.self) { return Role(rawValue: role) }
        return nil
    }

    func setMember(_ userId: String, role: Role) async throws {
        trust.mark()
        try await connection.query(
            """
            INSERT INTO memberships (app_id, user_id, role) VALUES (\(appId)::uuid, \(userId)::uuid, \(role.rawValue))
            ON CONFLICT (app_id, user_id) DO UPDATE SET role = EXCLUDED.role
            """, logger: logger)
    }

    func removeMember(_ userId: String) async throws -> Bool {
        guard UUIDText.normalize(userId) != nil else { return false }
        trust.mark()
        for try await _ in try await connection.query(
            "DELETE FROM memberships WHERE app_id = \(appId)::uuid AND user_id = \(userId)::uuid RETURNING 1", logger: logger
        ).decode(Int.self) { return true }
        return false
    }

    func revokeGrants(of userId: String, above role: Role?) async throws {
        trust.mark()
        try await store.revokeGrants(appId: appId, userId: userId, above: role, on: connection)
    }

    func pendingInvitationCount() async throws -> Int {
        try await store.number(
            """
            SELECT count(*)::int FROM links WHERE app_id = \(appId)::uuid AND kind = 'invitation' AND used_at IS NULL AND expires_at > now()
            """, on: connection)
    }

    func insertInvitation(email: String, role: Role, createdBy: String, grantedBy: Grantor) async throws -> (secret: String, link: OneTimeLink) {
        try await store.insertLink(kind: .invitation, email: email, appId: appId, role: role, createdBy: createdBy, grantedBy: grantedBy, on: connection)
    }

    func deletePendingInvitation(id: String) async throws -> Bool {
        guard UUIDText.normalize(id) != nil else { return false }
        for try await _ in try await connection.query(
            "DELETE FROM links WHERE app_id = \(appId)::uuid AND id = \(id)::uuid AND kind = 'invitation' AND used_at IS NULL RETURNING 1",
            logger: logger
        ).decode(Int.self) { return true }
        return false
    }

    func tokenCount() async throws -> Int {
        try await store.number("SELECT count(*)::int FROM api_tokens WHERE app_id = \(appId)::uuid", on: connection)
    }

    func insertToken(name: String, role: Role, expiresAt: Date?, createdBy: String, grantedBy: Grantor) async throws -> (token: String, info: TokenInfo) {
        try await store.insertToken(appId: appId, name: name, role: role, expiresAt: expiresAt, createdBy: createdBy, grantedBy: grantedBy, on: connection)
    }

    func deleteToken(id: String) async throws -> Bool {
        guard UUIDText.normalize(id) != nil else { return false }
        trust.mark()
        for try await _ in try await connection.query(
            "DELETE FROM api_tokens WHERE app_id = \(appId)::uuid AND id = \(id)::uuid RETURNING 1", logger: logger
        ).decode(Int.self) { return true }
        return false
    }
}

// MARK: - Apps' writes

extension Store: AppStorage {
    public func withApps<T: Sendable>(turnOf appId: String?, _ work: @escaping @Sendable (any AppTransaction) async throws -> T) async throws -> T {
        // Tokens carry their app's slug, name and state: after a change of one, none is trusted
        // as kept.
        let trust = TrustChange()
        defer { if trust.happened { tokens.clear() } }
        let transaction = { @Sendable in
            try await client.transaction(logger: logger) { connection in
                try await work(PostgresAppTransaction(store: self, connection: connection, trust: trust))
            }
        }
        guard let appId else { return try await transaction() }
        return try await appTurns.run(appId, transaction)
    }
}

/// What the app use cases (`AppService`) read and write in one PostgreSQL transaction: SQL only.
final class PostgresAppTransaction: AppTransaction {
    let store: Store
    let connection: PostgresConnection
    let trust: TrustChange
    var logger: Logger { store.logger }

    init(store: Store, connection: PostgresConnection, trust: TrustChange) {
        self.store = store
        self.connection = connection
        self.trust = trust
    }

    func liveApp(id: String) async throws -> App? {
        guard UUIDText.normalize(id) != nil else { return nil }
        return try await store.app(rows: connection.query(
            "SELECT id::text, slug, name, created_at FROM apps WHERE id = \(id)::uuid AND archived_at IS NULL FOR UPDATE", logger: logger))
    }

    func archivedApp(_ idOrSlug: String) async throws -> App? {
        let id = UUIDText.normalize(idOrSlug)
        return try await store.app(rows: connection.query(
            """
            SELECT id::text, slug, name, created_at FROM apps
            WHERE archived_at IS NOT NULL AND (id = CAST(\(id) AS uuid) OR (CAST(\(id) AS uuid) IS NULL AND slug = \(idOrSlug)))
            FOR UPDATE
            """, logger: logger))
    }

    func redirectUntil(_ slug: String, otherThan appId: String?) async throws -> Date? {
        for try await until in try await connection.query(
            """
            SELECT expires_at FROM slug_redirects
            WHERE old_slug = \(slug) AND expires_at > now() AND app_id IS DISTINCT FROM CAST(\(appId) AS uuid)
            """, logger: logger
        ).decode(Date.self) { return until }
        return nil
    }

    func isReserved(_ slug: String, otherThan appId: String?) async throws -> Bool {
        for try await _ in try await connection.query(
            "SELECT 1 FROM published_slugs WHERE slug = \(slug) AND app_id IS DISTINCT FROM CAST(\(appId) AS uuid)", logger: logger
        ).decode(Int.self) { return true }
        return false
    }

    func hasPublished(appId: String) async throws -> Bool {
        for try await _ in try await connection.query(
            "SELECT 1 FROM versions WHERE app_id = \(appId)::uuid LIMIT 1", logger: logger
        ).decode(Int.self) { return true }
        return false
    }

    func reserve(_ slug: String, for appId: String) async throws {
        try await Store.reserveSlug(slug, appId: appId, on: connection, logger: logger)
    }

    func redirectingSlugs(appId: String, limit: Int) async throws -> Set<String> {
        var slugs: Set<String> = []
        for try await slug in try await connection.query(
            "SELECT old_slug FROM slug_redirects WHERE app_id = \(appId)::uuid AND expires_at > now() LIMIT \(limit)", logger: logger
        ).decode(String.self) { slugs.insert(slug) }
        return slugs
    }

    /// A statement that may meet the apps' unique slug: a conflict then (the transaction, aborted,
    /// rolls back as the error leaves it).
    private func slugTaken<T>(_ slug: String, _ statement: () async throws -> T) async throws -> T {
        do {
            return try await statement()
        } catch let error as PSQLError where error.isUniqueViolation {
            throw StoreError.conflict("an app with slug \"\(slug)\" exists already", usedBy: [])
        }
    }

    func insertApp(slug: String, name: String) async throws -> App {
        let id = UUIDText.random()
        return try await slugTaken(slug) {
            guard let app = try await store.app(rows: connection.query(
                "INSERT INTO apps (id, slug, name) VALUES (\(id)::uuid, \(slug), \(name)) RETURNING id::text, slug, name, created_at", logger: logger))
            else { throw StoreError.notFound("app") }
            return app
        }
    }

    func updateApp(_ app: App) async throws {
        trust.mark()
        try await slugTaken(app.slug) {
            try await connection.query("UPDATE apps SET name = \(app.name), slug = \(app.slug) WHERE id = \(app.id)::uuid", logger: logger)
        }
    }

    func redirect(_ oldSlug: String, to appId: String, forSeconds seconds: TimeInterval) async throws {
        try await connection.query(
            """
            INSERT INTO slug_redirects (old_slug, app_id, expires_at) VALUES (\(oldSlug), \(appId)::uuid, now() + make_interval(secs => \(seconds)))
            ON CONFLICT (old_slug) DO UPDATE SET app_id = EXCLUDED.app_id, expires_at = EXCLUDED.expires_at
            """, logger: logger)
    }

    func dropRedirect(of slug: String) async throws {
        try await connection.query("DELETE FROM slug_redirects WHERE old_slug = \(slug)", logger: logger)
    }

    func setArchived(appId: String, _ archived: Bool) async throws -> String? {
        guard UUIDText.normalize(appId) != nil else { return nil }
        trust.mark()
        for try await slug in try await connection.query(
            """
            UPDATE apps SET archived_at = CASE WHEN \(archived) THEN now() END
            WHERE id = \(appId)::uuid AND (archived_at IS NULL) = \(archived) RETURNING slug
            """, logger: logger
        ).decode(String.self) { return slug }
        return nil
    }

    func cancelPendingSchedules(appId: String) async throws {
        try await connection.query(
            "UPDATE schedules SET cancelled_at = now() WHERE app_id = \(appId)::uuid AND fired_at IS NULL AND cancelled_at IS NULL", logger: logger)
    }

    func purge(_ app: App) async throws {
        trust.mark()
        try await connection.query("SELECT set_config('rivers.purging', 'on', true)", logger: logger)
        try await connection.query("DELETE FROM audit_log WHERE app_id = \(app.id)::uuid", logger: logger)
        try await connection.query("DELETE FROM apps WHERE id = \(app.id)::uuid AND archived_at IS NOT NULL", logger: logger)
        // The purge itself stays in the instance's log.
        try await connection.query("SELECT set_config('rivers.purging', 'off', true)", logger: logger)
        try await store.appendAudit(appId: nil, kind: "app", resourceId: app.id, action: "purge", summary: app.slug, on: connection)
    }

    func notifyPublished(_ slug: String) async throws {
        try await connection.query("SELECT pg_notify(\(publishedChannel), \(slug))", logger: logger)
    }
}

import Foundation
import RiversCore

/// Where an app's people and credentials are kept, for the team use cases (`TeamService` in
/// RiversServices): who is a member with which role, pending invitations, API tokens. The
/// service holds the rules (an app keeps an admin, caps, what a demoted or removed member loses);
/// a storage only reads and writes. `Store` carries each call out in SQL on one transaction (the
/// app's row locked; after a write that changed a grant, valid tokens this process keeps are
/// forgotten when it ends);
/// `InMemoryAccounts` on a copy it keeps only when the work returns.
public protocol TeamStorage: Sendable {
    func withTeam<T: Sendable>(appId: String, _ work: @escaping @Sendable (any TeamTransaction) async throws -> T) async throws -> T
}

/// The members, invitations and tokens of one app inside one transaction.
public protocol TeamTransaction: AnyObject {
    var appId: String { get }
    func userExists(_ userId: String) async throws -> Bool
    /// The app's admin members, locked: two changes of who is admin run one after the other.
    func adminMembers() async throws -> [String]
    func memberCount() async throws -> Int
    func role(of userId: String) async throws -> Role?
    /// Adds `userId` as a member with `role`, or changes its role.
    func setMember(_ userId: String, role: Role) async throws
    /// Removes a member; false when it was none.
    func removeMember(_ userId: String) async throws -> Bool
    /// Removes what `userId` granted in the app and may no longer grant: pending invitations and
    /// tokens of a role above `role` (all of them when nil), and preview links when `role` is
    /// below editor (or nil).
    func revokeGrants(of userId: String, above role: Role?) async throws
    /// Invitations neither used nor expired.
    func pendingInvitationCount() async throws -> Int
    /// Stores an invitation for `email` (normalized) as `role`, valid a week (`Store.linkLifetime`):
    /// its secret (shown once; only its hash is kept) and the link.
    func insertInvitation(email: String, role: Role, createdBy: String, grantedBy: Grantor) async throws -> (secret: String, link: OneTimeLink)
    /// Removes a pending invitation; false when there is none with this id.
    func deletePendingInvitation(id: String) async throws -> Bool
    func tokenCount() async throws -> Int
    /// Stores a new token: the token (shown once; only its hash is kept) and what its admins see.
    func insertToken(name: String, role: Role, expiresAt: Date?, createdBy: String, grantedBy: Grantor) async throws -> (token: String, info: TokenInfo)
    /// Removes a token; false when the app has none with this id.
    func deleteToken(id: String) async throws -> Bool
}

/// What the people and team routes read (apps a caller may see, archived apps, accounts, an
/// app's members, pending invitations and tokens, the audit log), and an instance admin's two
/// writes of accounts. `Store` in SQL; `InMemoryTeam` for the fast tier's router tests.
public protocol TeamRepository: Sendable {
    /// Live apps in slug order: all of them (`userId` nil: an instance admin) or those `userId`
    /// is a member of, with the role in each; with `search`, only those whose slug or name
    /// contains it in any case.
    func apps(visibleTo userId: String?, search: String?, limit: Int, offset: Int) async throws -> (apps: [(app: App, role: Role?)], total: Int)
    /// Archived apps, newest archived first.
    func archivedApps(limit: Int, offset: Int) async throws -> (apps: [App], total: Int)
    /// Accounts by email.
    func listUsers(limit: Int, offset: Int) async throws -> (users: [User], total: Int)
    func user(id: String) async throws -> User?
    /// An app's members by email.
    func members(appId: String, limit: Int, offset: Int) async throws -> (members: [(user: User, role: Role)], total: Int)
    /// An app's invitations neither used nor expired, newest first.
    func pendingInvitations(appId: String, limit: Int, offset: Int) async throws -> (links: [OneTimeLink], total: Int)
    /// An app's tokens, oldest first.
    func tokens(appId: String, limit: Int, offset: Int) async throws -> (tokens: [TokenInfo], total: Int)
    /// Entries of one app (nil: those of no app: sign-ins and accounts), newest first, within the
    /// newest `Store.auditWindow` that match; `capped` when more match.
    func auditEntries(appId: String?, filter: AuditFilter, limit: Int, offset: Int) async throws -> (entries: [AuditEntry], total: Int, capped: Bool)
    /// A new account and, when `createdBy` names who asks, the link to set its password, in one
    /// transaction; 409 when the email has an account.
    func createAccount(
        email: String, name: String, isAdmin: Bool, passwordLinkBy createdBy: String?
    ) async throws -> (user: User, link: (secret: String, link: OneTimeLink)?)
    /// A link to set the password of the account of `email`.
    func createPasswordLink(email: String, createdBy: String) async throws -> (secret: String, link: OneTimeLink)
}

extension Store: TeamRepository {}

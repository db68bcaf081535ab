import Foundation
import RiversCore

/// Where an app's people and credentials are kept, for the team use cases (`TeamService` in
/// RiversServices): who is a member with which role, pending invitations, API tokens. The
/// service holds the rules (an app keeps an admin, caps, what a demoted or removed member loses);
/// a storage only reads and writes. `Store` carries each call out in SQL on one transaction (the
/// app's row locked; valid tokens this process keeps are forgotten when it commits);
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

import Foundation
import RiversCore
import RiversStore

/// The use cases of an app's team: give a person a role or take it away, invite someone, make
/// or revoke an API token. Each is one transaction over a `TeamStorage`; the rules are here: an
/// app keeps an admin member, the caps, and what a member demoted or removed loses (whatever
/// they granted above their new role).
public struct TeamService: Sendable {
    let storage: any TeamStorage

    public init(storage: any TeamStorage) { self.storage = storage }

    /// Makes `userId` a member with `role`, or changes its role; a demoted member's invitations
    /// and tokens above the new role go.
    public func setRole(appId: String, userId: String, role: Role) async throws {
        guard let userId = UUIDText.normalize(userId) else { throw StoreError.notFound("no account \(String(userId.prefix(40)))") }
        try await storage.withTeam(appId: appId) { tx in
            guard try await tx.userExists(userId) else { throw StoreError.notFound("no account \(userId)") }
            if role != .admin { try await Self.keepAnAdmin(leaving: userId, in: tx) }
            if try await tx.role(of: userId) == nil {
                try AppCaps.refuseAtCap(try await tx.memberCount(), limit: Limits.maxMembersPerApp, "members")
            }
            try await tx.setMember(userId, role: role)
            try await tx.revokeGrants(of: userId, above: role)
        }
    }

    /// Removes a member, and everything they granted in the app.
    public func removeMember(appId: String, userId: String) async throws {
        guard let userId = UUIDText.normalize(userId) else { throw StoreError.notFound("no member \(String(userId.prefix(40))) in this app") }
        try await storage.withTeam(appId: appId) { tx in
            try await Self.keepAnAdmin(leaving: userId, in: tx)
            guard try await tx.removeMember(userId) else { throw StoreError.notFound("no member \(userId) in this app") }
            try await tx.revokeGrants(of: userId, above: nil)
        }
    }

    /// 409 when `userId` is the app's last admin member: someone must stay able to manage it.
    static func keepAnAdmin(leaving userId: String, in tx: any TeamTransaction) async throws {
        if try await tx.adminMembers() == [userId] {
            throw StoreError.conflict("this is the app's last admin: make someone else admin first", usedBy: [])
        }
    }

    /// Invites `email` to the app as `role`: the link's secret (shown once) and the link.
    public func invite(appId: String, email: String, role: Role, createdBy: String, grantedBy: Grantor) async throws -> (secret: String, link: OneTimeLink) {
        let email = try Store.normalizedEmail(email)
        return try await storage.withTeam(appId: appId) { tx in
            try AppCaps.refuseAtCap(try await tx.pendingInvitationCount(), limit: Limits.maxPendingInvitationsPerApp, "pending invitations")
            return try await tx.insertInvitation(email: email, role: role, createdBy: createdBy, grantedBy: grantedBy)
        }
    }

    /// Withdraws an invitation not used yet.
    public func withdrawInvitation(appId: String, id: String) async throws {
        try await storage.withTeam(appId: appId) { tx in
            guard try await tx.deletePendingInvitation(id: id) else { throw StoreError.notFound("no pending invitation \(String(id.prefix(40)))") }
        }
    }

    /// A new API token of the app: the token (shown once) and what its admins see.
    public func createToken(
        appId: String, name: String = "created with the app", role: Role = .admin, expiresAt: Date? = nil, createdBy: String = "",
        grantedBy: Grantor = .operator
    ) async throws -> (token: String, info: TokenInfo) {
        try await storage.withTeam(appId: appId) { tx in
            try AppCaps.refuseAtCap(try await tx.tokenCount(), limit: Limits.maxTokensPerApp, "tokens")
            return try await tx.insertToken(name: name, role: role, expiresAt: expiresAt, createdBy: createdBy, grantedBy: grantedBy)
        }
    }

    public func revokeToken(appId: String, id: String) async throws {
        try await storage.withTeam(appId: appId) { tx in
            guard try await tx.deleteToken(id: id) else { throw StoreError.notFound("no token \(String(id.prefix(40))) in this app") }
        }
    }
}

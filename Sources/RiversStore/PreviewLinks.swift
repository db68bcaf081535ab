import Foundation
import PostgresNIO
import RiversCore

/// A preview link: an unguessable URL that serves its app's current draft as a rivers.json, so
/// that a test build of the real app shows a draft before it is published (issue 27). Known by
/// its id and name; the secret is in the answer that made it only (its hash is kept).
public struct PreviewLink: Sendable, Equatable {
    public var id: String
    public var appId: String
    public var name: String
    public var createdBy: String
    public var createdAt: Date
    public var expiresAt: Date
    public var lastUsedAt: Date?

    public init(id: String, appId: String, name: String, createdBy: String, createdAt: Date, expiresAt: Date, lastUsedAt: Date?) {
        self.id = id
        self.appId = appId
        self.name = name
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.lastUsedAt = lastUsedAt
    }
}

/// What a preview link's secret opens: the app (not archived) and the link, or why not.
public enum PreviewLinkLookup: Sendable {
    case live(App, PreviewLink)
    /// Expired (kept a day past its expiry, so that a tester is told rather than "not found").
    case expired
    /// Never made, revoked, long expired, or its app archived.
    case unknown
}

/// Preview links of an app: made by editors, listed for every member, revoked by editors.
public protocol PreviewLinkRepository: Sendable {
    func createPreviewLink(appId: String, name: String, expiresAt: Date, createdBy: String, grantedBy: Grantor) async throws -> (secret: String, link: PreviewLink)
    func previewLinks(appId: String, limit: Int, offset: Int) async throws -> (links: [PreviewLink], total: Int)
    func revokePreviewLink(appId: String, id: String) async throws
    func previewLink(secret: String) async throws -> PreviewLinkLookup
}

extension Store: PreviewLinkRepository {
    /// The secret's length in characters: 32 random bytes as hex after the `rvp_` prefix.
    public static let previewSecretLength = 4 + 64

    /// Whether `secret` has a preview link secret's shape (`rvp_` and 64 lowercase hex digits):
    /// anything else is not looked up.
    static func isPreviewSecretShaped(_ secret: String) -> Bool {
        secret.utf8.count == previewSecretLength && secret.hasPrefix("rvp_")
            && secret.utf8.dropFirst(4).allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    public func createPreviewLink(
        appId: String, name: String, expiresAt: Date, createdBy: String, grantedBy: Grantor
    ) async throws -> (secret: String, link: PreviewLink) {
        let secret = Secret.make("rvp_"), id = UUIDText.random()
        let hash = Self.hash(secret)
        let createdAt = try await client.transaction(logger: logger) { connection -> Date? in
            // Expired links still count until they are swept (a day after expiry), so that making
            // and dropping links cannot outrun the cap.
            try await connection.query(
                "DELETE FROM preview_links WHERE app_id = \(appId)::uuid AND expires_at < now() - interval '1 day'", logger: self.logger)
            try AppCaps.refuseAtCap(
                try await self.number("SELECT count(*)::int FROM preview_links WHERE app_id = \(appId)::uuid", on: connection),
                limit: Limits.maxPreviewLinksPerApp, "preview links")
            return try await connection.query(
                """
                INSERT INTO preview_links (id, app_id, secret_hash, name, created_by, expires_at, granted_by_user, granted_by_token)
                VALUES (\(id)::uuid, \(appId)::uuid, \(hash), \(name), \(createdBy), \(expiresAt),
                        CAST(\(grantedBy.userId) AS uuid), CAST(\(grantedBy.tokenId) AS uuid))
                RETURNING created_at
                """, logger: self.logger
            ).collect().first?.decode(Date.self)
        }
        let link = PreviewLink(
            id: id, appId: appId, name: name, createdBy: createdBy, createdAt: createdAt ?? Date(), expiresAt: expiresAt, lastUsedAt: nil)
        return (secret, link)
    }

    /// The app's preview links, oldest first, a page at a time, with how many there are
    /// (expired ones included until they are swept, a day after expiry).
    public func previewLinks(appId: String, limit: Int = Store.maxPageSize, offset: Int = 0) async throws -> (links: [PreviewLink], total: Int) {
        let rows = try await client.query(
            """
            SELECT id::text, name, created_by, created_at, expires_at, last_used_at FROM preview_links
            WHERE app_id = \(appId)::uuid ORDER BY created_at, id LIMIT \(limit) OFFSET \(offset)
            """, logger: logger)
        var links: [PreviewLink] = []
        for try await (id, name, by, created, expires, used) in rows.decode((String, String, String, Date, Date, Date?).self) {
            links.append(PreviewLink(id: id, appId: appId, name: name, createdBy: by, createdAt: created, expiresAt: expires, lastUsedAt: used))
        }
        return (links, try await count("SELECT count(*)::int FROM preview_links WHERE app_id = \(appId)::uuid"))
    }

    public func revokePreviewLink(appId: String, id: String) async throws {
        guard UUIDText.normalize(id) != nil,
            try await changedRows("DELETE FROM preview_links WHERE app_id = \(appId)::uuid AND id = \(id)::uuid RETURNING 1") > 0
        else { throw StoreError.notFound("no preview link \(id) in this app") }
    }

    /// The app and link a secret opens. Its last use is recorded at most once a minute.
    public func previewLink(secret: String) async throws -> PreviewLinkLookup {
        guard Self.isPreviewSecretShaped(secret) else { return .unknown }
        let hash = Self.hash(secret), logger = self.logger
        return try await client.reading { connection -> PreviewLinkLookup in
            let rows = try await connection.query(
                """
                SELECT a.id::text, a.slug, a.name, a.created_at, l.id::text, l.name, l.created_by, l.created_at, l.expires_at,
                       l.last_used_at, l.expires_at > now(),
                       l.last_used_at IS NULL OR l.last_used_at < now() - interval '1 minute'
                FROM preview_links l JOIN apps a ON a.id = l.app_id
                WHERE l.secret_hash = \(hash) AND a.archived_at IS NULL AND l.expires_at > now() - interval '1 day'
                """, logger: logger)
            for try await (appId, slug, appName, appCreated, id, name, by, created, expires, used, live, stale) in rows.decode(
                (String, String, String, Date, String, String, String, Date, Date, Date?, Bool, Bool).self)
            {
                guard live else { return .expired }
                if stale {
                    try await connection.query("UPDATE preview_links SET last_used_at = now() WHERE secret_hash = \(hash)", logger: logger)
                }
                return .live(
                    App(id: appId, slug: slug, name: appName, createdAt: appCreated),
                    PreviewLink(id: id, appId: appId, name: name, createdBy: by, createdAt: created, expiresAt: expires, lastUsedAt: used))
            }
            return .unknown
        }
    }
}

import Foundation
import PostgresNIO
import RiversCore

/// The channel every server process listens on for an app's events (the audit log's entries,
/// sent by migration 12's trigger at commit); the payload is the entry as JSON.
public let appEventsChannel = "rivers_events"
/// The channel presence travels on between processes (never stored); the payload is JSON.
public let presenceChannel = "rivers_presence"

/// What a live stream replays after a reconnect, and how presence reaches the other processes.
public protocol AppEventRepository: Sendable {
    /// The app's audit entries after `id`, oldest first, at most `limit`, each with the name of
    /// the person who acted ("" for tokens, the system, or a person without a name).
    func appEvents(appId: String, after id: Int, limit: Int) async throws -> [(entry: AuditEntry, actorName: String)]
    /// The newest entry's id of the app (0 when there is none): where a new stream starts.
    func lastAppEvent(appId: String) async throws -> Int
    /// Sends presence to every process (NOTIFY, not stored).
    func announcePresence(_ payload: String) async throws
}

extension Store: AppEventRepository {
    public func appEvents(appId: String, after id: Int, limit: Int) async throws -> [(entry: AuditEntry, actorName: String)] {
        let rows = try await client.query(
            """
            SELECT l.id, l.at, l.actor, l.actor_kind, l.kind, l.resource_id, l.action, l.revision_before, l.revision_after, l.summary,
                   coalesce(CASE WHEN l.actor_kind = 'user' THEN (SELECT left(name, 200) FROM users WHERE email = l.actor) END, '')
            FROM audit_log l WHERE l.app_id = \(appId)::uuid AND l.id > \(id) ORDER BY l.id LIMIT \(limit)
            """, logger: logger)
        var entries: [(entry: AuditEntry, actorName: String)] = []
        for try await (id, at, actor, actorKind, kind, resource, action, before, after, summary, name) in rows.decode(
            (Int, Date, String, String, String, String, String, Int?, Int?, String, String).self)
        {
            entries.append((AuditEntry(
                id: id, at: at, actor: actor, actorKind: actorKind, kind: kind, resourceId: resource, action: action, revisionBefore: before,
                revisionAfter: after, summary: summary, requestId: "", address: ""), name))
        }
        return entries
    }

    public func lastAppEvent(appId: String) async throws -> Int {
        try await count("SELECT coalesce(max(id), 0)::bigint FROM audit_log WHERE app_id = \(appId)::uuid")
    }

    public func announcePresence(_ payload: String) async throws {
        try await client.query("SELECT pg_notify(\(presenceChannel), \(payload))", logger: logger)
    }
}

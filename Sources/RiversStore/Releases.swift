import Foundation
import PostgresNIO
import RiversCore

/// A channel: a named pointer to a published version (issue 27). `production` is the one the
/// app's main URL serves.
public struct Channel: Sendable, Equatable {
    public var name: String
    public var version: Int
    public var revision: Int
    public var createdAt: Date
    public var updatedAt: Date

    public init(name: String, version: Int, revision: Int, createdAt: Date, updatedAt: Date) {
        self.name = name
        self.version = version
        self.revision = revision
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// What moved a channel (webhooks tell each apart).
public enum ChannelMoveCause: String, Sendable {
    case publish, rollback, promote, schedule
}

/// One move of a channel: its history, newest first.
public struct ChannelMove: Sendable, Equatable {
    public var id: Int
    public var version: Int
    public var previousVersion: Int?
    public var movedBy: String
    public var note: String
    public var at: Date
}

/// An app's release rules as stored, with their revision (the ETag of `release-rules`).
public struct ReleaseRuleSet: Sendable {
    public var rules: [ReleaseRule]
    public var revision: Int
    public var updatedAt: Date?
}

/// A promotion due at a time.
public struct Schedule: Sendable, Equatable {
    public var id: String
    public var channel: String
    public var version: Int
    public var dueAt: Date
    public var createdBy: String
    public var createdAt: Date
    public var firedAt: Date?
    public var late: Bool
    public var cancelledAt: Date?
}

/// A schedule that has just fired: which app's slug serves something new.
public struct FiredSchedule: Sendable {
    public var schedule: Schedule
    public var appId: String
    public var slug: String

    public init(schedule: Schedule, appId: String, slug: String) {
        self.schedule = schedule
        self.appId = appId
        self.slug = slug
    }
}

/// Channels, release rules and schedules of an app as the routes read them (their changes are
/// `ReleaseService`'s, over a `ReleaseStorage`).
public protocol ReleaseRepository: Sendable {
    func channels(appId: String) async throws -> [Channel]
    func channel(appId: String, name: String, historyLimit: Int) async throws -> (channel: Channel, history: [ChannelMove])
    func releaseRules(appId: String) async throws -> ReleaseRuleSet
    func schedules(appId: String, limit: Int, offset: Int) async throws -> (schedules: [Schedule], total: Int)
}

extension Store: ReleaseRepository {
    static let channelColumns = "name, version, revision, created_at, updated_at"
    static let scheduleColumns = "id::text, channel, version, due_at, created_by, created_at, fired_at, late, cancelled_at"
    static let moveColumns = "id, version, previous_version, moved_by, note, created_at"

    static func channels(from rows: PostgresRowSequence) async throws -> [Channel] {
        var result: [Channel] = []
        for try await (name, version, revision, created, updated) in rows.decode((String, Int, Int, Date, Date).self) {
            result.append(Channel(name: name, version: version, revision: revision, createdAt: created, updatedAt: updated))
        }
        return result
    }

    static func schedules(from rows: PostgresRowSequence) async throws -> [Schedule] {
        var result: [Schedule] = []
        for try await (id, channel, version, due, by, created, fired, late, cancelled) in rows.decode(
            (String, String, Int, Date, String, Date, Date?, Bool, Date?).self)
        {
            result.append(Schedule(
                id: id, channel: channel, version: version, dueAt: due, createdBy: by, createdAt: created, firedAt: fired, late: late,
                cancelledAt: cancelled))
        }
        return result
    }

    static func moves(from rows: PostgresRowSequence) async throws -> [ChannelMove] {
        var result: [ChannelMove] = []
        for try await (id, version, previous, by, note, at) in rows.decode((Int, Int, Int?, String, String, Date).self) {
            result.append(ChannelMove(id: id, version: version, previousVersion: previous, movedBy: by, note: note, at: at))
        }
        return result
    }

    /// The app's channels, production first, then by name.
    public func channels(appId: String) async throws -> [Channel] {
        try await Self.channels(from: client.query(
            """
            SELECT \(unescaped: Self.channelColumns) FROM channels WHERE app_id = \(appId)::uuid
            ORDER BY name <> 'production', name
            """, logger: logger))
    }

    public func channel(appId: String, name: String, historyLimit: Int = 50) async throws -> (channel: Channel, history: [ChannelMove]) {
        try await client.reading { connection in
            guard let channel = try await Self.channels(from: connection.query(
                "SELECT \(unescaped: Self.channelColumns) FROM channels WHERE app_id = \(appId)::uuid AND name = \(name)", logger: self.logger)).first
            else { throw StoreError.notFound("no channel \(String(name.prefix(40))) in this app") }
            let history = try await Self.moves(from: connection.query(
                """
                SELECT \(unescaped: Self.moveColumns) FROM channel_moves
                WHERE app_id = \(appId)::uuid AND channel = \(name) ORDER BY id DESC LIMIT \(historyLimit)
                """, logger: self.logger))
            return (channel, history)
        }
    }

    public func releaseRules(appId: String) async throws -> ReleaseRuleSet {
        try await client.reading { try await self.releaseRules(appId: appId, on: $0) }
    }

    func releaseRules(appId: String, on connection: PostgresConnection) async throws -> ReleaseRuleSet {
        for try await (text, revision, updated) in try await connection.query(
            "SELECT rules::text, revision, updated_at FROM release_rules WHERE app_id = \(appId)::uuid", logger: logger
        ).decode((String, Int, Date).self) {
            return ReleaseRuleSet(rules: Self.storedRules(text), revision: revision, updatedAt: updated)
        }
        return ReleaseRuleSet(rules: [], revision: 0, updatedAt: nil)
    }

    /// Rules as stored (checked when they were written).
    static func storedRules(_ text: String) -> [ReleaseRule] {
        guard let list = (try? JSONValue.parse(Array(text.utf8)))?.arrayValue else { return [] }
        return ReleaseRules.read(list, at: "", problems: Problems())
    }

    /// Schedules, pending ones first (soonest first), then the rest newest first.
    public func schedules(appId: String, limit: Int = Store.maxPageSize, offset: Int = 0) async throws -> (schedules: [Schedule], total: Int) {
        let list = try await Self.schedules(from: client.query(
            """
            SELECT \(unescaped: Self.scheduleColumns) FROM schedules WHERE app_id = \(appId)::uuid
            ORDER BY (fired_at IS NULL AND cancelled_at IS NULL) DESC,
                     CASE WHEN fired_at IS NULL AND cancelled_at IS NULL THEN due_at END ASC, due_at DESC, id
            LIMIT \(limit) OFFSET \(offset)
            """, logger: logger))
        return (list, try await count("SELECT count(*)::int FROM schedules WHERE app_id = \(appId)::uuid"))
    }
}

// MARK: - Releases' writes

extension Store: ReleaseStorage {
    public func withReleases<T: Sendable>(
        appId: String, _ work: @escaping @Sendable (any ReleaseTransaction) async throws -> T
    ) async throws -> T {
        try await withApp(appId) { try await work($0) }
    }

    public func withDueSchedule<T: Sendable>(
        _ work: @escaping @Sendable (any ReleaseTransaction, Schedule) async throws -> T
    ) async throws -> T? {
        let trust = TrustChange()
        defer { if trust.happened { tokens.clear() } }
        return try await client.transaction(logger: logger) { connection -> T? in
            var due: (id: String, appId: String)?
            for try await (id, appId) in try await connection.query(
                """
                SELECT s.id::text, s.app_id::text FROM schedules s JOIN apps a ON a.id = s.app_id
                WHERE s.fired_at IS NULL AND s.cancelled_at IS NULL AND s.due_at <= now() AND a.archived_at IS NULL
                ORDER BY s.due_at, s.id LIMIT 1 FOR UPDATE OF s SKIP LOCKED
                """, logger: self.logger
            ).decode((String, String).self) { due = (id, appId) }
            guard let due else { return nil }
            // Then the app, as every publish and move does.
            let number = try await self.lockApp(due.appId, on: connection)
            let tx = PostgresContentTransaction(store: self, connection: connection, appId: due.appId, nextScreenNumber: number, trust: trust)
            guard let schedule = try await tx.schedule(id: due.id) else { return nil }
            return try await work(tx, schedule)
        }
    }
}

/// What the release use cases (`ReleaseService`) read and write of one app in one PostgreSQL
/// transaction (the app's row locked): SQL only.
extension PostgresContentTransaction: ReleaseTransaction {
    func slug() async throws -> String {
        for try await slug in try await connection.query("SELECT slug FROM apps WHERE id = \(appId)::uuid", logger: logger).decode(String.self) {
            return slug
        }
        throw StoreError.notFound("no app \(appId)")
    }

    func channel(_ name: String) async throws -> Channel? {
        try await Store.channels(from: connection.query(
            "SELECT \(unescaped: Store.channelColumns) FROM channels WHERE app_id = \(appId)::uuid AND name = \(name) FOR UPDATE",
            logger: logger)).first
    }

    func channelNames() async throws -> Set<String> {
        var names: Set<String> = []
        for try await name in try await connection.query(
            "SELECT name FROM channels WHERE app_id = \(appId)::uuid", logger: logger
        ).decode(String.self) { names.insert(name) }
        return names
    }

    func versionExists(_ number: Int) async throws -> Bool {
        try await store.number(
            "SELECT count(*)::int FROM versions WHERE app_id = \(appId)::uuid AND number = \(number)", on: connection) > 0
    }

    func newestVersion() async throws -> (number: Int, sha256: String)? {
        for try await row in try await connection.query(
            "SELECT number, sha256 FROM versions WHERE app_id = \(appId)::uuid ORDER BY number DESC LIMIT 1", logger: logger
        ).decode((Int, String).self) { return row }
        return nil
    }

    func latestMove(of name: String) async throws -> ChannelMove? {
        try await Store.moves(from: connection.query(
            """
            SELECT \(unescaped: Store.moveColumns) FROM channel_moves
            WHERE app_id = \(appId)::uuid AND channel = \(name) AND previous_version IS DISTINCT FROM version ORDER BY id DESC LIMIT 1
            """, logger: logger)).first
    }

    func writeChannel(
        _ name: String, to version: Int, previous: Int?, movedBy: String, note: String, cause: ChannelMoveCause, withNewVersion: Bool
    ) async throws -> Channel {
        let channel = try await Store.channels(from: connection.query(
            """
            INSERT INTO channels (app_id, name, version) VALUES (\(appId)::uuid, \(name), \(version))
            ON CONFLICT (app_id, name) DO UPDATE SET version = EXCLUDED.version, revision = channels.revision + 1, updated_at = now()
            RETURNING \(unescaped: Store.channelColumns)
            """, logger: logger)).first!
        try await connection.query(
            """
            INSERT INTO channel_moves (app_id, channel, version, previous_version, moved_by, note, with_new_version, cause)
            VALUES (\(appId)::uuid, \(name), \(version), \(previous), \(movedBy), \(note), \(withNewVersion), \(cause.rawValue))
            """, logger: logger)
        let slugRows = name == ChannelName.production
            ? try await connection.query("UPDATE apps SET current_version = \(version) WHERE id = \(appId)::uuid RETURNING slug", logger: logger)
            : try await connection.query("SELECT slug FROM apps WHERE id = \(appId)::uuid", logger: logger)
        for try await slug in slugRows.decode(String.self) {
            // The slug is this app's for good: no other app may publish under it (Store.refuseReservedSlug).
            try await Store.reserveSlug(slug, appId: appId, on: connection, logger: logger)
            try await notifyPublished(slug)
        }
        return channel
    }

    /// Delivered at commit to every server process, which then serves what changed.
    func notifyPublished(_ slug: String) async throws {
        try await connection.query("SELECT pg_notify(\(publishedChannel), \(slug))", logger: logger)
    }

    func deleteChannel(_ name: String) async throws {
        try await connection.query("DELETE FROM channels WHERE app_id = \(appId)::uuid AND name = \(name)", logger: logger)
        try await notifyPublished(try await slug())
    }

    func releaseRules() async throws -> ReleaseRuleSet {
        try await store.releaseRules(appId: appId, on: connection)
    }

    func writeReleaseRules(_ rules: [ReleaseRule]) async throws -> ReleaseRuleSet {
        let text = JSONValue.array(rules.map(\.json)).serializedString()
        for try await (revision, updated) in try await connection.query(
            """
            INSERT INTO release_rules (app_id, rules) VALUES (\(appId)::uuid, \(text)::jsonb)
            ON CONFLICT (app_id) DO UPDATE SET rules = EXCLUDED.rules, revision = release_rules.revision + 1, updated_at = now()
            RETURNING revision, updated_at
            """, logger: logger
        ).decode((Int, Date).self) {
            try await notifyPublished(try await slug())
            return ReleaseRuleSet(rules: rules, revision: revision, updatedAt: updated)
        }
        throw StoreError.notFound("the rules vanished during the write")
    }

    func pendingSchedules(channel name: String?) async throws -> Int {
        try await store.number(
            """
            SELECT count(*)::int FROM schedules
            WHERE app_id = \(appId)::uuid AND (\(name)::text IS NULL OR channel = \(name)) AND fired_at IS NULL AND cancelled_at IS NULL
            """, on: connection)
    }

    func insertSchedule(channel: String, version: Int, dueAt: Date, createdBy: String) async throws -> Schedule {
        try await Store.schedules(from: connection.query(
            """
            INSERT INTO schedules (id, app_id, channel, version, due_at, created_by)
            VALUES (\(UUIDText.random())::uuid, \(appId)::uuid, \(channel), \(version), \(dueAt), \(createdBy))
            RETURNING \(unescaped: Store.scheduleColumns)
            """, logger: logger)).first!
    }

    func dropScheduleHistory(keeping: Int) async throws -> Int {
        // Reads the app's history by `schedules_app` (app_id, due_at), newest first.
        try await store.number(
            """
            WITH gone AS (
                DELETE FROM schedules WHERE app_id = \(appId)::uuid AND id IN (
                    SELECT id FROM schedules
                    WHERE app_id = \(appId)::uuid AND (fired_at IS NOT NULL OR cancelled_at IS NOT NULL)
                    ORDER BY due_at DESC, id OFFSET \(keeping))
                RETURNING 1)
            SELECT count(*)::int FROM gone
            """, on: connection)
    }

    func schedule(id: String) async throws -> Schedule? {
        try await Store.schedules(from: connection.query(
            "SELECT \(unescaped: Store.scheduleColumns) FROM schedules WHERE app_id = \(appId)::uuid AND id = \(id)::uuid FOR UPDATE",
            logger: logger)).first
    }

    // Both within the transaction's app, as every query of a tenant's rows is (the callers read
    // the schedule through `schedule(id:)` first), and without trapping on a row not found.
    func markCancelled(schedule id: String) async throws -> Schedule {
        let updated = try await Store.schedules(from: connection.query(
            "UPDATE schedules SET cancelled_at = now() WHERE app_id = \(appId)::uuid AND id = \(id)::uuid RETURNING \(unescaped: Store.scheduleColumns)",
            logger: logger))
        guard let schedule = updated.first else { throw StoreError.notFound("no schedule \(id) in this app") }
        return schedule
    }

    func markFired(schedule id: String, lateAfterSeconds: Int) async throws -> Schedule {
        let updated = try await Store.schedules(from: connection.query(
            """
            UPDATE schedules SET fired_at = now(), late = due_at < now() - make_interval(secs => \(lateAfterSeconds))
            WHERE app_id = \(appId)::uuid AND id = \(id)::uuid RETURNING \(unescaped: Store.scheduleColumns)
            """, logger: logger))
        guard let schedule = updated.first else { throw StoreError.notFound("no schedule \(id) in this app") }
        return schedule
    }
}

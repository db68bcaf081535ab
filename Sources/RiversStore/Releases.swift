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
}

/// Channels, release rules and schedules of an app.
public protocol ReleaseRepository: Sendable {
    func channels(appId: String) async throws -> [Channel]
    func channel(appId: String, name: String, historyLimit: Int) async throws -> (channel: Channel, history: [ChannelMove])
    func moveChannel(appId: String, name: String, version: Int, precondition: RevisionPrecondition, movedBy: String, note: String) async throws -> (channel: Channel, created: Bool)
    func rollbackChannel(appId: String, name: String, precondition: RevisionPrecondition, movedBy: String, note: String) async throws -> Channel
    func deleteChannel(appId: String, name: String, precondition: RevisionPrecondition) async throws
    func releaseRules(appId: String) async throws -> ReleaseRuleSet
    func setReleaseRules(appId: String, rules: [ReleaseRule], precondition: RevisionPrecondition) async throws -> ReleaseRuleSet
    func schedules(appId: String, limit: Int, offset: Int) async throws -> (schedules: [Schedule], total: Int)
    func createSchedule(appId: String, channel: String, version: Int, dueAt: Date, createdBy: String) async throws -> Schedule
    func cancelSchedule(appId: String, id: String) async throws -> Schedule
    func fireDueSchedule() async throws -> FiredSchedule?
}

extension Store: ReleaseRepository {
    static let channelColumns = "name, version, revision, created_at, updated_at"
    static let scheduleColumns = "id::text, channel, version, due_at, created_by, created_at, fired_at, late, cancelled_at"

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
            var history: [ChannelMove] = []
            for try await (id, version, previous, by, note, at) in try await connection.query(
                """
                SELECT id, version, previous_version, moved_by, note, created_at FROM channel_moves
                WHERE app_id = \(appId)::uuid AND channel = \(name) ORDER BY id DESC LIMIT \(historyLimit)
                """, logger: self.logger
            ).decode((Int, Int, Int?, String, String, Date).self) {
                history.append(ChannelMove(id: id, version: version, previousVersion: previous, movedBy: by, note: note, at: at))
            }
            return (channel, history)
        }
    }

    /// Points a channel at a version (making the channel when it does not exist).
    public func moveChannel(
        appId: String, name: String, version: Int, precondition: RevisionPrecondition, movedBy: String, note: String
    ) async throws -> (channel: Channel, created: Bool) {
        try await client.transaction(logger: logger) { connection in
            _ = try await self.lockApp(appId, on: connection)
            guard try await self.versionExists(appId: appId, number: version, on: connection) else {
                throw StoreError.invalid([FieldError("/version", "this app has no version \(version): publish first, then point a channel at it")])
            }
            return try await self.moveChannel(appId: appId, name: name, to: version, precondition: precondition, movedBy: movedBy, note: note, on: connection)
        }
    }

    /// Moves `name` to `version` in the caller's transaction (the app row is locked): the row,
    /// its history, production's twin `apps.current_version`, and the notification every process
    /// reloads its index on.
    func moveChannel(
        appId: String, name: String, to version: Int, precondition: RevisionPrecondition, movedBy: String, note: String,
        cause: ChannelMoveCause = .promote, withNewVersion: Bool = false, on connection: PostgresConnection
    ) async throws -> (channel: Channel, created: Bool) {
        let existing = try await Self.channels(from: connection.query(
            "SELECT \(unescaped: Self.channelColumns) FROM channels WHERE app_id = \(appId)::uuid AND name = \(name) FOR UPDATE",
            logger: logger)).first
        if let existing {
            try precondition.check(existing.revision)
        } else {
            // If-Match names a revision of something that exists: a channel that does not is none.
            if precondition != .none { throw StoreError.preconditionFailed(current: 0) }
            try AppCaps.refuseAtCap(
                try await number("SELECT count(*)::int FROM channels WHERE app_id = \(appId)::uuid", on: connection),
                limit: Limits.maxChannelsPerApp, "channels")
        }
        let channel = try await Self.channels(from: connection.query(
            """
            INSERT INTO channels (app_id, name, version) VALUES (\(appId)::uuid, \(name), \(version))
            ON CONFLICT (app_id, name) DO UPDATE SET version = EXCLUDED.version, revision = channels.revision + 1, updated_at = now()
            RETURNING \(unescaped: Self.channelColumns)
            """, logger: logger)).first!
        try await connection.query(
            """
            INSERT INTO channel_moves (app_id, channel, version, previous_version, moved_by, note, with_new_version, cause)
            VALUES (\(appId)::uuid, \(name), \(version), \(existing?.version), \(movedBy), \(note), \(withNewVersion), \(cause.rawValue))
            """, logger: logger)
        let slugRows = name == ChannelName.production
            ? try await connection.query("UPDATE apps SET current_version = \(version) WHERE id = \(appId)::uuid RETURNING slug", logger: logger)
            : try await connection.query("SELECT slug FROM apps WHERE id = \(appId)::uuid", logger: logger)
        for try await slug in slugRows.decode(String.self) {
            // The slug is this app's for good: no other app may publish under it (Store.refuseReservedSlug).
            try await Self.reserveSlug(slug, appId: appId, on: connection, logger: logger)
            // Delivered at commit to every server process, which then serves what moved.
            try await connection.query("SELECT pg_notify(\(publishedChannel), \(slug))", logger: logger)
        }
        return (channel, existing == nil)
    }

    /// Moves a channel back to the version it pointed at before its latest move.
    public func rollbackChannel(appId: String, name: String, precondition: RevisionPrecondition, movedBy: String, note: String) async throws -> Channel {
        try await client.transaction(logger: logger) { connection in
            _ = try await self.lockApp(appId, on: connection)
            var previous: Int?? = nil
            for try await p in try await connection.query(
                "SELECT previous_version FROM channel_moves WHERE app_id = \(appId)::uuid AND channel = \(name) ORDER BY id DESC LIMIT 1",
                logger: self.logger
            ).decode(Int?.self) { previous = .some(p) }
            guard let last = previous else { throw StoreError.notFound("no channel \(String(name.prefix(40))) in this app") }
            guard let target = last else {
                throw StoreError.conflict("channel \(name) has never pointed at another version: there is nothing to roll back to", usedBy: [])
            }
            return try await self.moveChannel(
                appId: appId, name: name, to: target, precondition: precondition, movedBy: movedBy,
                note: note.isEmpty ? "rollback to version \(target)" : note, cause: .rollback, on: connection
            ).channel
        }
    }

    /// Removes a channel that no rule and no pending schedule needs (never production).
    public func deleteChannel(appId: String, name: String, precondition: RevisionPrecondition) async throws {
        if name == ChannelName.production {
            throw StoreError.conflict("production cannot be removed: the app's main URL serves it", usedBy: [])
        }
        try await client.transaction(logger: logger) { connection in
            _ = try await self.lockApp(appId, on: connection)
            guard let channel = try await Self.channels(from: connection.query(
                "SELECT \(unescaped: Self.channelColumns) FROM channels WHERE app_id = \(appId)::uuid AND name = \(name) FOR UPDATE",
                logger: self.logger)).first
            else { throw StoreError.notFound("no channel \(String(name.prefix(40))) in this app") }
            try precondition.check(channel.revision)
            let rules = try await self.releaseRules(appId: appId, on: connection).rules
            if let i = rules.firstIndex(where: { $0.target == .channel(name) }) {
                throw StoreError.conflict("release rule \(i + 1) sends apps to \(name): change that rule first", usedBy: [])
            }
            let pending = try await self.number(
                """
                SELECT count(*)::int FROM schedules
                WHERE app_id = \(appId)::uuid AND channel = \(name) AND fired_at IS NULL AND cancelled_at IS NULL
                """, on: connection)
            if pending > 0 {
                throw StoreError.conflict("\(pending) scheduled promotion(s) of \(name) are pending: cancel them first", usedBy: [])
            }
            try await connection.query("DELETE FROM channels WHERE app_id = \(appId)::uuid AND name = \(name)", logger: self.logger)
            for try await slug in try await connection.query("SELECT slug FROM apps WHERE id = \(appId)::uuid", logger: self.logger).decode(String.self) {
                try await connection.query("SELECT pg_notify(\(publishedChannel), \(slug))", logger: self.logger)
            }
        }
    }

    func versionExists(appId: String, number: Int, on connection: PostgresConnection) async throws -> Bool {
        try await self.number(
            "SELECT count(*)::int FROM versions WHERE app_id = \(appId)::uuid AND number = \(number)", on: connection) > 0
    }

    // MARK: Rules

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

    /// Replaces the rules. Every channel and version they name must exist.
    public func setReleaseRules(appId: String, rules: [ReleaseRule], precondition: RevisionPrecondition) async throws -> ReleaseRuleSet {
        try await client.transaction(logger: logger) { connection in
            _ = try await self.lockApp(appId, on: connection)
            let current = try await self.releaseRules(appId: appId, on: connection)
            // The rules always exist (empty, revision 0, before they are first set): "0" matches them then.
            try precondition.check(current.revision)
            var channels: Set<String> = []
            for try await name in try await connection.query(
                "SELECT name FROM channels WHERE app_id = \(appId)::uuid", logger: self.logger
            ).decode(String.self) { channels.insert(name) }
            let newest = try await self.number("SELECT coalesce(max(number), 0)::int FROM versions WHERE app_id = \(appId)::uuid", on: connection)
            var problems: [FieldError] = []
            for (i, rule) in rules.enumerated() {
                switch rule.target {
                case .channel(let name) where !channels.contains(name):
                    problems.append(FieldError("/rules/\(i)/channel", "this app has no channel \(name)" + (name == ChannelName.production ? " yet: publish first" : ": make it first")))
                case .version(let n) where n > newest:
                    problems.append(FieldError("/rules/\(i)/version", newest == 0 ? "this app has no published version yet" : "this app has no version \(n) (the newest is \(newest))"))
                default: break
                }
            }
            if !problems.isEmpty { throw StoreError.invalid(problems) }
            let text = JSONValue.array(rules.map(\.json)).serializedString()
            for try await (revision, updated) in try await connection.query(
                """
                INSERT INTO release_rules (app_id, rules) VALUES (\(appId)::uuid, \(text)::jsonb)
                ON CONFLICT (app_id) DO UPDATE SET rules = EXCLUDED.rules, revision = release_rules.revision + 1, updated_at = now()
                RETURNING revision, updated_at
                """, logger: self.logger
            ).decode((Int, Date).self) {
                for try await slug in try await connection.query("SELECT slug FROM apps WHERE id = \(appId)::uuid", logger: self.logger).decode(String.self) {
                    try await connection.query("SELECT pg_notify(\(publishedChannel), \(slug))", logger: self.logger)
                }
                return ReleaseRuleSet(rules: rules, revision: revision, updatedAt: updated)
            }
            throw StoreError.notFound("the rules vanished during the write")
        }
    }

    // MARK: Schedules

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

    /// Schedules a promotion of an existing version (so it cannot fail for its content when it fires).
    public func createSchedule(appId: String, channel: String, version: Int, dueAt: Date, createdBy: String) async throws -> Schedule {
        try await client.transaction(logger: logger) { connection in
            _ = try await self.lockApp(appId, on: connection)
            var problems: [FieldError] = []
            if !(try await self.versionExists(appId: appId, number: version, on: connection)) {
                problems.append(FieldError("/version", "this app has no version \(version): only published versions can be scheduled"))
            }
            let exists = try await self.number(
                "SELECT count(*)::int FROM channels WHERE app_id = \(appId)::uuid AND name = \(channel)", on: connection) > 0
            if !exists && channel != ChannelName.production {
                problems.append(FieldError("/channel", "this app has no channel \(channel): make it first"))
            }
            if !problems.isEmpty { throw StoreError.invalid(problems) }
            try AppCaps.refuseAtCap(
                try await self.number(
                    "SELECT count(*)::int FROM schedules WHERE app_id = \(appId)::uuid AND fired_at IS NULL AND cancelled_at IS NULL",
                    on: connection),
                limit: Limits.maxPendingSchedulesPerApp, "pending schedules")
            return try await Self.schedules(from: connection.query(
                """
                INSERT INTO schedules (id, app_id, channel, version, due_at, created_by)
                VALUES (\(UUIDText.random())::uuid, \(appId)::uuid, \(channel), \(version), \(dueAt), \(createdBy))
                RETURNING \(unescaped: Self.scheduleColumns)
                """, logger: self.logger)).first!
        }
    }

    public func cancelSchedule(appId: String, id: String) async throws -> Schedule {
        guard UUIDText.normalize(id) != nil else { throw StoreError.notFound("no schedule \(String(id.prefix(40))) in this app") }
        return try await client.transaction(logger: logger) { connection in
            guard let schedule = try await Self.schedules(from: connection.query(
                "SELECT \(unescaped: Self.scheduleColumns) FROM schedules WHERE app_id = \(appId)::uuid AND id = \(id)::uuid FOR UPDATE",
                logger: self.logger)).first
            else { throw StoreError.notFound("no schedule \(id) in this app") }
            if schedule.firedAt != nil { throw StoreError.conflict("this schedule fired already: move the channel back instead", usedBy: []) }
            if schedule.cancelledAt != nil { return schedule }
            return try await Self.schedules(from: connection.query(
                "UPDATE schedules SET cancelled_at = now() WHERE id = \(id)::uuid RETURNING \(unescaped: Self.scheduleColumns)",
                logger: self.logger)).first!
        }
    }

    /// A schedule is late when it fires this long after its time (every process was down).
    public static let lateAfterSeconds = 5

    /// Fires the earliest due schedule no other process is firing: the channel moves and the
    /// schedule is marked fired in one transaction, so it fires once whatever the number of
    /// processes, and a process killed halfway leaves it for the next. Nil when none is due.
    public func fireDueSchedule() async throws -> FiredSchedule? {
        try await AuditActor.$current.withValue(AuditActor(name: "schedule", kind: .schedule)) {
            try await client.transaction(logger: logger) { connection -> FiredSchedule? in
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
                _ = try await self.lockApp(due.appId, on: connection)
                let fired = try await Self.schedules(from: connection.query(
                    """
                    UPDATE schedules SET fired_at = now(), late = due_at < now() - make_interval(secs => \(Self.lateAfterSeconds))
                    WHERE id = \(due.id)::uuid RETURNING \(unescaped: Self.scheduleColumns)
                    """, logger: self.logger)).first!
                let note = "scheduled for " + Timestamp.format(fired.dueAt) + (fired.late ? " (fired late: no server was running then)" : "")
                _ = try await self.moveChannel(
                    appId: due.appId, name: fired.channel, to: fired.version, precondition: .none, movedBy: "schedule", note: note,
                    cause: .schedule, on: connection)
                var slug = ""
                for try await s in try await connection.query("SELECT slug FROM apps WHERE id = \(due.appId)::uuid", logger: self.logger).decode(String.self) { slug = s }
                return FiredSchedule(schedule: fired, appId: due.appId, slug: slug)
            }
        }
    }
}

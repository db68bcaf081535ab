import Foundation
import RiversCore
import RiversStore

/// The release use cases (issue 27): point a channel at a version, move it back, remove it; set
/// the release rules; schedule a promotion, cancel it, fire what is due. Each is one transaction
/// over a `ReleaseStorage`, the app's row locked, so moves, publishes and rules of an app never
/// interleave.
public struct ReleaseService: Sendable {
    let storage: any ReleaseStorage

    public init(storage: any ReleaseStorage) { self.storage = storage }

    /// A schedule is late when it fires this long after its time (every process was down).
    public static let lateAfterSeconds = 5

    /// Points channel `name` at published version `version`, making the channel when it is new.
    public func moveChannel(
        appId: String, name: String, version: Int, precondition: RevisionPrecondition, movedBy: String, note: String
    ) async throws -> (channel: Channel, created: Bool) {
        try await storage.withReleases(appId: appId) { tx in
            guard try await tx.versionExists(version) else {
                throw StoreError.invalid([FieldError("/version", "this app has no version \(version): publish first, then point a channel at it")])
            }
            return try await Self.move(name, to: version, precondition: precondition, movedBy: movedBy, note: note, cause: .promote, in: tx)
        }
    }

    /// The rules of every move of a channel, whatever moves it (a publish, a rollback, a
    /// promotion, a schedule): `If-Match` names a revision of the channel (a channel that does
    /// not exist has none); a new channel counts against the app's cap; the move is written with
    /// the version it leaves in its history.
    static func move(
        _ name: String, to version: Int, precondition: RevisionPrecondition, movedBy: String, note: String, cause: ChannelMoveCause,
        in tx: any ReleaseTransaction
    ) async throws -> (channel: Channel, created: Bool) {
        try await move(
            name, from: try await tx.channel(name), to: version, precondition: precondition, movedBy: movedBy, note: note, cause: cause,
            in: tx)
    }

    /// The same, for a caller that has read (and locked) the channel's row already: `existing`.
    static func move(
        _ name: String, from existing: Channel?, to version: Int, precondition: RevisionPrecondition, movedBy: String, note: String,
        cause: ChannelMoveCause, withNewVersion: Bool = false, in tx: any ReleaseTransaction
    ) async throws -> (channel: Channel, created: Bool) {
        if let existing {
            try precondition.check(existing.revision)
            // Already there: nothing moves (no history entry, no new revision, no webhook), so a
            // repeated promotion leaves the next rollback's target as it was.
            if existing.version == version { return (existing, false) }
        } else {
            if precondition != .none { throw StoreError.preconditionFailed(current: 0) }
            try AppCaps.refuseAtCap(try await tx.channelNames().count, limit: Limits.maxChannelsPerApp, "channels")
        }
        let channel = try await tx.writeChannel(
            name, to: version, previous: existing?.version, movedBy: movedBy, note: note, cause: cause, withNewVersion: withNewVersion)
        return (channel, existing == nil)
    }

    /// Moves a channel back to the version it pointed at before its latest move.
    public func rollbackChannel(appId: String, name: String, precondition: RevisionPrecondition, movedBy: String, note: String) async throws -> Channel {
        try await storage.withReleases(appId: appId) { tx in
            guard let latest = try await tx.latestMove(of: name) else { throw StoreError.notFound("no channel \(String(name.prefix(40))) in this app") }
            guard let target = latest.previousVersion else {
                throw StoreError.conflict("channel \(name) has never pointed at another version: there is nothing to roll back to", usedBy: [])
            }
            return try await Self.move(
                name, to: target, precondition: precondition, movedBy: movedBy, note: note.isEmpty ? "rollback to version \(target)" : note,
                cause: .rollback, in: tx
            ).channel
        }
    }

    /// Removes a channel that no rule and no pending schedule needs (never production).
    public func deleteChannel(appId: String, name: String, precondition: RevisionPrecondition) async throws {
        if name == ChannelName.production {
            throw StoreError.conflict("production cannot be removed: the app's main URL serves it", usedBy: [])
        }
        try await storage.withReleases(appId: appId) { tx in
            guard let channel = try await tx.channel(name) else { throw StoreError.notFound("no channel \(String(name.prefix(40))) in this app") }
            try precondition.check(channel.revision)
            if let i = try await tx.releaseRules().rules.firstIndex(where: { $0.target == .channel(name) }) {
                throw StoreError.conflict("release rule \(i + 1) sends apps to \(name): change that rule first", usedBy: [])
            }
            let pending = try await tx.pendingSchedules(channel: name)
            if pending > 0 {
                throw StoreError.conflict("\(pending) scheduled promotion(s) of \(name) are pending: cancel them first", usedBy: [])
            }
            try await tx.deleteChannel(name)
        }
    }

    /// Replaces the rules. Every channel and version they name must exist.
    public func setReleaseRules(appId: String, rules: [ReleaseRule], precondition: RevisionPrecondition) async throws -> ReleaseRuleSet {
        try await storage.withReleases(appId: appId) { tx in
            // The rules always exist (empty, revision 0, before they are first set): "0" matches them then.
            try precondition.check(try await tx.releaseRules().revision)
            let channels = try await tx.channelNames()
            let newest = try await tx.newestVersion()?.number ?? 0
            var problems: [FieldError] = []
            for (i, rule) in rules.enumerated() {
                switch rule.target {
                case .channel(let name) where !channels.contains(name):
                    problems.append(FieldError(
                        "/rules/\(i)/channel", "this app has no channel \(name)" + (name == ChannelName.production ? " yet: publish first" : ": make it first")))
                case .version(let n) where n > newest:
                    problems.append(FieldError(
                        "/rules/\(i)/version", newest == 0 ? "this app has no published version yet" : "this app has no version \(n) (the newest is \(newest))"))
                default: break
                }
            }
            if !problems.isEmpty { throw StoreError.invalid(problems) }
            return try await tx.writeReleaseRules(rules)
        }
    }

    /// Schedules a promotion of an existing version (so it cannot fail for its content when it fires).
    public func createSchedule(appId: String, channel: String, version: Int, dueAt: Date, createdBy: String) async throws -> Schedule {
        try await storage.withReleases(appId: appId) { tx in
            var problems: [FieldError] = []
            if try await !tx.versionExists(version) {
                problems.append(FieldError("/version", "this app has no version \(version): only published versions can be scheduled"))
            }
            if channel != ChannelName.production, try await tx.channel(channel) == nil {
                problems.append(FieldError("/channel", "this app has no channel \(channel): make it first"))
            }
            if !problems.isEmpty { throw StoreError.invalid(problems) }
            try AppCaps.refuseAtCap(try await tx.pendingSchedules(channel: nil), limit: Limits.maxPendingSchedulesPerApp, "pending schedules")
            _ = try await tx.dropScheduleHistory(keeping: Limits.maxScheduleHistoryPerApp)
            return try await tx.insertSchedule(channel: channel, version: version, dueAt: dueAt, createdBy: createdBy)
        }
    }

    /// Cancels a pending schedule; one cancelled already stays as it is; one that fired cannot be.
    public func cancelSchedule(appId: String, id: String) async throws -> Schedule {
        guard let id = UUIDText.normalize(id) else { throw StoreError.notFound("no schedule \(String(id.prefix(40))) in this app") }
        return try await storage.withReleases(appId: appId) { tx in
            guard let schedule = try await tx.schedule(id: id) else { throw StoreError.notFound("no schedule \(id) in this app") }
            if schedule.firedAt != nil { throw StoreError.conflict("this schedule fired already: move the channel back instead", usedBy: []) }
            if schedule.cancelledAt != nil { return schedule }
            return try await tx.markCancelled(schedule: id)
        }
    }

    /// Fires the earliest due schedule no other process is firing: the channel moves and the
    /// schedule is marked fired in one transaction. Nil when none is due.
    public func fireDueSchedule() async throws -> FiredSchedule? {
        try await AuditActor.$current.withValue(AuditActor(name: "schedule", kind: .schedule)) {
            try await storage.withDueSchedule { tx, due in
                let fired = try await tx.markFired(schedule: due.id, lateAfterSeconds: Self.lateAfterSeconds)
                let note = "scheduled for " + Timestamp.format(fired.dueAt) + (fired.late ? " (fired late: no server was running then)" : "")
                _ = try await Self.move(fired.channel, to: fired.version, precondition: .none, movedBy: "schedule", note: note, cause: .schedule, in: tx)
                return FiredSchedule(schedule: fired, appId: tx.appId, slug: try await tx.slug())
            }
        }
    }
}

import Foundation
import RiversCore

/// Where channels, release rules and schedules are kept, for the release use cases
/// (`ReleaseService` in RiversServices): the service decides where a channel may point, which
/// rules and schedules are valid and what firing a schedule does; a storage only reads and
/// writes. `Store` carries each call out in SQL on one transaction (the app's row locked, as
/// every publish is: a move and a publish of an app never interleave); `InMemoryContent` on a
/// copy of the app it commits only when the work returns.
public protocol ReleaseStorage: Sendable {
    /// Runs `work` as one transaction over the app `appId`, its row locked. 404 for an unknown app.
    func withReleases<T: Sendable>(appId: String, _ work: @escaping @Sendable (any ReleaseTransaction) async throws -> T) async throws -> T
    /// Runs `work` on the earliest due, pending schedule of an app that is not archived which no
    /// other transaction holds, in one transaction holding that schedule and its app's row (so a
    /// schedule fires once however many processes look, and one killed halfway leaves it for the
    /// next). Nil, and `work` not run, when none is due.
    func withDueSchedule<T: Sendable>(_ work: @escaping @Sendable (any ReleaseTransaction, Schedule) async throws -> T) async throws -> T?
}

/// The channels, rules and schedules of one app inside one transaction.
public protocol ReleaseTransaction: AnyObject {
    /// The app the transaction is over.
    var appId: String { get }
    /// The app's slug (what its public URLs are made of).
    func slug() async throws -> String
    /// The channel `name`, locked for update; nil when there is none.
    func channel(_ name: String) async throws -> Channel?
    /// The names of every channel of the app.
    func channelNames() async throws -> Set<String>
    /// Whether the app has published version `number`.
    func versionExists(_ number: Int) async throws -> Bool
    /// The number and hash of the newest version.
    func newestVersion() async throws -> (number: Int, sha256: String)?
    /// The latest move of channel `name` that changed its version (its first, which made it,
    /// counts), or nil when it never moved (does not exist). Moves to the version a channel
    /// already served are no longer written; some written before are skipped here.
    func latestMove(of name: String) async throws -> ChannelMove?
    /// Points `name` at `version` (making the row when there is none; its revision goes up
    /// otherwise) with an entry in its history; production's move is the app's current version
    /// too. Every server process hears of the move when the transaction commits.
    func writeChannel(
        _ name: String, to version: Int, previous: Int?, movedBy: String, note: String, cause: ChannelMoveCause, withNewVersion: Bool
    ) async throws -> Channel
    /// Removes channel `name` (every process hears of it at commit).
    func deleteChannel(_ name: String) async throws
    /// The rules as stored (empty at revision 0 before they are first set).
    func releaseRules() async throws -> ReleaseRuleSet
    /// Replaces the rules (the revision goes up); every process hears of it at commit.
    func writeReleaseRules(_ rules: [ReleaseRule]) async throws -> ReleaseRuleSet
    /// How many schedules are pending (neither fired nor cancelled), of channel `name` or of all.
    func pendingSchedules(channel name: String?) async throws -> Int
    func insertSchedule(channel: String, version: Int, dueAt: Date, createdBy: String) async throws -> Schedule
    /// Deletes the app's schedules that fired or were cancelled but the `keeping` latest by due
    /// time (then by id); pending ones stay. Returns how many went.
    func dropScheduleHistory(keeping: Int) async throws -> Int
    /// The schedule `id` (a UUID), locked for update; nil when the app has none.
    func schedule(id: String) async throws -> Schedule?
    /// Marks a pending schedule cancelled now.
    func markCancelled(schedule id: String) async throws -> Schedule
    /// Marks a schedule fired now, late when now is more than `lateAfterSeconds` past its time.
    func markFired(schedule id: String, lateAfterSeconds: Int) async throws -> Schedule
}

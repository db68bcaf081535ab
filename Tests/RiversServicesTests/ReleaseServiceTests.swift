import Foundation
import RiversCore
import RiversServices
import RiversStore
import Testing

/// Channels, release rules and schedules over in-memory storage: no PostgreSQL (the fast tier).
@Suite("Releases, in memory")
struct ReleaseServiceTests {
    let appId = "88888888-8888-4888-8888-888888888888"

    /// An app with versions 1 and 2 published (production at 2).
    func twoVersions() async throws -> InMemoryContent {
        let storage = try await contentWithFamily(appId: appId)
        let (_, homeId) = try await ScreenService(storage: storage).create(appId: appId, body: screen("Home", [list("feed-1")]))
        _ = try await PublishService(storage: storage).publish(appId: appId, note: "", publishedBy: "test")
        _ = try await ScreenService(storage: storage).update(appId: appId, id: homeId, precondition: .none, edit: .mergePatch(["name": "Start"]))
        _ = try await PublishService(storage: storage).publish(appId: appId, note: "", publishedBy: "test")
        return storage
    }

    func refused<T>(_ write: () async throws -> T) async throws -> String? {
        do {
            _ = try await write()
            return nil
        } catch StoreError.conflict(let message, _) {
            return message
        }
    }

    @Test func channelsMoveToPublishedVersionsAndBack() async throws {
        let storage = try await twoVersions()
        let releases = ReleaseService(storage: storage)
        #expect(try await invalid { try await releases.moveChannel(appId: appId, name: "beta", version: 3, precondition: .none, movedBy: "ann", note: "") } == ["/version"])
        // If-Match names a revision of something that exists.
        await #expect(throws: StoreError.self) {
            try await releases.moveChannel(appId: appId, name: "beta", version: 1, precondition: .oneOf([1]), movedBy: "ann", note: "")
        }
        let (made, created) = try await releases.moveChannel(appId: appId, name: "beta", version: 1, precondition: .none, movedBy: "ann", note: "try it")
        #expect(created && made.version == 1 && made.revision == 1)
        // Made with one version: nothing to go back to.
        #expect(try await refused { try await releases.rollbackChannel(appId: appId, name: "beta", precondition: .none, movedBy: "ann", note: "") } != nil)
        let (moved, again) = try await releases.moveChannel(appId: appId, name: "beta", version: 2, precondition: .oneOf([1]), movedBy: "ann", note: "")
        #expect(!again && moved.version == 2 && moved.revision == 2)
        // Promoted again to the version it serves (a retried request): nothing moves.
        let (same, _) = try await releases.moveChannel(appId: appId, name: "beta", version: 2, precondition: .oneOf([2]), movedBy: "ann", note: "again")
        #expect(same.version == 2 && same.revision == 2)
        // Such a move written before they were skipped is passed over by a rollback.
        _ = try await storage.withReleases(appId: appId) { tx in
            try await tx.writeChannel("beta", to: 2, previous: 2, movedBy: "older server", note: "", cause: .promote, withNewVersion: false)
        }
        await #expect(throws: StoreError.self) {
            try await releases.moveChannel(appId: appId, name: "beta", version: 1, precondition: .oneOf([1]), movedBy: "ann", note: "")
        }
        let back = try await releases.rollbackChannel(appId: appId, name: "beta", precondition: .none, movedBy: "ann", note: "")
        #expect(back.version == 1 && back.revision == 4)
        let moves = storage.channelMoves(appId: appId).filter { $0.channel == "beta" }
        #expect(moves.map(\.move.version) == [1, 2, 2, 1] && moves.map(\.move.previousVersion) == [nil, 1, 2, 2])
        #expect(moves.last?.move.note == "rollback to version 1" && moves.last?.cause == .rollback)
        // Production moves the app's main URL; its history begins with the publishes.
        let production = try await releases.rollbackChannel(appId: appId, name: ChannelName.production, precondition: .none, movedBy: "ann", note: "")
        #expect(production.version == 1 && storage.channel(appId: appId, name: ChannelName.production) == 1)
        await #expect(throws: StoreError.self) {
            try await releases.rollbackChannel(appId: appId, name: "nope", precondition: .none, movedBy: "ann", note: "")
        }
    }

    @Test func aChannelStaysWhileARuleOrASchedulePointsAtIt() async throws {
        let storage = try await twoVersions()
        let releases = ReleaseService(storage: storage)
        _ = try await releases.moveChannel(appId: appId, name: "beta", version: 1, precondition: .none, movedBy: "ann", note: "")
        #expect(try await refused { try await releases.deleteChannel(appId: appId, name: ChannelName.production, precondition: .none) }?.contains("production") == true)

        // Rules name channels and versions that exist, every problem at its rule.
        let rules = [
            ReleaseRule(store: .appleStore, below: AppVersion("5.0"), target: .channel("beta")),
            ReleaseRule(target: .channel("qa")), ReleaseRule(target: .version(7)),
        ]
        #expect(try await invalid { try await releases.setReleaseRules(appId: appId, rules: rules, precondition: .none) } == ["/rules/1/channel", "/rules/2/version"])
        await #expect(throws: StoreError.self) { try await releases.setReleaseRules(appId: appId, rules: [], precondition: .oneOf([3])) }
        let set = try await releases.setReleaseRules(appId: appId, rules: [rules[0]], precondition: .oneOf([0]))
        #expect(set.revision == 1 && set.rules == [rules[0]])
        #expect(try await refused { try await releases.deleteChannel(appId: appId, name: "beta", precondition: .none) }?.contains("rule 1") == true)
        _ = try await releases.setReleaseRules(appId: appId, rules: [], precondition: .oneOf([1]))

        let pending = try await releases.createSchedule(appId: appId, channel: "beta", version: 2, dueAt: Date().addingTimeInterval(3600), createdBy: "ann")
        #expect(try await refused { try await releases.deleteChannel(appId: appId, name: "beta", precondition: .none) }?.contains("pending") == true)
        _ = try await releases.cancelSchedule(appId: appId, id: pending.id)
        // Another channel's pending promotion keeps only that one.
        _ = try await releases.createSchedule(appId: appId, channel: ChannelName.production, version: 1, dueAt: Date().addingTimeInterval(3600), createdBy: "ann")
        await #expect(throws: StoreError.self) { try await releases.deleteChannel(appId: appId, name: "beta", precondition: .oneOf([9])) }
        try await releases.deleteChannel(appId: appId, name: "beta", precondition: .oneOf([1]))
        #expect(storage.channel(appId: appId, name: "beta") == nil)
        await #expect(throws: StoreError.self) { try await releases.deleteChannel(appId: appId, name: "beta", precondition: .none) }
    }

    @Test func schedulesFireOnceWhenDueAndSayWhenTheyAreLate() async throws {
        let storage = try await twoVersions()
        let releases = ReleaseService(storage: storage)
        #expect(Set(try await invalid {
            try await releases.createSchedule(appId: appId, channel: "qa", version: 9, dueAt: Date(), createdBy: "ann")
        }) == ["/version", "/channel"])
        // Production exists once something is published; schedules of it need nothing more.
        let future = try await releases.createSchedule(appId: appId, channel: ChannelName.production, version: 1, dueAt: Date().addingTimeInterval(3600), createdBy: "ann")
        #expect(try await releases.fireDueSchedule() == nil, "nothing is due")

        let due = try await releases.createSchedule(appId: appId, channel: ChannelName.production, version: 2, dueAt: Date().addingTimeInterval(-1), createdBy: "ann")
        let late = try await releases.createSchedule(appId: appId, channel: ChannelName.production, version: 1, dueAt: Date().addingTimeInterval(-3600), createdBy: "ann")
        // The earliest first; each once.
        let first = try #require(try await releases.fireDueSchedule())
        #expect(first.schedule.id == late.id && first.schedule.late && first.appId == appId && first.slug == appId)
        let second = try #require(try await releases.fireDueSchedule())
        #expect(second.schedule.id == due.id && !second.schedule.late && second.schedule.firedAt != nil)
        #expect(try await releases.fireDueSchedule() == nil)
        #expect(storage.channel(appId: appId, name: ChannelName.production) == 2)
        let lastMove = try #require(storage.channelMoves(appId: appId).last)
        #expect(lastMove.cause == .schedule && lastMove.move.movedBy == "schedule" && lastMove.move.previousVersion == 1)
        #expect(storage.channelMoves(appId: appId).dropLast().last?.move.note.contains("fired late") == true)
        // One for the version the channel serves already fires, and moves nothing.
        let moves = storage.channelMoves(appId: appId).count
        let already = try await releases.createSchedule(appId: appId, channel: ChannelName.production, version: 2, dueAt: Date().addingTimeInterval(-1), createdBy: "ann")
        #expect(try await releases.fireDueSchedule()?.schedule.id == already.id)
        #expect(storage.channelMoves(appId: appId).count == moves)

        // A fired schedule cannot be cancelled; a cancelled one stays cancelled.
        #expect(try await refused { try await releases.cancelSchedule(appId: appId, id: due.id) } != nil)
        let cancelled = try await releases.cancelSchedule(appId: appId, id: future.id.uppercased())
        #expect(cancelled.cancelledAt != nil)
        #expect(try await releases.cancelSchedule(appId: appId, id: future.id).cancelledAt == cancelled.cancelledAt)
        await #expect(throws: StoreError.self) { try await releases.cancelSchedule(appId: appId, id: "not-a-uuid") }
        let listed = try await storage.schedules(appId: appId, limit: 10, offset: 0)
        #expect(listed.total == 4 && listed.schedules.allSatisfy { $0.firedAt != nil || $0.cancelledAt != nil })
    }

    @Test func anAppKeepsItsLatestFinishedSchedulesOnly() async throws {
        let storage = try await twoVersions()
        let releases = ReleaseService(storage: storage)
        let start = Date().addingTimeInterval(3600)
        var made: [Schedule] = []
        for i in 0..<(Limits.maxScheduleHistoryPerApp + 5) {
            let schedule = try await releases.createSchedule(
                appId: appId, channel: ChannelName.production, version: 1, dueAt: start.addingTimeInterval(Double(i)), createdBy: "ann")
            made.append(try await releases.cancelSchedule(appId: appId, id: schedule.id))
        }
        let pending = try await releases.createSchedule(appId: appId, channel: ChannelName.production, version: 2, dueAt: start, createdBy: "ann")
        let listed = try await storage.schedules(appId: appId, limit: 2_000, offset: 0)
        // The pending one and the latest 1,000 cancelled: the oldest went as later ones were made.
        #expect(listed.total == Limits.maxScheduleHistoryPerApp + 1)
        #expect(listed.schedules.first?.id == pending.id)
        let keptTheLatest = Set(listed.schedules.dropFirst().map(\.id)) == Set(made.suffix(Limits.maxScheduleHistoryPerApp).map(\.id))
        #expect(keptTheLatest, "the latest cancelled ones stay")
    }
}

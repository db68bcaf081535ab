import Foundation
import NIOConcurrencyHelpers
import PostgresNIO
import RiversCore
import RiversServices
import Testing

@testable import RiversServer
@testable import RiversStore

/// A tenant's writes must not take the connection pool from the others: every write of an app
/// locks its row, and each one waiting for the lock used to hold a pooled connection.
@Suite("One app's writes hold one pooled connection")
struct AppTurnsTests {
    /// What `work` came to if it ended within `seconds`; nil if it is still running (it is left
    /// to end on its own).
    func outcome<T: Sendable>(within seconds: Double, _ work: @escaping @Sendable () async throws -> T) async throws -> Result<T, any Error>? {
        let box = NIOLockedValueBox<Result<T, any Error>?>(nil)
        Task {
            do {
                let value = try await work()
                box.withLockedValue { $0 = .success(value) }
            } catch {
                box.withLockedValue { $0 = .failure(error) }
            }
        }
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if let result = box.withLockedValue({ $0 }) { return result }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    @Test("with an app's row held by another transaction, its writes wait in memory: another app's write goes through at once, one past 64 waiting is refused busy, and all go through once the row is free")
    func oneAppCannotTakeThePool() async throws {
        // A pool of its own (20 connections, as a server has), and one more client for the holder.
        let client = try await TestDatabase.newClient()
        let holder = try await TestDatabase.newClient()
        let store = Store(client: client, logger: testLogger)
        let running = Task { await withDiscardingTaskGroup { group in
            group.addTask { await client.run() }
            group.addTask { await holder.run() }
        } }
        defer { running.cancel() }
        let apps = AppService(storage: store)
        let busy = try await apps.create(slug: "t-\(UUIDText.random().prefix(8))", name: "Busy app")
        let other = try await apps.create(slug: "t-\(UUIDText.random().prefix(8))", name: "Other app")

        // Another process's transaction holds the busy app's row.
        let (locked, lockedSignal) = AsyncStream.makeStream(of: Void.self)
        let (released, release) = AsyncStream.makeStream(of: Void.self)
        let holding = Task {
            try await holder.withTransaction(logger: testLogger) { connection in
                _ = try await connection.query("SELECT 1 FROM apps WHERE id = \(busy.id)::uuid FOR UPDATE", logger: testLogger).collect()
                lockedSignal.yield()
                for await _ in released { break }
            }
        }
        for await _ in locked { break }

        // One write of the busy app takes a connection and waits for the row; 64 more wait in memory.
        let waiting = store.appTurns.maxWaitingPerApp
        let write: @Sendable (String) async throws -> Int = { appId in
            try await store.withReleases(appId: appId) { tx in try await tx.pendingSchedules(channel: nil) }
        }
        let writes = (0...waiting).map { _ in Task { try await write(busy.id) } }
        let deadline = ContinuousClock.now + .seconds(20)
        while store.appTurns.load.waiting < waiting, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(store.appTurns.load.waiting == waiting)

        // Another app's write does not wait for them (it waited for the whole line when they held the pool).
        let elsewhere = try await outcome(within: 3) { try await write(other.id) }
        #expect(elsewhere.map { (try? $0.get()) == 0 } == true, "another app's write waited for the busy app's")
        // One more of the busy app: refused at once, as busy.
        let refused = try await outcome(within: 3) { try await write(busy.id) }
        var wasBusy = false
        if case .failure(StoreError.busy(let detail))? = refused { wasBusy = detail.contains("64 changes of this app are waiting") }
        #expect(wasBusy, "\(String(describing: refused))")
        if case .failure(let error as StoreError)? = refused {
            // As the API answers it: 503 busy, retry in a second.
            let problem = Problem.from(error)
            #expect(problem.status == .serviceUnavailable && problem.type.hasSuffix("busy") && problem.headers[.retryAfter] == "1")
        }
        // A rename of the app takes its turn too (it locks the same row): refused the same way.
        let rename = try await outcome(within: 3) { try await apps.update(appId: busy.id, name: "Renamed", slug: nil) }
        var renameWasBusy = false
        if case .failure(StoreError.busy)? = rename { renameWasBusy = true }
        #expect(renameWasBusy, "\(String(describing: rename))")

        release.yield()
        try await holding.value
        for write in writes { #expect(try await write.value == 0) }
        #expect(store.appTurns.load == (running: 0, waiting: 0))
    }

    @Test("turns go in order; a write cancelled while waiting leaves the line")
    func turnsGoInOrder() async throws {
        let turns = AppTurns(maxWaitingPerApp: 8)
        let order = NIOLockedValueBox<[Int]>([])
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let first = Task { try await turns.run("a") { for await _ in gate { break }; order.withLockedValue { $0.append(0) } } }
        while turns.load.running == 0 { try await Task.sleep(for: .milliseconds(5)) }
        var later: [Task<Void, any Error>] = []
        for n in 1...3 {
            later.append(Task { try await turns.run("a") { order.withLockedValue { $0.append(n) } } })
            while turns.load.waiting < n { try await Task.sleep(for: .milliseconds(5)) }
        }
        // Another app is not in this line.
        try await turns.run("b") { order.withLockedValue { $0.append(9) } }
        later[1].cancel()
        await #expect(throws: CancellationError.self) { try await later[1].value }
        #expect(turns.load.waiting == 2)
        open.yield()
        try await first.value
        try await later[0].value
        try await later[2].value
        #expect(order.withLockedValue { $0 } == [9, 0, 1, 3])
        #expect(turns.load == (running: 0, waiting: 0))
    }
}
